"""GuardClient against a real deployment: redis-server and `guardagent up` of this checkout, with
examples/policies/refund-desk.yaml (rails only: no LLM) on a tenant of the tests' own."""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from datetime import datetime, timezone
from typing import Any

import pytest

from conftest import Tenant
from guardagent import (
    Decision,
    ExitCode,
    GatewayError,
    GuardClient,
    GuardDeniedError,
    GuardJob,
    GuardPendingError,
    IdempotencyConflictError,
    NotFoundError,
    QuotaExceededError,
    ScopeRequiredError,
    Subject,
    UnauthorizedError,
    UnavailableError,
    ValidationError,
    exit_code_of_decision,
    exit_code_of_error,
)
from lossy_proxy import LossyProxy
from stack import Stack, free_port


def customer() -> Subject:
    """A customer of their own per test: refund-desk allows 5 refunds per subject per hour."""
    ident = f"cust-{uuid.uuid4().hex[:8]}"
    return {"id": ident, "roles": ["support_agent"], "attributes": {"email": f"{ident}@example.com"}}


def tool_call(tool: str, args: dict[str, Any], subject: Subject, **extra: Any) -> GuardJob:
    job: dict[str, Any] = {"policy": "refund-desk", "input": "", "subject": subject, "action": {"kind": "tool_call", "tool": tool, "args": args}}
    job.update(extra)
    return job  # type: ignore[return-value]


def test_allow_deny_and_pending_are_decisions_with_their_exit_codes(tenant: Tenant) -> None:
    me = customer()
    with tenant.client(tenant.check_key) as agent:
        allowed = agent.check(tool_call("read_account", {"user_id": me["id"]}, me))
        assert (allowed["decision"], allowed["status"], allowed["layer"]) == ("allow", "ok", "rails")
        assert exit_code_of_decision(allowed) == ExitCode.OK

        denied = agent.check(tool_call("read_account", {"user_id": "cust-someone-else"}, me))
        assert denied["decision"] == "deny"
        assert any("only the account" in reason for reason in denied["reasons"])
        assert exit_code_of_decision(denied) == ExitCode.DENIED

        held = agent.check(tool_call("issue_refund", {"user_id": me["id"], "amount": 80, "reason": "broken kettle"}, me))
        assert held["decision"] == "pending"
        assert held["rules"] == ["tools.issue_refund.approval.over-50"]
        assert held["approval"]["token"].startswith("apv_")
        expires = datetime.fromisoformat(held["approval"]["expiresAt"].replace("Z", "+00:00"))
        assert expires > datetime.now(timezone.utc)
        assert exit_code_of_decision(held) == ExitCode.PENDING

        # The stored decision reads back the same.
        assert agent.result(denied["id"]) == denied


def test_an_idempotency_key_returns_the_first_decision_and_refuses_another_job(stack: Stack, tenant: Tenant) -> None:
    me = customer()
    key = f"order-{uuid.uuid4().hex}"
    with tenant.client(tenant.check_key) as agent:
        before = stack.count_decisions(tenant.id)
        first = agent.check(tool_call("read_account", {"user_id": me["id"]}, me, idempotencyKey=key))
        again = agent.check(tool_call("read_account", {"user_id": me["id"]}, me, idempotencyKey=key))
        assert again["id"] == first["id"]
        assert stack.count_decisions(tenant.id) == before + 1
        with pytest.raises(IdempotencyConflictError) as conflict:
            agent.check(tool_call("read_account", {"user_id": "cust-other"}, me, idempotencyKey=key))
        assert conflict.value.status == 409
        assert exit_code_of_error(conflict.value) == ExitCode.INVALID


