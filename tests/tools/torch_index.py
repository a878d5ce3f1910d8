#!/usr/bin/env python3
"""A stand-in for https://download.pytorch.org/whl/ and PyPI on 127.0.0.1, for the tests of
`dlready setup` and `dlready export`: PEP 503 simple indexes, one per CUDA variant
(<root>/<variant>/torch/) and one for PyPI (<root>/pypi/<project>/), each holding small generated
wheels with real dist-info (METADATA, WHEEL, RECORD with hashes) and no payload (a module that
says so). Serves until killed; writes the port it got to PORT_FILE.

usage: torch_index.py DIR PORT_FILE SPEC...
  SPEC = VERSION+VARIANT (torch on PyTorch's index for VARIANT: 2.11.0+cpu, 2.11.0+cu130)
       | INDEX/NAME==VERSION (any project on index INDEX: pypi/torch==2.11.0, cu130/torchvision==0.26.0+cu130)
       | INDEX/NAME==VERSION:TAG,TAG (one file per CPython tag, named as the real wheels are:
         whl/torch==2.16.0+cu132:cp311,cp312 -> torch-2.16.0+cu132-cp311-cp311-manylinux_2_28_x86_64.whl;
         for the plan, which reads the names; pip is not asked to install these)
"""
import base64
import hashlib
import http.server
import os
import re
import sys
import zipfile


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def make_wheel(folder, project, version):
    under = re.sub(r"[-_.]+", "_", project).lower()
    info = f"{under}-{version}.dist-info"
    files = {
        f"{under}/__init__.py": b"# dlready's test index: a wheel with real metadata and no payload\n",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {project}\nVersion: {version}\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: dlready-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = [record_line(n, d) for n, d in files.items()] + [f"{info}/RECORD,,"]
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    name = f"{under}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(folder, name), "w") as z:
        for n, d in files.items():
            z.writestr(n, d)
    return name


def tagged_copies(folder, wheel, project, version, tags):
    under = re.sub(r"[-_.]+", "_", project).lower()
    names = []
    for tag in tags:
        name = f"{under}-{version}-{tag}-{tag}-manylinux_2_28_x86_64.whl"
        with open(os.path.join(folder, wheel), "rb") as src, open(os.path.join(folder, name), "wb") as dst:
            dst.write(src.read())
        names.append(name)
    return names


def main():
    root, port_file, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
    by_index = {}  # index -> project (PEP 503 normalized) -> [(name, version)]
    for spec in specs:
        if "/" in spec:
            index, pin = spec.split("/", 1)
            name, version = pin.split("==", 1)
            version, _, tags = version.partition(":")
        else:
            index, name, version, tags = spec.split("+", 1)[1], "torch", spec, ""
        project = re.sub(r"[-_.]+", "-", name).lower()
        by_index.setdefault(index, {}).setdefault(project, []).append((name, version, tags))
    for index, projects in by_index.items():
        for project, pins in projects.items():
            folder = os.path.join(root, index, project)
            os.makedirs(folder, exist_ok=True)
            links = []
            for name, version, tags in pins:
                wheel = make_wheel(folder, name, version)
                links += tagged_copies(folder, wheel, name, version, tags.split(",")) if tags else [wheel]
            with open(os.path.join(folder, "index.html"), "w") as f:
                f.write("<!DOCTYPE html><html><body>\n")
                for n in links:
                    # As PyPI and download.pytorch.org do: the file's sha256 in the link (pip checks it).
                    with open(os.path.join(folder, n), "rb") as w:
                        digest = hashlib.sha256(w.read()).hexdigest()
                    f.write(f'<a href="{n.replace("+", "%2B")}#sha256={digest}">{n}</a><br/>\n')
                f.write("</body></html>\n")
        with open(os.path.join(root, index, "index.html"), "w") as f:
            f.write("<!DOCTYPE html><html><body>\n")
            for project in projects:
                f.write(f'<a href="{project}/">{project}</a>\n')
            f.write("</body></html>\n")
    os.chdir(root)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
