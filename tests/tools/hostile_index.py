#!/usr/bin/env python3
"""A package index that misbehaves, for `dlready setup`'s hostile-input tests: every GET answers
with the bytes of BODY_FILE (as text/html) after DELAY seconds. Writes its port to PORT_FILE.
usage: hostile_index.py BODY_FILE PORT_FILE [DELAY]"""
import http.server
import socketserver
import sys
import time

body_file, port_file = sys.argv[1], sys.argv[2]
delay = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        time.sleep(delay)
        with open(body_file, "rb") as f:
            body = f.read()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


with Server(("127.0.0.1", 0), Handler) as server:
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    import os
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()