def test_a_check_whose_answer_was_lost_is_retried_and_decided_once(stack: Stack, tenant: Tenant) -> None:
    me = customer()
    proxy = LossyProxy(tenant.url)
    try:
        with GuardClient(proxy.url, tenant.check_key) as agent:
            before = stack.count_decisions(tenant.id)
            proxy.drop_next_checks = 2
            decision = agent.check(tool_call("read_account", {"user_id": me["id"]}, me))
            assert decision["decision"] == "allow"
            # Three posts reached the gateway (two answers lost), one job was queued and decided.
            assert proxy.check_posts == 3
            assert stack.count_decisions(tenant.id) == before + 1
            assert decision["id"].startswith("idem-")

            # submit_attempts=1: the lost answer is the caller's to retry; its own key finds the job.
            proxy.drop_next_checks = 1
            keyed = tool_call("read_account", {"user_id": me["id"]}, me, idempotencyKey=f"k-{uuid.uuid4().hex}")
            with GuardClient(proxy.url, tenant.check_key, submit_attempts=1) as once:
                with pytest.raises(UnavailableError) as lost:
                    once.check(keyed)
                assert lost.value.unreachable
                after_lost = stack.count_decisions(tenant.id)
                assert once.check(keyed)["decision"] == "allow"
                assert stack.count_decisions(tenant.id) == after_lost
    finally:
        proxy.close()


def test_submit_queues_and_result_reads_it_later(tenant: Tenant) -> None:
    me = customer()
    with tenant.client(tenant.check_key) as agent:
        ident = agent.submit(tool_call("read_account", {"user_id": "cust-nobody"}, me))
        deadline = time.monotonic() + 30
        decision = agent.result(ident)
        while decision is None and time.monotonic() < deadline:
            time.sleep(0.05)
            decision = agent.result(ident)
        assert decision is not None and decision["id"] == ident
        assert decision["decision"] == "deny"
        assert agent.result("idem-" + "0" * 40) is None


def test_the_gateways_errors_are_typed_with_their_codes_and_exit_codes(tenant: Tenant) -> None:
    me = customer()
    with tenant.client(tenant.check_key) as agent:
        with pytest.raises(NotFoundError) as unknown:
            agent.check({"policy": "no-such-policy", "input": "x"})
        assert unknown.value.message == "policy 'no-such-policy' not found"
        assert (unknown.value.kind, unknown.value.id) == ("policy", "no-such-policy")
        assert exit_code_of_error(unknown.value) == ExitCode.INVALID

        with pytest.raises(ValidationError) as invalid:
            agent.check({"policy": "refund-desk", "subject": {"roles": "agent"}})  # type: ignore[typeddict-item]
        paths = {issue["path"] for issue in invalid.value.issues}
        assert {"subject.id", "subject.roles"} <= paths
        assert exit_code_of_error(invalid.value) == ExitCode.INVALID

        # An agent's check key may not approve calls, nor send feedback.
        with pytest.raises(ScopeRequiredError) as scope:
            agent.approve("apv_whatever", "ops-lead")
        assert scope.value.scope == "operate"
        with pytest.raises(ScopeRequiredError) as feedback_scope:
            agent.feedback("idem-" + "0" * 40, 1)
        assert feedback_scope.value.scope == "feedback"

        # An inline policy is the operator's act too.
        with pytest.raises(ScopeRequiredError):
            agent.check({"policy": {"id": "inline", "requests": "Deny everything."}, "input": "x"})

    with tenant.client("ga_not-a-key") as stranger:
        with pytest.raises(UnauthorizedError) as unauthorized:
            stranger.check(tool_call("read_account", {"user_id": me["id"]}, me))
        assert unauthorized.value.status == 401
        assert exit_code_of_error(unauthorized.value) == ExitCode.INVALID


def test_an_unreachable_gateway_is_unavailable_after_its_retries() -> None:
    closed = f"http://127.0.0.1:{free_port()}"
    with GuardClient(closed, "ga_any", submit_attempts=3) as agent:
        started = time.monotonic()
        with pytest.raises(UnavailableError) as unreachable:
            agent.check({"policy": "refund-desk", "input": "x"})
        # Two waits between three tries: 100 and 400 ms.
        assert time.monotonic() - started >= 0.45
    assert unreachable.value.unreachable
    assert "cannot reach the gateway" in unreachable.value.message
    assert exit_code_of_error(unreachable.value) == ExitCode.UNAVAILABLE


