#!/usr/bin/env python3
"""Writes one wheel of the portable dlready executable, laid out as ruff's and uv's are: the
executable in dlready-V.data/scripts/ (pip copies it into bin/ or Scripts/ unchanged, so no Python
starts per call), the small `dlready` package that finds it (python/dlready/), the licences of
everything linked into it, tagged py3-none-<platform> (one wheel serves every Python).

usage: make_wheel.py --exe PATH --platform TAG[.TAG...] --version V --out DIR [--license NAME=PATH]...
                     [--data DEST=DIR]...
Prints the wheel's path. Deterministic: the same inputs give the same bytes.
"""
import argparse
import base64
import hashlib
import os
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Zip entries carry no build time: SOURCE_DATE_EPOCH's (scripts/release.sh sets the commit's), else a
# fixed one (zip cannot hold a time before 1980).
_EPOCH_SECONDS = max(int(os.environ.get("SOURCE_DATE_EPOCH", "1767225600")), 315532800)
EPOCH = __import__("time").gmtime(_EPOCH_SECONDS)[:6]


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def metadata(version, licenses):
    lines = [
        "Metadata-Version: 2.4",
        "Name: dlready",
        f"Version: {version}",
        "Summary: Is this machine ready to run PyTorch on its GPUs? If not: why, and the command that fixes it",
        "Requires-Python: >=3.8",
        "Keywords: pytorch,cuda,gpu,nvidia,driver,doctor,diagnostics",
        "Classifier: Environment :: Console",
        "Classifier: Environment :: GPU :: NVIDIA CUDA",
        "Classifier: Intended Audience :: Developers",
        "Classifier: Intended Audience :: Science/Research",
        "Classifier: Intended Audience :: System Administrators",
        "Classifier: Operating System :: POSIX :: Linux",
        "Classifier: Operating System :: Microsoft :: Windows",
        "Classifier: Programming Language :: C++",
        "Classifier: Topic :: Scientific/Engineering :: Artificial Intelligence",
        "Classifier: Topic :: System :: Systems Administration",
    ]
    lines += [f"License-File: licenses/{name}" for name in sorted(licenses)]
    lines += ["Description-Content-Type: text/markdown", ""]
    lines.append(
        "# dlready\n\n"
        "`dlready doctor` tells you in milliseconds, without importing PyTorch, whether this machine can run\n"
        "PyTorch on a GPU, and if not, exactly why and the command that fixes it. This wheel carries the\n"
        "native `dlready` executable (doctor, setup, snapshot/diff/export, capture); `python -m dlready` runs it\n"
        "too. On Linux, train, verify, bench, eval, quantize and export-model run in a LibTorch module that\n"
        "dlready compiles once against your own torch with your C++ compiler (`dlready module build`, or the\n"
        "first such command; the sources are in the wheel).\n")
    return "\n".join(lines)


def wheel_file(tags):
    lines = ["Wheel-Version: 1.0", "Generator: dlready scripts/make_wheel.py", "Root-Is-Purelib: false"]
    lines += [f"Tag: py3-none-{t}" for t in tags]
    return "\n".join(lines) + "\n"


def add(zf, name, data, mode=0o644, record=None):
    info = zipfile.ZipInfo(name, EPOCH)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = (0o100000 | mode) << 16
    zf.writestr(info, data)
    if record is not None:
        record.append(record_line(name, data))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", required=True)
    ap.add_argument("--platform", required=True, help="manylinux_2_17_x86_64.manylinux2014_x86_64, win_amd64, ...")
    ap.add_argument("--version", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--license", action="append", default=[], help="NAME=PATH of a licence to ship")
    ap.add_argument("--data", action="append", default=[],
                    help="DEST=DIR: a folder installed under the prefix at DEST (e.g. share/dlready/module-src)")
    a = ap.parse_args()
    tags = a.platform.split(".")
    exe_name = "dlready.exe" if a.exe.endswith(".exe") else "dlready"
    dist = f"dlready-{a.version}"
    wheel = os.path.join(a.out, f"{dist}-py3-none-{a.platform}.whl")
    os.makedirs(a.out, exist_ok=True)
    licenses = {}
    for item in a.license:
        name, _, path = item.partition("=")
        with open(path, "rb") as f:
            licenses[name] = f.read()
    record = []
    tmp = wheel + ".part"
    with zipfile.ZipFile(tmp, "w") as zf:
        for name in sorted(os.listdir(os.path.join(ROOT, "python", "dlready"))):
            if name.endswith(".py"):
                with open(os.path.join(ROOT, "python", "dlready", name), "rb") as f:
                    add(zf, f"dlready/{name}", f.read(), record=record)
        with open(a.exe, "rb") as f:
            add(zf, f"{dist}.data/scripts/{exe_name}", f.read(), 0o755, record)
        for item in a.data:  # the wheel's data scheme: pip puts it under the prefix (venv, --target, --user)
            dest, _, folder = item.partition("=")
            for top, dirs, files in os.walk(folder):
                dirs.sort()
                for name in sorted(files):
                    path = os.path.join(top, name)
                    rel = os.path.relpath(path, folder).replace(os.sep, "/")
                    with open(path, "rb") as f:
                        add(zf, f"{dist}.data/data/{dest}/{rel}", f.read(), record=record)
        for name in sorted(licenses):
            add(zf, f"{dist}.dist-info/licenses/{name}", licenses[name], record=record)
        add(zf, f"{dist}.dist-info/METADATA", metadata(a.version, licenses).encode(), record=record)
        add(zf, f"{dist}.dist-info/WHEEL", wheel_file(tags).encode(), record=record)
        record.append(f"{dist}.dist-info/RECORD,,")
        add(zf, f"{dist}.dist-info/RECORD", ("\n".join(record) + "\n").encode())
    os.replace(tmp, wheel)
    print(wheel)


if __name__ == "__main__":
    sys.exit(main())
