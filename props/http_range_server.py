#!/usr/bin/env python3
"""The HTTP server of the remote-checkpoint tests (props/unit_remote_test.cpp).

    python3 http_range_server.py DIR LOG

Serves the files of DIR on 127.0.0.1 only, on a port the system picks, which
it prints as its first line. Every request's path and Range header go to LOG,
one line each ("GET /range/a.safetensors bytes=0-99999"), so a test can say
which bytes were asked for, and "aborted PATH" when the client hung up before
a body was sent whole. After each answer, "sent PATH N" gives the body bytes
that socket writes accepted (a body goes out in 16 KiB writes, so a client
that hangs up stops the count within the socket buffers), and before it
"inflight K" the requests being answered at that moment, this one included.
The first part of the path picks how it answers:

  /range/NAME      Range as RFC 9110 says: 206 with Content-Range, 416 past the end
  /star/NAME       the same, but Content-Range's total is '*' (size unknown)
  /redirect/NAME   302 to /range/NAME on this server
  /loop/NAME       302 to itself, forever
  /elsewhere/NAME  302 to file:///etc/passwd
  /norange/NAME    ignores Range: 200 and the whole file
  /badrange/NAME   206 with a Content-Range one byte later than asked
  /slow/NAME       waits 5 s before answering (the tests lower the timeout)
  /truncated/NAME  206 announcing the bytes asked, then sends half and closes
  /flaky/NAME      503 to the first request for NAME, then as /range/
  /missing/NAME    404
  /lagMS/NAME      as /range/, after waiting MS milliseconds (a distant server)

Standard library only; stops on SIGTERM.
"""
import http.server
import os
import re
import sys
import threading
import time

ROOT = sys.argv[1]
LOG = open(sys.argv[2], "a", buffering=1)
FLAKY_SEEN = set()
LOCK = threading.Lock()
INFLIGHT = [0]
CHUNK = 16384


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real servers do

    def log_message(self, *args):
        pass

    def answered(self):
        # Called before the answer's last bytes are written: the client
        # cannot send its next request before it has them, so the count
        # never holds a request whose handler is only finishing (that race
        # once counted 33 in flight for a client that keeps 32).
        if getattr(self, "counted", False):
            self.counted = False
            with LOCK:
                INFLIGHT[0] -= 1

    def send_plain(self, status, headers=(), body=b""):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        sent = 0
        try:
            if not body:
                self.answered()
            self.end_headers()
            self.wfile.flush()
            for at in range(0, len(body), CHUNK):
                if at + CHUNK >= len(body):
                    self.answered()
                self.wfile.write(body[at:at + CHUNK])
                self.wfile.flush()
                sent += len(body[at:at + CHUNK])
        except (BrokenPipeError, ConnectionResetError):
            # The client hung up before the whole body: logged, so a test
            # can tell a refused transfer from a downloaded one.
            with LOCK:
                LOG.write(f"aborted {self.path}\n")
            self.close_connection = True
        with LOCK:
            LOG.write(f"sent {self.path} {sent}\n")

    def do_GET(self):
        with LOCK:
            INFLIGHT[0] += 1
            LOG.write(f"inflight {INFLIGHT[0]}\n")
        self.counted = True
        try:
            self.answer()
        finally:
            self.answered()

    def answer(self):
        rng = self.headers.get("Range", "")
        with LOCK:
            LOG.write(f"GET {self.path} {rng}\n")
        parts = self.path.split("/", 2)
        if len(parts) < 3:
            return self.send_plain(404)
        mode, name = parts[1], parts[2]
        if mode == "redirect":
            return self.send_plain(302, [("Location", "/range/" + name)])
        if mode == "loop":
            return self.send_plain(302, [("Location", self.path)])
        if mode == "elsewhere":
            return self.send_plain(302, [("Location", "file:///etc/passwd")])
        if mode == "missing":
            return self.send_plain(404, body=b"not here")
        if mode == "flaky":
            with LOCK:
                first = name not in FLAKY_SEEN
                FLAKY_SEEN.add(name)
            if first:
                return self.send_plain(503, body=b"try again")
        if mode == "slow":
            time.sleep(5)
        lag = re.fullmatch(r"lag(\d+)", mode)
        if lag:
            time.sleep(int(lag.group(1)) / 1000)
        path = os.path.join(ROOT, name)
        if "/" in name or not os.path.isfile(path):
            return self.send_plain(404)
        with open(path, "rb") as f:
            data = f.read()
        if mode == "norange":
            return self.send_plain(200, body=data)
        m = re.fullmatch(r"bytes=(\d+)-(\d+)", rng)
        if not m:
            return self.send_plain(200, body=data)
        first, last = int(m.group(1)), int(m.group(2))
        if first >= len(data):
            return self.send_plain(416, [("Content-Range", f"bytes */{len(data)}")])
        last = min(last, len(data) - 1)
        body = data[first:last + 1]
        total = "*" if mode == "star" else str(len(data))
        shift = 1 if mode == "badrange" else 0
        content_range = f"bytes {first + shift}-{last + shift}/{total}"
        if mode == "truncated":
            self.send_response(206)
            self.send_header("Content-Range", content_range)
            self.send_header("Content-Length", str(len(body)))
            self.answered()
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.send_plain(206, [("Content-Range", content_range)], body)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default 5 drops a burst of parallel connects


def main():
    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