def test_a_check_over_the_tenants_rate_is_quota_exceeded_with_retry_after(stack: Stack, tenant: Tenant) -> None:
    with GuardClient(stack.url, stack.admin_key) as server_admin:
        slow = server_admin.create_tenant(id=f"py-slow-{uuid.uuid4().hex[:6]}")
        server_admin.set_tenant_quotas(slow["id"], {"checksPerSecond": 1, "checkBurst": 1})
    me = customer()
    with GuardClient(stack.url, slow["apiKey"]) as client:
        client.put_policy(tenant.policy)
        job = tool_call("read_account", {"user_id": me["id"]}, me)
        assert client.check(job)["decision"] == "allow"
        with pytest.raises(QuotaExceededError) as over:
            client.check(job)
        assert over.value.retry_after is not None and over.value.retry_after > 0
        assert over.value.status == 429
        assert exit_code_of_error(over.value) == ExitCode.UNAVAILABLE


def test_approvals_refuse_the_subject_a_used_token_and_an_unknown_one(tenant: Tenant) -> None:
    me = customer()
    with tenant.client(tenant.check_key) as agent, tenant.client(tenant.operate_key) as operator:
        held = agent.check(tool_call("issue_refund", {"user_id": me["id"], "amount": 75, "reason": "late delivery"}, me))
        token = held["approval"]["token"]
        with pytest.raises(GatewayError) as own:
            operator.approve(token, me["id"])
        assert (own.value.code, own.value.status) == ("FORBIDDEN", 403)
        assert operator.approve(token, "ops-lead") == "approved"
        assert operator.approve(token, "ops-lead") == "already-approved"
        retried = agent.check(tool_call("issue_refund", {"user_id": me["id"], "amount": 75, "reason": "late delivery"}, me, context={"approvalToken": token}))
        assert retried["decision"] == "allow"
        with pytest.raises(GatewayError) as used:
            operator.approve(token, "ops-lead")
        assert (used.value.code, used.value.status) == ("CONFLICT", 409)
        with pytest.raises(NotFoundError):
            operator.approve("apv_" + "x" * 40, "ops-lead")


def test_held_calls_are_listed_without_their_tokens_and_rejected_or_approved_by_id(tenant: Tenant) -> None:
    """An operator lists the held refunds, rejects one with a reason (the agent's retry is denied
    with it) and approves the other by its id (the retry runs once)."""
    me = customer()
    refunds: list[float] = []
    with tenant.client(tenant.check_key) as guard, tenant.client(tenant.operate_key) as operator:

        @guard.tool(policy="refund-desk", subject=me)
        def issue_refund(user_id: str, amount: float, reason: str) -> dict[str, float]:
            refunds.append(amount)
            return {"refunded": amount}

        held: list[GuardPendingError] = []
        for amount in (80, 95):
            with pytest.raises(GuardPendingError) as pending:
                issue_refund(me["id"], amount, "broken kettle")
            held.append(pending.value)
        to_reject, to_approve = held
        ids = [hashlib.sha256(call.token.encode()).hexdigest() for call in held]

        # A page of one, oldest first, and the next; no token anywhere, the id is the token's sha256.
        first = operator.list_approvals(subject=me["id"], limit=1)
        assert [view["id"] for view in first["approvals"]] == ids[:1]
        assert first["next"] is not None
        second = operator.list_approvals(subject=me["id"], limit=1, cursor=first["next"])
        assert [view["id"] for view in second["approvals"]] == ids[1:]
        listed = list(operator.iter_approvals(policy="refund-desk", tool="issue_refund", subject=me["id"], page_size=1))
        assert [view["id"] for view in listed] == ids
        assert "apv_" not in json.dumps(listed)
        view = listed[0]
        assert (view["status"], view["policy"], view["tool"], view["subject"]) == ("pending", "refund-desk", "issue_refund", me["id"])
        assert view["args"] == {"user_id": me["id"], "amount": 80, "reason": "broken kettle"}
        assert view["reasons"] == ["refunds over 50 need a supervisor's approval"]
        assert view["rules"] == ["tools.issue_refund.approval.over-50"]
        assert view["expiresInSeconds"] > 0
        # The agent reads its call by the token with its check key; the id takes operate.
        by_token, by_id = guard.approval(to_reject.token), operator.approval(ids[0])
        assert by_token is not None and by_id is not None
        assert (by_token["id"], by_token["status"], by_token["args"]) == (by_id["id"], "pending", view["args"])
        with pytest.raises(ScopeRequiredError):
            guard.approval(ids[0])
        assert operator.approval("0" * 64) is None

        # Rejected with a reason: the retry is denied with it, and the tool does not run.
        assert operator.reject(to_reject.token, "ops-lead", reason="refunds go to the original card only") == "rejected"
        assert operator.reject(ids[0], "ops-lead") == "already-rejected"
        rejected = operator.approval(ids[0])
        assert rejected is not None
        assert (rejected["status"], rejected.get("approver"), rejected.get("reason")) == ("rejected", "ops-lead", "refunds go to the original card only")
        with pytest.raises(GatewayError) as conflict:
            operator.approve(ids[0], "ops-lead")
        assert (conflict.value.code, conflict.value.status) == ("CONFLICT", 409)
        with pytest.raises(GuardDeniedError) as denied:
            to_reject.retry()
        assert not isinstance(denied.value, GuardPendingError)
        assert "the approval was rejected by ops-lead: refunds go to the original card only" in denied.value.reasons
        assert refunds == []

        # Approved by its id (the subject may not): the retry runs, once.
        with pytest.raises(GatewayError) as own:
            operator.approve(ids[1], me["id"], reason="mine")
        assert (own.value.code, own.value.status, own.value.details.get("refusal")) == ("FORBIDDEN", 403, "self-approval")
        assert operator.approve(ids[1], "ops-lead", reason="photo of the kettle received") == "approved"
        assert [view["id"] for view in operator.list_approvals(status="approved", subject=me["id"])["approvals"]] == ids[1:]
        assert operator.list_approvals(subject=me["id"]) == {"approvals": [], "next": None}
        assert to_approve.retry() == {"refunded": 95}
        with pytest.raises(GuardDeniedError) as again:
            to_approve.retry()
        assert "already been used" in " ".join(again.value.reasons)
        assert refunds == [95]
        used = operator.approval(ids[1])
        assert used is not None and used["status"] == "used"
        with pytest.raises(GatewayError) as late:
            operator.reject(ids[1], "ops-lead", reason="too late")
        assert (late.value.code, late.value.status) == ("CONFLICT", 409)
        with pytest.raises(NotFoundError):
            operator.reject("f" * 64, "ops-lead")


