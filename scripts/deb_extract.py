#!/usr/bin/env python3
"""Unpacks the files of a .deb into a folder, like `dpkg-deb -x DEB DEST`, for a GPU machine
without dpkg (scripts/gpu-check.sh uses dpkg-deb when it is there).

A .deb is an ar archive holding debian-binary, control.tar.* and data.tar.* (xz, gz, bzip2 or
uncompressed; zstd is not read by Python's tarfile). Paths stay inside DEST; symbolic links are
kept as they are (gpu-check.sh re-points the absolute ones into its prefix).
usage: deb_extract.py DEB DEST
"""
import io
import sys
import tarfile


def ar_members(blob):
    if not blob.startswith(b"!<arch>\n"):
        raise ValueError("not an ar archive")
    pos = 8
    while pos + 60 <= len(blob):
        header = blob[pos:pos + 60]
        name = header[:16].decode("ascii").strip().rstrip("/")
        size = int(header[48:58].decode("ascii").strip())
        yield name, blob[pos + 60:pos + 60 + size]
        pos += 60 + size + (size & 1)  # members are 2-byte aligned


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: deb_extract.py DEB DEST")
    with open(sys.argv[1], "rb") as f:
        blob = f.read()
    try:
        members = list(ar_members(blob))
    except ValueError as e:
        sys.exit(f"{sys.argv[1]}: {e}: fetch the bundle again (scripts/gpu-bundle.sh)")
    for name, body in members:
        if name.startswith("data.tar"):
            with tarfile.open(fileobj=io.BytesIO(body), mode="r:*") as tar:
                if hasattr(tarfile, "tar_filter"):
                    tar.extractall(sys.argv[2], filter="tar")
                else:
                    tar.extractall(sys.argv[2])
            return
    sys.exit(f"{sys.argv[1]}: no data.tar member")


if __name__ == "__main__":
    main()
