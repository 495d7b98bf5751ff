"""GuardClient against a real deployment: redis-server and `guardagent up` of this checkout, with
examples/policies/refund-desk.yaml (rails only: no LLM) on a tenant of the tests' own."""

from __future__ import annotations

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
    GuardJob,
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


def test_list_approvals_and_reject_say_when_the_gateway_has_no_such_routes(tenant: Tenant) -> None:
    """This gateway predates the approvals API (listing, rejection): the calls say so, by name."""
    with tenant.client(tenant.operate_key) as operator:
        with pytest.raises(NotFoundError) as listing:
            operator.list_approvals()
        assert listing.value.kind == "route"
        assert "no route GET /v1/approvals" in listing.value.message
        assert "approvals API" in listing.value.message
        with pytest.raises(NotFoundError) as rejecting:
            operator.reject("apv_whatever", "ops-lead", reason="not today")
        assert rejecting.value.kind == "route"


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

