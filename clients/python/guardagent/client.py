"""GuardClient: the gateway's HTTP API from Python, with the TypeScript HttpTransport's behaviour."""

from __future__ import annotations

import json
import os
import time
import uuid
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Literal, Mapping, TypeVar, Union, cast

from ._http import DEFAULT_SUBMIT_ATTEMPTS, HttpLayer, Response, error_from, quote_segment
from .errors import CheckTimeoutError, NotFoundError, UnauthorizedError, ValidationError
from .types import (
    ApiKeyScope,
    ApiKeyView,
    BatchCreated,
    BatchStatus,
    Decision,
    FeedbackResult,
    GuardJob,
    IssuedApiKey,
    JsonObject,
    PolicyPut,
    QuotasView,
    Subject,
    TenantCreated,
    TextOrJson,
)

if TYPE_CHECKING:
    from .guard import PerCall, ToolDecorator

T = TypeVar("T")

DEFAULT_CHECK_TIMEOUT = 30.0
DEFAULT_COMPILE_TIMEOUT = 600.0
DEFAULT_BATCH_TIMEOUT = 600.0

#: The approvals listing and rejection routes. They are being added to the gateway (they are not
#: on every gateway yet): ``list_approvals`` and ``reject`` need a gateway that serves them.
APPROVALS_PATH = "/v1/approvals"
APPROVALS_REJECT_PATH = "/v1/approvals/reject"


def with_idempotency_key(job: GuardJob) -> GuardJob:
    """The job with an idempotency key: its own, or a fresh random one. The gateway derives the job
    id from it, so a retried request joins the job an earlier try queued instead of queueing another."""
    if job.get("idempotencyKey"):
        return job
    keyed = dict(job)
    keyed["idempotencyKey"] = f"sdk-{uuid.uuid4()}"
    return cast(GuardJob, keyed)


def _require_job(job: Any, what: str = "guard job") -> None:
    """The checks the SDK can make before sending (the gateway validates every field and answers 400 naming each)."""
    if not isinstance(job, Mapping):
        raise ValidationError(f"Invalid {what}: expected an object", [{"path": "", "message": "expected an object"}])
    policy = job.get("policy")
    if not isinstance(policy, (str, Mapping)):
        raise ValidationError(f"Invalid {what}: policy: a policy id or a policy object is required", [{"path": "policy", "message": "a policy id or a policy object is required"}])


