"""The HTTP layer: one request on its own connection (http.client), the gateway's error answers
as typed errors, and the retry of a check whose answer was lost. Standard library only."""

from __future__ import annotations

import http.client
import json
import math
import socket
import ssl
import threading
import urllib.parse
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence, TypeVar, Union

from ._version import __version__
from .errors import (
    DecisionLostError,
    FieldIssue,
    GatewayError,
    GuardAgentError,
    IdempotencyConflictError,
    NotFoundError,
    QuotaExceededError,
    ScopeRequiredError,
    StoreFullError,
    UnauthorizedError,
    UnavailableError,
    ValidationError,
)

T = TypeVar("T")

#: Waits before the 2nd, 3rd, ... try of a check whose answer was lost (as the TypeScript SDK's).
SUBMIT_RETRY_DELAYS = (0.1, 0.4, 1.6)
#: How many times a check or submit is tried when its answer is lost, unless the caller says otherwise.
DEFAULT_SUBMIT_ATTEMPTS = 4
#: The most a server's Retry-After may hold one retry back, in seconds.
MAX_RETRY_AFTER = 10.0

_MISSING: Any = object()


def quote_segment(value: str) -> str:
    """A path segment escaped as JavaScript's encodeURIComponent escapes it (so both SDKs ask for the same URL)."""
    return urllib.parse.quote(value, safe="-_.!~*'()")


def retry_delay(attempt: int, retry_after: Union[float, None]) -> float:
    """Seconds to wait after try ``attempt`` (1-based) failed: the backoff, or the answer's
    Retry-After when that is longer, but never more than MAX_RETRY_AFTER."""
    backoff = SUBMIT_RETRY_DELAYS[min(attempt - 1, len(SUBMIT_RETRY_DELAYS) - 1)]
    asked = retry_after or 0.0
    return max(backoff, min(asked, MAX_RETRY_AFTER))


def retry_after_seconds(value: Union[str, None]) -> Union[float, None]:
    """A Retry-After header given in seconds; None when absent, zero, or not a number (an HTTP date)."""
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds > 0 else None


def is_lost(error: BaseException) -> bool:
    """Whether an error means a check's answer was lost (the request may have been queued): the
    gateway unreachable, or a 502/503/504 UNAVAILABLE. Not a timeout of the SDK's own, nor a 500."""
    return isinstance(error, UnavailableError) and (error.unreachable or error.status is not None)


@dataclass
class Response:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


def _text(value: Any, fallback: str) -> str:
    return value if isinstance(value, str) else fallback


def error_from(status: int, headers: http.client.HTTPMessage, body: bytes, path: str) -> GuardAgentError:
    """The gateway's error answer as the typed error the TypeScript SDK would raise, with the server's message."""
    parsed: Any = None
    try:
        parsed = json.loads(body) if body else None
    except ValueError:
        parsed = None
    found = parsed.get("error") if isinstance(parsed, dict) else None
    err: dict[str, Any] = found if isinstance(found, dict) else {}
    code = _text(err.get("code"), "")
    message = _text(err.get("message"), f"HTTP {status} from {path}")
    found_details = err.get("details")
    details: dict[str, Any] = found_details if isinstance(found_details, dict) else {}
    retry_after = retry_after_seconds(headers.get("retry-after"))
    if code == "VALIDATION_FAILED" or (not code and status == 400):
        issues: list[FieldIssue] = err["issues"] if isinstance(err.get("issues"), list) else [{"path": "", "message": message}]
        return ValidationError(message, issues, status=status)
    if code == "NOT_FOUND" or (not code and status == 404):
        no_route = message.startswith("no route ")
        kind = "route" if no_route else _text(details.get("kind"), "resource")
        return NotFoundError(message, kind=kind, id=_text(details.get("id"), path), status=status)
    if code == "DECISION_LOST":
        return DecisionLostError(message, _text(details.get("id"), path), status=status)
    if code == "QUOTA_EXCEEDED" or (not code and status == 429):
        return QuotaExceededError(message, details, retry_after=retry_after, status=status)
    if code == "STORE_FULL":
        return StoreFullError(message, details, retry_after=retry_after or 1.0, status=status)
    if code == "IDEMPOTENCY_CONFLICT":
        return IdempotencyConflictError(message, details, status=status)
    if code == "SCOPE_REQUIRED":
        return ScopeRequiredError(message, _text(details.get("scope"), "unknown"), status=status)
    if code == "UNAUTHORIZED" or (not code and status == 401):
        return UnauthorizedError(message, status=status)
    if code == "UNAVAILABLE" or (not code and 502 <= status <= 504):
        # Redis reconnecting or a cluster failing over (details.redis), a gateway restarting, a proxy's 5xx.
        return UnavailableError(message, details, retry_after=retry_after, status=status)
    return GatewayError(code or f"HTTP_{status}", message, status, details)


