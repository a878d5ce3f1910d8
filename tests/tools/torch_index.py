#!/usr/bin/env python3
"""A stand-in for https://download.pytorch.org/whl/ on 127.0.0.1, for `dlready setup`'s tests:
PEP 503 simple indexes, one per CUDA variant (<root>/<variant>/torch/), each holding small
generated torch wheels with real dist-info (METADATA, WHEEL, RECORD with hashes) and no payload
(a torch/__init__.py that says so). Serves until killed; writes the port it got to PORT_FILE.

usage: torch_index.py DIR PORT_FILE VERSION+VARIANT...   e.g. 2.11.0+cpu 2.11.0+cu130
"""
import base64
import hashlib
import http.server
import os
import sys
import zipfile


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def make_wheel(folder, version):
    files = {
        "torch/__init__.py": b"# dlready's test index: a wheel with real metadata and no payload\n",
        f"torch-{version}.dist-info/METADATA": f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n".encode(),
        f"torch-{version}.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: dlready-tests\nRoot-Is-Purelib: true\n"
                                            b"Tag: py3-none-any\n",
    }
    record = [record_line(n, d) for n, d in files.items()] + [f"torch-{version}.dist-info/RECORD,,"]
    files[f"torch-{version}.dist-info/RECORD"] = ("\n".join(record) + "\n").encode()
    name = f"torch-{version}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(folder, name), "w") as z:
        for n, d in files.items():
            z.writestr(n, d)
    return name


def main():
    root, port_file, versions = sys.argv[1], sys.argv[2], sys.argv[3:]
    by_variant = {}
    for v in versions:
        by_variant.setdefault(v.split("+", 1)[1], []).append(v)
    for variant, vs in by_variant.items():
        folder = os.path.join(root, variant, "torch")
        os.makedirs(folder, exist_ok=True)
        links = [make_wheel(folder, v) for v in vs]
        with open(os.path.join(folder, "index.html"), "w") as f:
            f.write("<!DOCTYPE html><html><body>\n")
            for n in links:
                f.write(f'<a href="{n.replace("+", "%2B")}">{n}</a><br/>\n')
            f.write("</body></html>\n")
        with open(os.path.join(root, variant, "index.html"), "w") as f:
            f.write('<!DOCTYPE html><html><body><a href="torch/">torch</a></body></html>\n')
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