def test_check_many_streams_every_decision_of_a_batch(tenant: Tenant) -> None:
    people = [customer() for _ in range(3)]
    jobs = [tool_call("read_account", {"user_id": p["id"]}, p) for p in people]
    jobs += [tool_call("read_account", {"user_id": "cust-other"}, p) for p in people]
    jobs += [tool_call("issue_refund", {"user_id": p["id"], "amount": 60, "reason": "broken lamp"}, p) for p in people[:2]]
    with tenant.client(tenant.check_key) as agent:
        decisions = list(agent.check_many(jobs, timeout=60))
    assert len(decisions) == len(jobs)
    assert len({d["id"] for d in decisions}) == len(jobs)
    kinds = sorted(d["decision"] for d in decisions)
    assert kinds == ["allow"] * 3 + ["deny"] * 3 + ["pending"] * 2
    assert all(d["approval"]["token"].startswith("apv_") for d in decisions if d["decision"] == "pending")


def test_check_many_refuses_a_batch_with_an_invalid_job_naming_it(tenant: Tenant) -> None:
    me = customer()
    jobs: list[Any] = [tool_call("read_account", {"user_id": me["id"]}, me), {"policy": "refund-desk", "subject": {"roles": []}}]
    with tenant.client(tenant.check_key) as agent:
        with pytest.raises(ValidationError) as invalid:
            list(agent.check_many(jobs))
    assert any(issue["path"].startswith("jobs[1].subject") for issue in invalid.value.issues)


def test_feedback_on_a_rails_decision_needs_the_job(tenant: Tenant) -> None:
    me = customer()
    job = tool_call("read_account", {"user_id": "cust-other"}, me)
    with tenant.client(tenant.check_key) as agent, tenant.client(tenant.operate_key) as operator:
        denied: Decision = agent.check(job)
        with pytest.raises(GatewayError) as no_case:
            operator.feedback(denied["id"], 1)
        assert (no_case.value.code, no_case.value.status) == ("FEEDBACK_NOT_APPLICABLE", 409)
        case = {key: value for key, value in job.items() if key in ("input", "subject", "action")}
        # The guard was right (label 1: deny); a rails decision has no plan or code to learn from.
        assert operator.feedback(denied["id"], 1, note="right call", job=case) == {"promoted": False}

