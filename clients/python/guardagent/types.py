"""The shapes the gateway sends and takes, as TypedDicts (plain dicts at run time).

They follow the gateway's OpenAPI document (`GET /openapi.json`) and the zod schemas of
`@guardagent/schemas`: a field marked ``NotRequired`` may be absent from an answer.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict, Union

JsonValue = Union[None, bool, int, float, str, list["JsonValue"], dict[str, "JsonValue"]]
JsonObject = dict[str, JsonValue]
TextOrJson = Union[str, JsonValue]

DecisionKind = Literal["allow", "deny", "pending"]
DecisionStatus = Literal["ok", "guard_error"]
ApiKeyScope = Literal["check", "feedback", "operate", "admin"]


class Subject(TypedDict):
    """Who the agent acts for (the authenticated session)."""

    id: str
    roles: NotRequired[list[str]]
    attributes: NotRequired[JsonObject]


class ToolCallAction(TypedDict):
    kind: Literal["tool_call"]
    tool: str
    args: NotRequired[JsonObject]


class MessageAction(TypedDict):
    kind: Literal["message"]
    role: Literal["user", "assistant", "tool"]
    text: str


Action = Union[ToolCallAction, MessageAction]


class GuardJob(TypedDict):
    """One proposed action to check. ``policy`` is a registered policy's id or a whole policy."""

    policy: Union[str, JsonObject]
    input: NotRequired[TextOrJson]
    output: NotRequired[TextOrJson]
    context: NotRequired[JsonObject]
    subject: NotRequired[Subject]
    action: NotRequired[Action]
    idempotencyKey: NotRequired[str]


class PolicyRef(TypedDict):
    id: str
    version: str
    digest: str
    programDigest: NotRequired[str]


class Redacted(TypedDict, total=False):
    """What the rails redacted; ``args`` are the arguments a tool must run with."""

    input: str
    output: str
    message: str
    args: JsonObject


class Approval(TypedDict):
    """The single-use token of a held call, and when it expires (ISO 8601)."""

    token: str
    expiresAt: str


class DecisionError(TypedDict):
    code: str
    message: str


class Usage(TypedDict):
    calls: int
    promptTokens: int
    completionTokens: int


class ShadowDecision(TypedDict):
    policy: PolicyRef
    decision: Union[DecisionKind, None]
    status: Literal["ok", "guard_error", "undecided"]
    reasons: list[str]
    rules: list[str]
    agrees: Union[bool, None]


class Decision(TypedDict):
    """The guard's answer for one job."""

    id: str
    policy: PolicyRef
    decision: DecisionKind
    status: DecisionStatus
    layer: Literal["rails", "guardagent", "none"]
    mode: Union[Literal["compiled", "per-request"], None]
    reasons: list[str]
    rules: list[str]
    details: JsonObject
    plan: Union[str, None]
    code: Union[str, None]
    attempts: int
    timings: dict[str, float]
    usage: Usage
    traceId: str
    createdAt: str
    error: NotRequired[DecisionError]
    redacted: NotRequired[Redacted]
    shadow: NotRequired[ShadowDecision]
    approval: NotRequired[Approval]


class BatchCreated(TypedDict):
    id: str
    total: int


class BatchStatus(TypedDict):
    id: str
    state: Literal["submitting", "submitted", "aborted", "done"]
    total: int
    queued: int
    done: int
    allowed: int
    denied: int
    pending: int
    errors: int
    createdAt: str


class PolicyPut(TypedDict):
    id: str
    version: str
    digest: str


class FeedbackResult(TypedDict):
    promoted: bool


class ApiKeyView(TypedDict):
    id: str
    scopes: list[ApiKeyScope]
    createdAt: str
    name: NotRequired[str]
    rotatedAt: NotRequired[str]


class IssuedApiKey(ApiKeyView):
    apiKey: str


class TenantCreated(TypedDict):
    id: str
    apiKey: str
    key: ApiKeyView
    createdAt: str


class QuotasView(TypedDict):
    quotas: dict[str, int]
    overrides: dict[str, int]
    inFlight: int
    storedBytes: int

