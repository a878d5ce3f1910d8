#!/usr/bin/env python3
"""Checks a macOS executable as dyld would see it, without a Mac: its CPU, the minimum macOS stamped
in LC_BUILD_VERSION, and that it loads nothing outside /usr/lib and /System (a portable binary).
usage: scripts/macho_check.py FILE arm64|x86_64 MINOS        (exit 0 when it passes; one line each way)"""
import struct
import sys

CPUS = {0x0100000C: "arm64", 0x01000007: "x86_64"}


def check(path, want_cpu, want_minos):
    data = open(path, "rb").read()
    if len(data) < 32 or struct.unpack_from("<I", data, 0)[0] != 0xFEEDFACF:
        return f"{path}: not a thin 64-bit Mach-O file"
    _, cpu, _, filetype, ncmds, sizeofcmds = struct.unpack_from("<IIIIII", data, 0)
    if CPUS.get(cpu) != want_cpu:
        return f"{path}: CPU {CPUS.get(cpu, hex(cpu))}, not {want_cpu}"
    if filetype != 2:
        return f"{path}: file type {filetype}, not an executable (2)"
    at, minos, dylibs = 32, None, []
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, at)
        if cmd == 0x32:  # LC_BUILD_VERSION: platform, minos, sdk
            platform, v = struct.unpack_from("<II", data, at + 8)
            if platform == 1:
                minos = f"{v >> 16}.{(v >> 8) & 0xff}"
        elif cmd in (0xC, 0x80000018, 0x8000001F):  # LC_LOAD_DYLIB, weak, reexport
            off = struct.unpack_from("<I", data, at + 8)[0]
            dylibs.append(data[at + off:at + size].split(b"\0")[0].decode())
        at += size
    if minos != want_minos:
        return f"{path}: minimum macOS {minos}, not {want_minos}"
    foreign = [d for d in dylibs if not d.startswith(("/usr/lib/", "/System/Library/"))]
    if foreign:
        return f"{path}: loads {', '.join(foreign)} (only /usr/lib and /System/Library exist on every Mac)"
    return None


if __name__ == "__main__":
    problem = check(sys.argv[1], sys.argv[2], sys.argv[3])
    if problem:
        print("macho_check: " + problem, file=sys.stderr)
        sys.exit(1)
    print(f"macho_check: {sys.argv[1]}: {sys.argv[2]}, macOS {sys.argv[3]}+, system libraries only")