class GuardClient:
    """The gateway's HTTP API (``/v1/...``), blocking; thread-safe (each request has its own connection).

    Behaves as ``HttpTransport`` of ``@guardagent/client`` (the shared contract in
    ``clients/contract/cases.json`` runs against both):

    * ``check`` sends the job with an idempotency key (the job's own, else a random ``sdk-…``),
      asks the gateway to hold the request up to the timeout (at most ``max_server_wait``), then
      polls ``GET /v1/checks/{id}`` until the timeout (``CheckTimeoutError``).
    * A check or submit whose answer was lost (connection refused or broken, 502/503/504) is tried
      again, ``submit_attempts`` times in all, after 0.1, 0.4 and 1.6 s, or the answer's
      ``Retry-After`` when longer (at most 10 s), under the same idempotency key: a retry joins the
      job the first try may have queued. Nothing else is retried (not a 429, not a 500).
    * Error answers raise the typed errors of :mod:`guardagent.errors` with the server's message.

    Times are in seconds. ``base_url`` defaults to ``GUARDAGENT_URL`` (else
    ``http://127.0.0.1:8080``), ``api_key`` to ``GUARDAGENT_API_KEY``.
    """

    def __init__(
        self,
        base_url: Union[str, None] = None,
        api_key: Union[str, None] = None,
        *,
        request_timeout: float = 30.0,
        max_server_wait: float = 60.0,
        submit_attempts: int = DEFAULT_SUBMIT_ATTEMPTS,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get("GUARDAGENT_API_KEY")
        if not key:
            raise UnauthorizedError("GuardClient needs an api_key (or GUARDAGENT_API_KEY)")
        url = base_url if base_url is not None else os.environ.get("GUARDAGENT_URL", "http://127.0.0.1:8080")
        self._http = HttpLayer(url, key, request_timeout=request_timeout)
        self.base_url = self._http.base_url
        self.max_server_wait = max_server_wait
        self.submit_attempts = submit_attempts

    # -- life cycle ---------------------------------------------------------------------------

    def close(self) -> None:
        """Abort requests in flight; later calls raise UnavailableError."""
        self._http.close()

    def __enter__(self) -> GuardClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- checks -------------------------------------------------------------------------------

    def submit(self, job: GuardJob) -> str:
        """Queue a job without waiting; returns its id (read the decision with ``result``)."""
        _require_job(job)
        keyed = with_idempotency_key(job)
        response = self._submit_request("/v1/checks?wait=0", keyed, 0.0)
        return str(response.json()["id"])

    def check(self, job: GuardJob, *, timeout: Union[float, None] = None) -> Decision:
        """Check one job and wait for its decision (allow, deny or pending: not errors here).

        Raises CheckTimeoutError when no decision came within ``timeout`` seconds (default 30);
        the job goes on, and ``result(error.job_id)`` reads it later."""
        _require_job(job)
        limit = DEFAULT_CHECK_TIMEOUT if timeout is None else timeout
        deadline = time.monotonic() + limit
        wait_ms = self._server_wait_ms(limit)
        response = self._submit_request(f"/v1/checks?wait={wait_ms}", with_idempotency_key(job), wait_ms / 1000)
        body = response.json()
        if response.status == 200:
            return cast(Decision, body)
        check_id = str(body["id"])
        decision = self._poll_until(deadline, lambda: self.result(check_id))
        if decision is None:
            raise CheckTimeoutError(check_id, limit)
        return decision

    def result(self, id: str) -> Union[Decision, None]:
        """The stored decision, or None while there is none (still running, unknown or expired).
        Raises DecisionLostError when the check was decided and Redis has since lost the decision."""
        response = self._http.request("GET", f"/v1/checks/{quote_segment(id)}", allow=(202, 404))
        if response.status == 404:
            body = response.json() if response.body else None
            code = body.get("error", {}).get("code") if isinstance(body, dict) else None
            if code == "DECISION_LOST":
                raise error_from(404, response.headers, response.body, f"/v1/checks/{id}")
            return None
        if response.status != 200:
            return None
        return cast(Decision, response.json())

    def feedback(self, id: str, correct_label: Literal[0, 1], *, note: Union[str, None] = None, job: Union[JsonObject, None] = None) -> FeedbackResult:
        """Say whether a decision was right (1: it should have been denied, 0: allowed). Decisions of
        the rails or of a compiled program keep no case: send the ``job`` as submitted with them."""
        body: JsonObject = {"correctLabel": correct_label}
        if note is not None:
            body["note"] = note
        if job is not None:
            body["job"] = job
        response = self._http.request("POST", f"/v1/checks/{quote_segment(id)}/feedback", json_body=body, wait=30.0)
        return {"promoted": bool(response.json().get("promoted"))}

    # -- batches ------------------------------------------------------------------------------

    def submit_batch(self, jobs: Iterable[GuardJob]) -> BatchCreated:
        """Queue many jobs as one batch (sent as NDJSON). Batch jobs carry no idempotency key."""
        lines = []
        for index, job in enumerate(jobs):
            _require_job(job, f"guard job jobs[{index}]")
            lines.append(json.dumps(job, separators=(",", ":"), ensure_ascii=False) + "\n")
        response = self._http.request("POST", "/v1/batches", raw="".join(lines), content_type="application/x-ndjson", wait=60.0)
        return cast(BatchCreated, response.json())

    def batch(self, id: str) -> BatchStatus:
        """A batch's progress."""
        return cast(BatchStatus, self._http.request("GET", f"/v1/batches/{quote_segment(id)}").json())

    def batch_results(self, id: str, *, start: int = 0) -> Iterator[Decision]:
        """The batch's decisions made so far, in the order they were made, read as a stream;
        ``start`` skips ones already read."""
        for line in self._http.lines("GET", f"/v1/batches/{quote_segment(id)}/results?from={start}", wait=300.0):
            yield cast(Decision, json.loads(line))

    def check_many(self, jobs: Iterable[GuardJob], *, timeout: float = DEFAULT_BATCH_TIMEOUT) -> Iterator[Decision]:
        """Check many jobs as one batch and yield each decision as it is made (in that order, not
        the jobs' order: each decision has its own ``id``; match jobs by their content if you must).

        The batch is queued first (a job the gateway refuses raises ValidationError naming
        ``jobs[N]``); then the results are read as they come until all are in. Raises
        CheckTimeoutError (``job_id`` is the batch id) when they are not all in within ``timeout``."""
        created = self.submit_batch(jobs)
        batch_id, total = created["id"], created["total"]
        deadline = time.monotonic() + timeout
        read = 0
        delay = 0.05
        while True:
            status = self.batch(batch_id)
            got = 0
            for decision in self.batch_results(batch_id, start=read):
                read += 1
                got += 1
                yield decision
            if read >= total or (status["state"] == "done" and got == 0):
                return
            if got:
                delay = 0.05
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise CheckTimeoutError(batch_id, timeout)
            self._http.pause(min(delay, remaining))
            delay = min(delay * 2, 1.0)

    # -- policies -----------------------------------------------------------------------------

    def put_policy(self, policy: JsonObject) -> PolicyPut:
        """Store a policy (a parsed policy file as a dict); the gateway checks it and answers 400
        naming each mistake (ValidationError ``issues``)."""
        policy_id = policy.get("id") if isinstance(policy, Mapping) else None
        if not isinstance(policy_id, str) or not policy_id:
            raise ValidationError("Invalid policy: id: required", [{"path": "id", "message": "required"}])
        return cast(PolicyPut, self._http.request("PUT", f"/v1/policies/{quote_segment(policy_id)}", json_body=policy).json())

    def compile(self, policy: Union[str, JsonObject], *, timeout: Union[float, None] = None) -> JsonObject:
        """Compile and verify a policy's program (a stored id, or a policy stored first); waits for
        it to be promoted or to fail (``status``), or raises CheckTimeoutError."""
        policy_id = policy if isinstance(policy, str) else self.put_policy(policy)["id"]
        limit = DEFAULT_COMPILE_TIMEOUT if timeout is None else timeout
        deadline = time.monotonic() + limit
        wait_ms = self._server_wait_ms(limit)
        response = self._http.request("POST", f"/v1/policies/{quote_segment(policy_id)}/compile?wait={wait_ms}", wait=wait_ms / 1000)
        if response.status == 200:
            return cast(JsonObject, response.json())
        compile_id = str(response.json()["id"])

        def read() -> Union[JsonObject, None]:
            answer = self._http.request("GET", f"/v1/compiles/{quote_segment(compile_id)}", allow=(202,))
            return cast(JsonObject, answer.json()) if answer.status == 200 else None

        result = self._poll_until(deadline, read)
        if result is None:
            raise CheckTimeoutError(compile_id, limit)
        return result

    def list_policies(self) -> list[JsonObject]:
        return cast(list[JsonObject], self._http.request("GET", "/v1/policies").json()["policies"])

    def get_policy(self, id: str) -> JsonObject:
        """A policy's current version, its verified program (if one is promoted) and its shadow (if any)."""
        return cast(JsonObject, self._http.request("GET", f"/v1/policies/{quote_segment(id)}").json())

    def delete_policy(self, id: str) -> None:
        self._http.request("DELETE", f"/v1/policies/{quote_segment(id)}")

    def policy_versions(self, id: str) -> list[JsonObject]:
        """The versions put under a policy id, newest first (the last 100)."""
        return cast(list[JsonObject], self._http.request("GET", f"/v1/policies/{quote_segment(id)}/versions").json()["versions"])

    # -- approvals ----------------------------------------------------------------------------

    def approve(self, token: str, approver: str, *, tenant: Union[str, None] = None) -> Literal["approved", "already-approved"]:
        """Approve a held tool call by its token (a key with scope ``operate``; the server admin key
        names the ``tenant``). A used or expired token is GatewayError CONFLICT, the call's own
        subject as approver GatewayError FORBIDDEN, an unknown token NotFoundError."""
        body: JsonObject = {"token": token, "approver": approver}
        if tenant is not None:
            body["tenant"] = tenant
        result = self._http.request("POST", APPROVALS_PATH, json_body=body).json()["result"]
        return cast(Literal["approved", "already-approved"], result)

    def reject(self, token: str, approver: str, *, reason: Union[str, None] = None, tenant: Union[str, None] = None) -> JsonObject:
        """Refuse a held tool call by its token (scope ``operate``): its retry is then denied.

        Needs a gateway with the approvals API (``POST /v1/approvals/reject``); an older gateway
        raises NotFoundError (``kind == "route"``) saying so."""
        body: JsonObject = {"token": token, "approver": approver}
        if reason is not None:
            body["reason"] = reason
        if tenant is not None:
            body["tenant"] = tenant
        response = self._approvals_route(lambda: self._http.request("POST", APPROVALS_REJECT_PATH, json_body=body))
        return cast(JsonObject, response.json())

    def list_approvals(self, *, status: str = "pending", tenant: Union[str, None] = None) -> list[JsonObject]:
        """The tenant's held tool calls (``GET /v1/approvals?status=pending``, scope ``operate``).

        Needs a gateway with the approvals API; an older gateway raises NotFoundError
        (``kind == "route"``) saying so."""
        query = f"status={quote_segment(status)}" + (f"&tenant={quote_segment(tenant)}" if tenant is not None else "")
        body = self._approvals_route(lambda: self._http.request("GET", f"{APPROVALS_PATH}?{query}")).json()
        if isinstance(body, dict) and isinstance(body.get("approvals"), list):
            return cast(list[JsonObject], body["approvals"])
        return cast(list[JsonObject], body if isinstance(body, list) else [])

    def _approvals_route(self, send: Callable[[], Response]) -> Response:
        try:
            return send()
        except NotFoundError as error:
            if error.kind != "route":
                raise
            raise NotFoundError(
                f"{error.message}: this gateway has no approvals listing or rejection yet (they come with the approvals API); approve with approve()",
                kind="route",
                id=error.id,
                status=error.status,
            ) from error

    # -- tenants and keys ---------------------------------------------------------------------

    def create_tenant(self, *, id: Union[str, None] = None, name: Union[str, None] = None, scopes: Union[list[ApiKeyScope], None] = None) -> TenantCreated:
        """Create a tenant and its first key (the server admin key); the key is in this answer only."""
        body: JsonObject = {}
        if id is not None:
            body["id"] = id
        if name is not None:
            body["name"] = name
        if scopes is not None:
            body["scopes"] = list(scopes)
        return cast(TenantCreated, self._http.request("POST", "/v1/tenants", json_body=body).json())

    def list_tenants(self, *, limit: int = 100, offset: int = 0) -> JsonObject:
        return cast(JsonObject, self._http.request("GET", f"/v1/tenants?limit={limit}&offset={offset}").json())

    def tenant_quotas(self, id: Union[str, None] = None) -> QuotasView:
        """A tenant's quotas (the server admin key), or without an id the caller's own."""
        path = "/v1/quotas" if id is None else f"/v1/tenants/{quote_segment(id)}/quotas"
        return cast(QuotasView, self._http.request("GET", path).json())

    def set_tenant_quotas(self, id: str, overrides: Mapping[str, int]) -> QuotasView:
        """Replace a tenant's quota overrides (the server admin key); quotas left out take the defaults."""
        return cast(QuotasView, self._http.request("PUT", f"/v1/tenants/{quote_segment(id)}/quotas", json_body=dict(overrides)).json())

    def list_keys(self) -> list[ApiKeyView]:
        return cast(list[ApiKeyView], self._http.request("GET", "/v1/keys").json()["keys"])

    def create_key(self, scopes: list[ApiKeyScope], *, name: Union[str, None] = None) -> IssuedApiKey:
        """Issue a key (give agents ``["check"]``); the secret is in this answer only."""
        body: JsonObject = {"scopes": list(scopes)}
        if name is not None:
            body["name"] = name
        return cast(IssuedApiKey, self._http.request("POST", "/v1/keys", json_body=body).json())

    def rotate_key(self, id: str, *, overlap_seconds: Union[int, None] = None) -> IssuedApiKey:
        body: JsonObject = {} if overlap_seconds is None else {"overlapSeconds": overlap_seconds}
        return cast(IssuedApiKey, self._http.request("POST", f"/v1/keys/{quote_segment(id)}/rotate", json_body=body).json())

    def revoke_key(self, id: str) -> None:
        self._http.request("DELETE", f"/v1/keys/{quote_segment(id)}")

    # -- guarded tools ------------------------------------------------------------------------

    def tool(
        self,
        *,
        policy: Union[str, JsonObject],
        tool_name: Union[str, None] = None,
        subject: Union[PerCall[Subject], None] = None,
        input: Union[PerCall[TextOrJson], None] = None,
        output: Union[PerCall[TextOrJson], None] = None,
        context: Union[PerCall[JsonObject], None] = None,
        timeout: Union[float, None] = None,
        on_decision: Union[Callable[[Decision, JsonObject], None], None] = None,
        exclude: Iterable[str] = (),
    ) -> ToolDecorator:
        """A decorator that guards a function used as an agent's tool: see :func:`guardagent.guard_tool`."""
        from .guard import guard_tool

        return guard_tool(
            self,
            policy=policy,
            tool_name=tool_name,
            subject=subject,
            input=input,
            output=output,
            context=context,
            timeout=timeout,
            on_decision=on_decision,
            exclude=exclude,
        )

    # -- internals ----------------------------------------------------------------------------

    def _server_wait_ms(self, timeout: float) -> int:
        return max(1, round(min(timeout, self.max_server_wait) * 1000))

    def _submit_request(self, path: str, job: GuardJob, wait: float) -> Response:
        """POST a check, trying again when its answer was lost: the job's idempotency key makes the
        next try join the job the first may have queued rather than queue a second one."""
        return self._http.with_submit_retries(lambda: self._http.request("POST", path, json_body=job, wait=wait), attempts=self.submit_attempts)

    def _poll_until(self, deadline: float, read: Callable[[], Union[T, None]]) -> Union[T, None]:
        delay = 0.05
        while time.monotonic() < deadline:
            found = read()
            if found is not None:
                return found
            self._http.pause(min(delay, max(0.0, deadline - time.monotonic())))
            delay = min(delay * 2, 1.0)
        return read()


__all__ = ["GuardClient", "APPROVALS_PATH", "APPROVALS_REJECT_PATH", "with_idempotency_key"]