class HttpLayer:
    """Requests to one gateway, each on a connection of its own (so one client serves many threads).

    ``close()`` shuts the sockets of requests in flight (they raise UnavailableError) and makes
    later requests raise it at once.
    """

    def __init__(self, base_url: str, api_key: str, *, request_timeout: float) -> None:
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValidationError(f"Invalid base_url: {base_url!r} is not an http(s) URL", [{"path": "base_url", "message": "not an http(s) URL"}])
        self.base_url = base_url.rstrip("/")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")
        self._api_key = api_key
        self._request_timeout = request_timeout
        self._lock = threading.Lock()
        self._open: set[http.client.HTTPConnection] = set()
        self._closed = threading.Event()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def pause(self, seconds: float) -> None:
        """Sleep, unless the client is closed meanwhile."""
        if seconds > 0:
            self._closed.wait(seconds)

    def close(self) -> None:
        self._closed.set()
        with self._lock:
            open_now = list(self._open)
            self._open.clear()
        for connection in open_now:
            sock = connection.sock
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            connection.close()

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        if self._https:
            return http.client.HTTPSConnection(self._host, self._port, timeout=timeout, context=ssl.create_default_context())
        return http.client.HTTPConnection(self._host, self._port, timeout=timeout)

    def _unreachable(self, error: BaseException) -> UnavailableError:
        if self.closed:
            return UnavailableError("GuardClient is closed")
        return UnavailableError(f"cannot reach the gateway at {self.base_url}: {error or type(error).__name__}", unreachable=True)

    def open(
        self,
        method: str,
        path: str,
        *,
        json_body: Any = _MISSING,
        raw: Union[str, None] = None,
        content_type: Union[str, None] = None,
        wait: float = 0.0,
        allow: Sequence[int] = (),
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        """Send a request and read its status line and headers; the caller reads the body and calls ``release``.
        An answer that is neither 2xx nor in ``allow`` raises its typed error."""
        if self.closed:
            raise UnavailableError("GuardClient is closed")
        limit = self._request_timeout + wait
        headers = {
            "authorization": f"Bearer {self._api_key}",
            "accept": "application/json",
            "user-agent": f"guardagent-python/{__version__}",
        }
        body: Union[bytes, None] = None
        if json_body is not _MISSING:
            body = json.dumps(json_body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
            headers["content-type"] = "application/json"
        elif raw is not None:
            body = raw.encode("utf-8")
            headers["content-type"] = content_type or "application/json"
        connection = self._connection(limit)
        with self._lock:
            self._open.add(connection)
        try:
            connection.request(method, self._prefix + path, body=body, headers=headers)
            response = connection.getresponse()
        except TimeoutError:
            self.release(connection)
            if self.closed:
                raise UnavailableError("GuardClient is closed") from None
            raise UnavailableError(f"no answer from {self.base_url} within {round(limit * 1000)} ms") from None
        except (OSError, http.client.HTTPException) as error:
            self.release(connection)
            raise self._unreachable(error) from error
        if 200 <= response.status < 300 or response.status in allow:
            return connection, response
        try:
            data = response.read()
        except (OSError, http.client.HTTPException):
            data = b""
        finally:
            self.release(connection)
        raise error_from(response.status, response.headers, data, path)

    def release(self, connection: http.client.HTTPConnection) -> None:
        with self._lock:
            self._open.discard(connection)
        connection.close()

    def request(self, method: str, path: str, **options: Any) -> Response:
        """One request, its whole body read."""
        connection, response = self.open(method, path, **options)
        try:
            data = response.read()
        except TimeoutError:
            raise UnavailableError(f"no answer from {self.base_url} within {round((self._request_timeout + options.get('wait', 0.0)) * 1000)} ms") from None
        except (OSError, http.client.HTTPException) as error:
            raise self._unreachable(error) from error
        finally:
            self.release(connection)
        return Response(response.status, response.headers, data)

    def lines(self, method: str, path: str, **options: Any) -> Iterator[bytes]:
        """The answer's body line by line, as it arrives (NDJSON)."""
        connection, response = self.open(method, path, **options)
        try:
            while True:
                try:
                    line = response.readline()
                except TimeoutError:
                    raise UnavailableError(f"{path}: no more of the answer within {round((self._request_timeout + options.get('wait', 0.0)) * 1000)} ms") from None
                except (OSError, http.client.HTTPException) as error:
                    raise self._unreachable(error) from error
                if not line:
                    return
                if line.strip():
                    yield line
        finally:
            self.release(connection)

    def with_submit_retries(self, write: Callable[[], T], *, attempts: int) -> T:
        """Run ``write`` again after an error that lost its answer (see ``is_lost``), waiting the
        backoff or the answer's Retry-After. Only for writes that are idempotent by construction:
        a check carries its idempotency key, so a retry joins the job the first try may have queued."""
        tries = max(1, attempts)
        attempt = 1
        while True:
            try:
                return write()
            except UnavailableError as error:
                if not is_lost(error) or attempt >= tries or self.closed:
                    raise
                self.pause(retry_delay(attempt, error.retry_after))
                attempt += 1

