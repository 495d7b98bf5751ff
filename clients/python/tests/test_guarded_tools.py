"""Guarded tools (guard_tool / client.tool) against a real deployment with refund-desk.yaml."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from conftest import Tenant
from guardagent import (
    AsyncGuardClient,
    Decision,
    ExitCode,
    GuardDeniedError,
    GuardPendingError,
    JsonObject,
    Subject,
    ValidationError,
    exit_code_of_error,
    guard_tool,
)


def customer() -> Subject:
    ident = f"cust-{uuid.uuid4().hex[:8]}"
    return {"id": ident, "roles": ["support_agent"], "attributes": {"email": f"{ident}@example.com"}}


def test_an_allowed_call_runs_with_its_arguments_and_a_denied_one_does_not_run(tenant: Tenant) -> None:
    me = customer()
    ran: list[str] = []
    seen: list[tuple[str, JsonObject]] = []
    with tenant.client(tenant.check_key) as guard:

        @guard.tool(policy="refund-desk", subject=me, input="What is my balance?", on_decision=lambda d, args: seen.append((d["decision"], args)))
        def read_account(user_id: str) -> dict[str, Any]:
            ran.append(user_id)
            return {"user_id": user_id, "balance": 120}

        assert read_account.tool_name == "read_account"
        assert read_account.__name__ == "read_account"
        assert read_account(me["id"]) == {"user_id": me["id"], "balance": 120}
        with pytest.raises(GuardDeniedError) as denied:
            read_account(user_id="cust-someone-else")
    assert not isinstance(denied.value, GuardPendingError)
    assert ran == [me["id"]]
    assert any("only the account" in reason for reason in denied.value.reasons)
    assert denied.value.decision["decision"] == "deny"
    assert exit_code_of_error(denied.value) == ExitCode.DENIED
    assert seen == [("allow", {"user_id": me["id"]}), ("deny", {"user_id": "cust-someone-else"})]


def test_a_held_call_raises_its_token_and_once_approved_its_retry_runs_once(tenant: Tenant) -> None:
    me = customer()
    refunds: list[tuple[str, float, str]] = []
    with tenant.client(tenant.check_key) as guard, tenant.client(tenant.operate_key) as operator:

        @guard.tool(policy="refund-desk", subject=me, input=lambda args: f"Refund {args['amount']} please")
        def issue_refund(user_id: str, amount: float, reason: str = "no reason given") -> dict[str, Any]:
            refunds.append((user_id, amount, reason))
            return {"refunded": amount}

        with pytest.raises(GuardPendingError) as held:
            issue_refund(me["id"], 80, reason="broken kettle")
        pending = held.value
        assert refunds == []
        assert pending.token.startswith("apv_")
        assert pending.expires_at == pending.decision["approval"]["expiresAt"]
        assert pending.reasons == ["refunds over 50 need a supervisor's approval"]
        assert exit_code_of_error(pending) == ExitCode.PENDING

        # Not approved yet: the retry is refused and the tool does not run (the token stays good).
        with pytest.raises(GuardDeniedError) as early:
            pending.retry()
        assert "not been approved yet" in " ".join(early.value.reasons)
        assert refunds == []

        assert operator.approve(pending.token, "ops-lead") == "approved"
        # The token approves exactly that call: other arguments are refused.
        with pytest.raises(GuardDeniedError) as other_call:
            issue_refund.with_approval(pending.token)(me["id"], 90, reason="broken kettle")
        assert "different call" in " ".join(other_call.value.reasons)
        assert refunds == []

        assert pending.retry() == {"refunded": 80}
        assert refunds == [(me["id"], 80, "broken kettle")]

        # Once: the token is used.
        with pytest.raises(GuardDeniedError) as again:
            issue_refund.with_approval(pending.token)(me["id"], 80, reason="broken kettle")
        assert "already been used" in " ".join(again.value.reasons)
        assert refunds == [(me["id"], 80, "broken kettle")]


def test_a_call_whose_arguments_the_policy_redacts_runs_with_the_redacted_ones(tenant: Tenant) -> None:
    me = customer()
    received: list[dict[str, Any]] = []
    with tenant.client(tenant.check_key) as guard:

        @guard.tool(policy="refund-desk", subject=me)
        def issue_refund(user_id: str, amount: float, reason: str) -> str:
            received.append({"user_id": user_id, "amount": amount, "reason": reason})
            return "ok"

        assert issue_refund(me["id"], 20, "charged twice on card 4111 1111 1111 1111") == "ok"
    assert received == [{"user_id": me["id"], "amount": 20, "reason": "charged twice on card [REDACTED:card]"}]


def test_keyword_arguments_collected_by_kwargs_are_guarded_and_redacted_too(tenant: Tenant) -> None:
    me = customer()
    received: list[dict[str, Any]] = []
    with tenant.client(tenant.check_key) as guard:

        @guard.tool(policy="refund-desk", subject=me, tool_name="issue_refund", exclude=["session"])
        def refund(session: object, user_id: str, **rest: Any) -> None:
            received.append({"session": session, "user_id": user_id, **rest})

        marker = object()
        refund(marker, me["id"], amount=10, reason="ssn 078-05-1120 on the form")
    assert received == [{"session": marker, "user_id": me["id"], "amount": 10, "reason": "ssn [REDACTED:ssn] on the form"}]


def test_arguments_that_are_not_json_are_refused_before_any_check(tenant: Tenant) -> None:
    with tenant.client(tenant.check_key) as guard:

        @guard.tool(policy="refund-desk", subject=customer())
        def read_account(user_id: object) -> None:
            raise AssertionError("must not run")

        with pytest.raises(ValidationError) as invalid:
            read_account(user_id=object())
    assert invalid.value.issues[0]["path"] == "args.user_id"


def test_an_async_tool_with_the_blocking_client_stays_a_coroutine_function(tenant: Tenant) -> None:
    me = customer()
    with tenant.client(tenant.check_key) as guard:

        @guard.tool(policy="refund-desk", subject=me)
        async def read_account(user_id: str) -> str:
            await asyncio.sleep(0)
            return f"account {user_id}"

        assert asyncio.iscoroutinefunction(read_account)
        assert asyncio.run(read_account(me["id"])) == f"account {me['id']}"
        with pytest.raises(GuardDeniedError):
            asyncio.run(read_account("cust-other"))


def test_the_async_client_checks_concurrently_and_guards_tools(tenant: Tenant) -> None:
    me = customer()
    refunds: list[float] = []

    async def scenario() -> None:
        async with AsyncGuardClient(tenant.url, tenant.check_key) as guard, AsyncGuardClient(tenant.url, tenant.operate_key) as operator:
            jobs = [
                {"policy": "refund-desk", "subject": me, "action": {"kind": "tool_call", "tool": "read_account", "args": {"user_id": uid}}}
                for uid in (me["id"], "cust-a", me["id"], "cust-b", me["id"])
            ]
            decisions: list[Decision] = await asyncio.gather(*(guard.check(job) for job in jobs))  # type: ignore[arg-type]
            assert [d["decision"] for d in decisions] == ["allow", "deny", "allow", "deny", "allow"]

            @guard.tool(policy="refund-desk", subject=me)
            def issue_refund(user_id: str, amount: float, reason: str) -> float:
                refunds.append(amount)
                return amount

            with pytest.raises(GuardPendingError) as held:
                await issue_refund(me["id"], 300, "lost parcel")
            assert refunds == []
            assert await operator.approve(held.value.token, "ops-lead") == "approved"
            assert await held.value.retry() == 300
            assert refunds == [300]

            batch = [job for job in jobs[:2]]
            streamed = [d["decision"] async for d in guard.check_many(batch)]  # type: ignore[arg-type]
            assert sorted(streamed) == ["allow", "deny"]

    asyncio.run(scenario())


def test_guard_tool_is_the_same_decorator_as_client_tool(tenant: Tenant) -> None:
    me = customer()
    with tenant.client(tenant.check_key) as guard:
        read_account = guard_tool(guard, policy="refund-desk", subject=me, tool_name="read_account")(lambda user_id: user_id.upper())
        assert read_account(me["id"]) == me["id"].upper()
        with pytest.raises(GuardDeniedError):
            read_account("cust-other")
