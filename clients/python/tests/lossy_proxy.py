"""A proxy in front of the real gateway that can lose answers: the request reaches the gateway (the
job is queued and decided), but the caller sees the connection break. The ambiguous failure a
check's idempotency key exists for."""

from __future__ import annotations

import http.client
import socket
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class LossyProxy:
    def __init__(self, target: str) -> None:
        parts = urllib.parse.urlsplit(target)
        self.drop_next_checks = 0
        self.check_posts = 0
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else None
                is_check = self.command == "POST" and self.path.startswith("/v1/checks")
                with proxy._lock:
                    drop = False
                    if is_check:
                        proxy.check_posts += 1
                        if proxy.drop_next_checks > 0:
                            proxy.drop_next_checks -= 1
                            drop = True
                upstream = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=120)
                headers = {key: value for key, value in self.headers.items() if key.lower() not in ("host", "connection")}
                upstream.request(self.command, self.path, body=body, headers=headers)
                answer = upstream.getresponse()
                data = answer.read()
                upstream.close()
                if drop:
                    # The gateway answered; the caller never hears it.
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.send_response(answer.status)
                for key, value in answer.getheaders():
                    if key.lower() not in ("connection", "transfer-encoding", "content-length"):
                        self.send_header(key, value)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_DELETE = _forward

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
