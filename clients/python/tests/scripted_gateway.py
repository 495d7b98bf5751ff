"""A local HTTP server that answers requests from a script: the Python half of the SDKs' contract
(clients/contract/cases.json; the TypeScript half is packages/client/test/contract.test.ts)."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    at: float
    unexpected: bool = False

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


@dataclass
class Script:
    exchanges: list[dict[str, Any]] = field(default_factory=list)
    decisions: dict[str, Any] = field(default_factory=dict)


def expand(value: Any, decisions: dict[str, Any]) -> Any:
    """``{"$decision": name}`` replaced by that decision, everywhere in ``value``."""
    if isinstance(value, dict):
        if set(value) == {"$decision"}:
            return decisions[value["$decision"]]
        return {key: expand(item, decisions) for key, item in value.items()}
    if isinstance(value, list):
        return [expand(item, decisions) for item in value]
    return value


class ScriptedGateway:
    def __init__(self) -> None:
        self.script = Script()
        self.requests: list[Recorded] = []
        #: Answers by "METHOD /path", whatever the order (see route); the script answers the rest.
        self.routes: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._release = threading.Event()
        gateway = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                split = urllib.parse.urlsplit(self.path)
                recorded = Recorded(
                    method=self.command,
                    path=split.path,
                    query={key: values[-1] for key, values in urllib.parse.parse_qs(split.query, keep_blank_values=True).items()},
                    headers={key.lower(): value for key, value in self.headers.items()},
                    body=body,
                    at=time.monotonic(),
                )
                with gateway._lock:
                    index = len(gateway.requests)
                    gateway.requests.append(recorded)
                    exchanges = gateway.script.exchanges
                    routed = gateway.routes.get(f"{recorded.method} {recorded.path}")
                    if routed is not None:
                        exchange = {"answer": routed}
                    elif index < len(exchanges):
                        exchange = exchanges[index]
                    elif exchanges and exchanges[-1].get("repeat"):
                        exchange = exchanges[-1]
                    else:
                        recorded.unexpected = True
                        exchange = {"answer": {"status": 599, "text": "no scripted answer for this request"}}
                self._answer(expand(exchange["answer"], gateway.script.decisions))

            def _answer(self, answer: dict[str, Any]) -> None:
                if answer.get("drop"):
                    self.close_connection = True
                    try:
                        self.connection.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                    return
                if answer.get("hang"):
                    gateway._release.wait(30)
                    self.close_connection = True
                    return
                status = int(answer["status"])
                headers = dict(answer.get("headers") or {})
                if "ndjson" in answer:
                    self.send_response(status)
                    self.send_header("content-type", "application/x-ndjson; charset=utf-8")
                    self.end_headers()
                    for item in answer["ndjson"]:
                        self.wfile.write((json.dumps(item) + "\n").encode("utf-8"))
                        self.wfile.flush()
                    return
                if "body" in answer:
                    payload = json.dumps(answer["body"]).encode("utf-8")
                    headers.setdefault("content-type", "application/json; charset=utf-8")
                else:
                    payload = str(answer.get("text", "")).encode("utf-8")
                    headers.setdefault("content-type", "text/plain; charset=utf-8")
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PUT = do_DELETE = _serve

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"

    def play(self, exchanges: list[dict[str, Any]], decisions: dict[str, Any]) -> None:
        """Start a new script: the requests so far are forgotten, hanging answers released."""
        self._release.set()
        with self._lock:
            self._release = threading.Event()
            self.script = Script(exchanges, decisions)
            self.requests = []
            self.routes = {}

    def route(self, method: str, path: str, answer: dict[str, Any]) -> None:
        """Answer every ``method path`` request with ``answer`` (after ``play``)."""
        with self._lock:
            self.routes[f"{method} {path}"] = answer

    def close(self) -> None:
        self._release.set()
        self._server.shutdown()
        self._server.server_close()
