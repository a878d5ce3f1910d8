#!/usr/bin/env python3
"""Runs a command once and prints "<wall seconds> <peak RSS KiB> <exit status>" (stdout of the
command is discarded). Used by the bench/ scripts so both sides are measured the same way."""
import resource, subprocess, sys, time

t0 = time.perf_counter()
p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
wall = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"{wall:.6f} {rss} {p.returncode}")
