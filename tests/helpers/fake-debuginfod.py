#!/usr/bin/env python3
"""A fake debuginfod server for tests/integration/debuginfod.sh.

fake-debuginfod.py DIR PORTFILE LOG [DELAY]: serves DIR/HEX.debug as
/buildid/HEX/debuginfo on 127.0.0.1 (a free port, written to PORTFILE),
404 for anything else, after DELAY seconds; appends each request path to
LOG."""
import http.server
import os
import sys
import time

root, portfile, log = sys.argv[1], sys.argv[2], sys.argv[3]
delay = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(log, "a") as f:
            f.write(self.path + "\n")
        if delay:
            time.sleep(delay)
        parts = self.path.split("/")
        path = None
        if len(parts) == 4 and parts[1] == "buildid" and parts[3] == "debuginfo" \
                and all(c in "0123456789abcdef" for c in parts[2]):
            path = os.path.join(root, parts[2] + ".debug")
        if not path or not os.path.isfile(path):
            self.send_error(404)
            return
        with open(path, "rb") as f:
            data = f.read()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
