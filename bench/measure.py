#!/usr/bin/env python3
"""Runs a command once and prints "<wall seconds> <peak RSS KiB> <exit status>".
usage: measure.py [--stdout FILE] -- command args...   (stdout goes to FILE, else is discarded)
Used by the bench/ scripts so both sides are measured the same way."""
import resource, subprocess, sys, time

args = sys.argv[1:]
out = subprocess.DEVNULL
if args and args[0] == "--stdout":
    out = open(args[1], "wb")
    args = args[2:]
if args and args[0] == "--":
    args = args[1:]
t0 = time.perf_counter()
p = subprocess.run(args, stdout=out, stderr=subprocess.DEVNULL)
wall = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"{wall:.6f} {rss} {p.returncode}")
