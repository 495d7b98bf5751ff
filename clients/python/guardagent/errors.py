"""The errors the SDK raises: one class per error code, as in the TypeScript SDK.

Every error is a :class:`GuardAgentError` with a stable ``code`` (the gateway's, for answers
from it) meant for programs, and a message meant for people. The README's error-code table
lists each code, its HTTP status, its class in both SDKs, whether the SDK retries it, and its
exit code; ``tests/test_error_table.py`` keeps this module and that table equal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, TypedDict, Union

if TYPE_CHECKING:
    from .types import Decision


class FieldIssue(TypedDict, total=False):
    """One invalid field: its dotted path (``subject.id``, ``jobs[3].input``) and what is wrong."""

    path: str
    message: str
    line: int
    column: int


class GuardAgentError(Exception):
    """Base class of every error the SDK raises on purpose.

    ``status`` is the HTTP status of the gateway's answer when the error came from one.
    """

    code: str = "GUARD_AGENT_ERROR"

    def __init__(self, message: str, details: Union[dict[str, Any], None] = None, *, status: Union[int, None] = None) -> None:
        super().__init__(message)
        self.message = message
        self.details: dict[str, Any] = dict(details or {})
        self.status = status

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "details": self.details}


class ValidationError(GuardAgentError):
    """A request the gateway (or the SDK) refused as invalid; ``issues`` names each field."""

    code = "VALIDATION_FAILED"

    def __init__(self, message: str, issues: list[FieldIssue], *, status: Union[int, None] = None) -> None:
        super().__init__(message, {"issues": issues}, status=status)
        self.issues = issues


class NotFoundError(GuardAgentError):
    """An id (policy, check, batch, approval token) unknown to this tenant, or a route the gateway lacks."""

    code = "NOT_FOUND"

    def __init__(self, message: str, *, kind: str = "resource", id: str = "", status: Union[int, None] = None) -> None:
        super().__init__(message, {"kind": kind, "id": id}, status=status)
        self.kind = kind
        self.id = id


class UnauthorizedError(GuardAgentError):
    """A missing or wrong API key."""

    code = "UNAUTHORIZED"


class ScopeRequiredError(GuardAgentError):
    """The key is valid but lacks ``scope`` (an agent's ``check`` key approving a call, say)."""

    code = "SCOPE_REQUIRED"

    def __init__(self, message: str, scope: str, *, status: Union[int, None] = None) -> None:
        super().__init__(message, {"scope": scope}, status=status)
        self.scope = scope


class QuotaExceededError(GuardAgentError):
    """Over a tenant quota (check rate, jobs in flight, stored bytes): nothing was queued.

    ``retry_after`` is the answer's ``Retry-After`` in seconds (None when it gave none). A check
    over the rate is not retried by the SDK: the caller decides whether to wait.
    """

    code = "QUOTA_EXCEEDED"

    def __init__(self, message: str, details: Union[dict[str, Any], None] = None, *, retry_after: Union[float, None] = None, status: Union[int, None] = None) -> None:
        super().__init__(message, {**(details or {}), **({"retryAfterSeconds": retry_after} if retry_after is not None else {})}, status=status)
        self.retry_after = retry_after
        limit = self.details.get("limit")
        self.limit: int = limit if isinstance(limit, int) else 0


class StoreFullError(GuardAgentError):
    """Redis is near its maxmemory: nothing was queued; try again after ``retry_after`` seconds."""

    code = "STORE_FULL"

    def __init__(self, message: str, details: Union[dict[str, Any], None] = None, *, retry_after: float = 1.0, status: Union[int, None] = None) -> None:
        super().__init__(message, {**(details or {}), "retryAfterSeconds": retry_after}, status=status)
        self.retry_after = retry_after


class IdempotencyConflictError(GuardAgentError):
    """An idempotency key came back with a different job: use a new key for a new job."""

    code = "IDEMPOTENCY_CONFLICT"


class UnavailableError(GuardAgentError):
    """The gateway could not be reached or answered 502/503/504 (Redis reconnecting, a failover).

    ``unreachable`` is true when no answer came at all (refused or broken connection). A check or
    submit is retried on these (see ``GuardClient``); other calls raise at once.
    """

    code = "UNAVAILABLE"

    def __init__(self, message: str, details: Union[dict[str, Any], None] = None, *, retry_after: Union[float, None] = None, unreachable: bool = False, status: Union[int, None] = None) -> None:
        merged = dict(details or {})
        if retry_after is not None:
            merged["retryAfterSeconds"] = retry_after
        if unreachable:
            merged["unreachable"] = True
        super().__init__(message, merged, status=status)
        self.retry_after = retry_after
        self.unreachable = unreachable


class CheckTimeoutError(GuardAgentError):
    """No decision within the call's timeout. The job goes on: read it later with ``result(job_id)``."""

    code = "CHECK_TIMEOUT"

    def __init__(self, job_id: str, timeout: float) -> None:
        super().__init__(
            f"No decision for job {job_id} within {round(timeout * 1000)} ms; read it later with result('{job_id}')",
            {"jobId": job_id, "timeoutMs": round(timeout * 1000)},
        )
        self.job_id = job_id
        self.timeout = timeout


class DecisionLostError(GuardAgentError):
    """A check was decided, but Redis no longer has its decision (a Redis crash or failover rolled
    it back). What was announced then is the answer; a new check is needed for one now."""

    code = "DECISION_LOST"

    def __init__(self, message: str, id: str, *, status: Union[int, None] = None) -> None:
        super().__init__(message, {"kind": "check", "id": id}, status=status)
        self.id = id


class GatewayError(GuardAgentError):
    """An error answer with no more specific class (``FORBIDDEN``, ``CONFLICT``, ``INTERNAL_ERROR``,
    ``PAYLOAD_TOO_LARGE``, ...): ``code`` and ``status`` are the gateway's."""

    def __init__(self, code: str, message: str, status: int, details: Union[dict[str, Any], None] = None) -> None:
        super().__init__(message, details, status=status)
        self.code = code


class GuardDeniedError(GuardAgentError):
    """A guarded tool's call was not allowed; the tool did not run. ``decision`` is the whole decision."""

    code = "GUARD_DENIED"

    def __init__(self, tool: str, reasons: list[str], decision: Decision) -> None:
        super().__init__(f"Guard denied {tool}: {'; '.join(reasons) or 'no reason given'}", {"tool": tool, "reasons": reasons})
        self.tool = tool
        self.reasons = reasons
        self.decision = decision


class GuardPendingError(GuardDeniedError):
    """A guarded tool's call is held for approval; the tool did not run.

    ``token`` approves exactly this call, once, before ``expires_at`` (ISO 8601): an operator
    approves it (``GuardClient.approve`` with an ``operate`` key, or ``guardagent approve``), then
    ``retry()`` makes the identical call again with the token, and the tool runs once.
    """

    code = "GUARD_PENDING"

    def __init__(self, tool: str, reasons: list[str], decision: Decision, retry: Union[Callable[[], Any], None] = None) -> None:
        super().__init__(tool, reasons, decision)
        approval = decision.get("approval")
        self.token: str = approval["token"] if approval else ""
        self.expires_at: str = approval["expiresAt"] if approval else ""
        self.details.update({"expiresAt": self.expires_at})
        self._retry = retry

    def retry(self) -> Any:
        """The same call again with this error's token (after an operator approved it): the tool's
        result, or for an ``async def`` tool a coroutine to await. A token works once."""
        if self._retry is None:
            raise GuardAgentError("this pending error did not come from a guarded tool; call the tool with_approval(token)")
        return self._retry()

