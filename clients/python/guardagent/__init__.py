"""GuardAgent for Python: check an agent's actions with a GuardAgent gateway, and guard its tools.

    from guardagent import GuardClient, GuardPendingError

    guard = GuardClient("http://localhost:8080", api_key)   # or GUARDAGENT_URL / GUARDAGENT_API_KEY

    @guard.tool(policy="refund-desk", subject={"id": "cust-42", "roles": ["support_agent"]})
    def issue_refund(user_id: str, amount: float, reason: str) -> dict: ...

Standard library only; Python 3.11+. The behaviour is the TypeScript SDK's (``@guardagent/client``
HttpTransport): the same retries, idempotency keys, errors and exit codes, kept equal by the
shared contract in ``clients/contract/cases.json``.
"""

from ._version import __version__
from .aio import AsyncGuardClient
from .client import APPROVALS_PATH, APPROVALS_REJECT_PATH, GuardClient
from .errors import (
    CheckTimeoutError,
    DecisionLostError,
    FieldIssue,
    GatewayError,
    GuardAgentError,
    GuardDeniedError,
    GuardPendingError,
    IdempotencyConflictError,
    NotFoundError,
    QuotaExceededError,
    ScopeRequiredError,
    StoreFullError,
    UnauthorizedError,
    UnavailableError,
    ValidationError,
)
from .exit_codes import ExitCode, exit_code_of_decision, exit_code_of_error, is_transient_error_code
from .guard import AsyncToolDecorator, GuardedTool, ToolDecorator, guard_tool
from .types import (
    Action,
    Approval,
    BatchCreated,
    BatchStatus,
    Decision,
    GuardJob,
    JsonObject,
    JsonValue,
    MessageAction,
    Redacted,
    Subject,
    ToolCallAction,
)

__all__ = [
    "__version__",
    "APPROVALS_PATH",
    "APPROVALS_REJECT_PATH",
    "Action",
    "Approval",
    "AsyncGuardClient",
    "AsyncToolDecorator",
    "BatchCreated",
    "BatchStatus",
    "CheckTimeoutError",
    "Decision",
    "DecisionLostError",
    "ExitCode",
    "FieldIssue",
    "GatewayError",
    "GuardAgentError",
    "GuardClient",
    "GuardDeniedError",
    "GuardJob",
    "GuardPendingError",
    "GuardedTool",
    "IdempotencyConflictError",
    "JsonObject",
    "JsonValue",
    "MessageAction",
    "NotFoundError",
    "QuotaExceededError",
    "Redacted",
    "ScopeRequiredError",
    "StoreFullError",
    "Subject",
    "ToolCallAction",
    "ToolDecorator",
    "UnauthorizedError",
    "UnavailableError",
    "ValidationError",
    "exit_code_of_decision",
    "exit_code_of_error",
    "guard_tool",
    "is_transient_error_code",
]
