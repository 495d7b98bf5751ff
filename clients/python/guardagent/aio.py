"""AsyncGuardClient: the GuardClient for asyncio programs.

Each call runs the blocking GuardClient's in a worker thread (``asyncio.to_thread``), so the
behaviour (idempotency keys, retries, backoff, errors) is exactly the blocking client's and the
event loop is never blocked. What that costs: one thread of the default executor per call in
flight (its size bounds how many checks run at once: ``min(32, cores + 4)`` unless you set the
loop's default executor), and a cancelled call stops waiting at once while its request runs on in
its thread until answered or timed out (a check's idempotency key makes that harmless).
"""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Callable, Iterable, Iterator, Literal, Mapping, TypeVar, Union

from ._http import DEFAULT_SUBMIT_ATTEMPTS
from .client import DEFAULT_BATCH_TIMEOUT, GuardClient
from .guard import AsyncToolDecorator, PerCall, guard_tool
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

T = TypeVar("T")
_DONE: Any = object()


def _next(iterator: Iterator[T]) -> Any:
    return next(iterator, _DONE)


async def _iterate(make: Callable[[], Iterator[T]]) -> AsyncIterator[T]:
    """A blocking iterator's items, each fetched in a worker thread."""
    iterator = await asyncio.to_thread(make)
    try:
        while True:
            item = await asyncio.to_thread(_next, iterator)
            if item is _DONE:
                return
            yield item
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            await asyncio.to_thread(close)


class AsyncGuardClient:
    """The gateway's HTTP API for asyncio; the same methods as GuardClient, as coroutines (see the module docs)."""

    def __init__(
        self,
        base_url: Union[str, None] = None,
        api_key: Union[str, None] = None,
        *,
        request_timeout: float = 30.0,
        max_server_wait: float = 60.0,
        submit_attempts: int = DEFAULT_SUBMIT_ATTEMPTS,
    ) -> None:
        self.sync = GuardClient(base_url, api_key, request_timeout=request_timeout, max_server_wait=max_server_wait, submit_attempts=submit_attempts)
        self.base_url = self.sync.base_url

    async def close(self) -> None:
        """Abort requests in flight; later calls raise UnavailableError."""
        self.sync.close()

    async def __aenter__(self) -> AsyncGuardClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    async def submit(self, job: GuardJob) -> str:
        return await asyncio.to_thread(self.sync.submit, job)

    async def check(self, job: GuardJob, *, timeout: Union[float, None] = None) -> Decision:
        return await asyncio.to_thread(self.sync.check, job, timeout=timeout)

    async def result(self, id: str) -> Union[Decision, None]:
        return await asyncio.to_thread(self.sync.result, id)

    async def feedback(self, id: str, correct_label: Literal[0, 1], *, note: Union[str, None] = None, job: Union[JsonObject, None] = None) -> FeedbackResult:
        return await asyncio.to_thread(self.sync.feedback, id, correct_label, note=note, job=job)

    async def submit_batch(self, jobs: Iterable[GuardJob]) -> BatchCreated:
        return await asyncio.to_thread(self.sync.submit_batch, list(jobs))

    async def batch(self, id: str) -> BatchStatus:
        return await asyncio.to_thread(self.sync.batch, id)

    def batch_results(self, id: str, *, start: int = 0) -> AsyncIterator[Decision]:
        return _iterate(lambda: self.sync.batch_results(id, start=start))

    def check_many(self, jobs: Iterable[GuardJob], *, timeout: float = DEFAULT_BATCH_TIMEOUT) -> AsyncIterator[Decision]:
        """Check many jobs as one batch; yields each decision as it is made (see GuardClient.check_many)."""
        queued = list(jobs)
        return _iterate(lambda: self.sync.check_many(queued, timeout=timeout))

    async def put_policy(self, policy: JsonObject) -> PolicyPut:
        return await asyncio.to_thread(self.sync.put_policy, policy)

    async def compile(self, policy: Union[str, JsonObject], *, timeout: Union[float, None] = None) -> JsonObject:
        return await asyncio.to_thread(self.sync.compile, policy, timeout=timeout)

    async def list_policies(self) -> list[JsonObject]:
        return await asyncio.to_thread(self.sync.list_policies)

    async def get_policy(self, id: str) -> JsonObject:
        return await asyncio.to_thread(self.sync.get_policy, id)

    async def delete_policy(self, id: str) -> None:
        await asyncio.to_thread(self.sync.delete_policy, id)

    async def policy_versions(self, id: str) -> list[JsonObject]:
        return await asyncio.to_thread(self.sync.policy_versions, id)

    async def approve(self, token: str, approver: str, *, tenant: Union[str, None] = None) -> Literal["approved", "already-approved"]:
        return await asyncio.to_thread(self.sync.approve, token, approver, tenant=tenant)

    async def reject(self, token: str, approver: str, *, reason: Union[str, None] = None, tenant: Union[str, None] = None) -> JsonObject:
        """Needs a gateway with the approvals API (see GuardClient.reject)."""
        return await asyncio.to_thread(self.sync.reject, token, approver, reason=reason, tenant=tenant)

    async def list_approvals(self, *, status: str = "pending", tenant: Union[str, None] = None) -> list[JsonObject]:
        """Needs a gateway with the approvals API (see GuardClient.list_approvals)."""
        return await asyncio.to_thread(self.sync.list_approvals, status=status, tenant=tenant)

    async def create_tenant(self, *, id: Union[str, None] = None, name: Union[str, None] = None, scopes: Union[list[ApiKeyScope], None] = None) -> TenantCreated:
        return await asyncio.to_thread(self.sync.create_tenant, id=id, name=name, scopes=scopes)

    async def list_tenants(self, *, limit: int = 100, offset: int = 0) -> JsonObject:
        return await asyncio.to_thread(self.sync.list_tenants, limit=limit, offset=offset)

    async def tenant_quotas(self, id: Union[str, None] = None) -> QuotasView:
        return await asyncio.to_thread(self.sync.tenant_quotas, id)

    async def set_tenant_quotas(self, id: str, overrides: Mapping[str, int]) -> QuotasView:
        return await asyncio.to_thread(self.sync.set_tenant_quotas, id, overrides)

    async def list_keys(self) -> list[ApiKeyView]:
        return await asyncio.to_thread(self.sync.list_keys)

    async def create_key(self, scopes: list[ApiKeyScope], *, name: Union[str, None] = None) -> IssuedApiKey:
        return await asyncio.to_thread(self.sync.create_key, scopes, name=name)

    async def rotate_key(self, id: str, *, overlap_seconds: Union[int, None] = None) -> IssuedApiKey:
        return await asyncio.to_thread(self.sync.rotate_key, id, overlap_seconds=overlap_seconds)

    async def revoke_key(self, id: str) -> None:
        await asyncio.to_thread(self.sync.revoke_key, id)

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
    ) -> AsyncToolDecorator:
        """A decorator that guards a tool (see guardagent.guard_tool); the guarded tool is a coroutine function."""
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
