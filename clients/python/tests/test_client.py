"""GuardClient's own behaviour, against a scripted gateway (no deployment needed)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any, Iterator

import pytest

from guardagent import (
    AsyncGuardClient,
    CheckTimeoutError,
    GuardAgentError,
    GuardClient,
    GuardPendingError,
    UnauthorizedError,
    UnavailableError,
    ValidationError,
)
from scripted_gateway import ScriptedGateway
from test_contract import CONTRACT

DECISIONS = CONTRACT["decisions"]
BATCH = "6f1d0c2e-8a4b-4c3d-9e2f-0a1b2c3d4e5f"
JOB: Any = {"policy": "refund-desk", "input": "x"}


@pytest.fixture()
def gateway() -> Iterator[ScriptedGateway]:
    server = ScriptedGateway()
    yield server
    server.close()


def status(state: str, done: int, total: int = 3) -> dict[str, Any]:
    return {"status": 200, "body": {"id": BATCH, "state": state, "total": total, "queued": total - done, "done": done, "allowed": done, "denied": 0, "pending": 0, "errors": 0, "createdAt": "2026-11-27T10:00:00.000Z"}}


def test_check_many_reads_results_as_they_come_until_all_are_in(gateway: ScriptedGateway) -> None:
    gateway.play(
        [
            {"answer": {"status": 202, "body": {"id": BATCH, "total": 3}}},
            {"answer": status("submitted", 2)},
            {"answer": {"status": 200, "ndjson": [{"$decision": "allow"}, {"$decision": "deny"}]}},
            {"answer": status("done", 3)},
            {"answer": {"status": 200, "ndjson": [{"$decision": "pending"}]}},
        ],
        DECISIONS,
    )
    with GuardClient(gateway.url, "k") as client:
        decisions = [d["decision"] for d in client.check_many([JOB, JOB, JOB])]
    assert decisions == ["allow", "deny", "pending"]
    asked = [(r.method, r.path, r.query.get("from")) for r in gateway.requests]
    assert asked == [
        ("POST", "/v1/batches", None),
        ("GET", f"/v1/batches/{BATCH}", None),
        ("GET", f"/v1/batches/{BATCH}/results", "0"),
        ("GET", f"/v1/batches/{BATCH}", None),
        ("GET", f"/v1/batches/{BATCH}/results", "2"),
    ]
    lines = [json.loads(line) for line in gateway.requests[0].body.decode().splitlines()]
    assert lines == [JOB, JOB, JOB]


def test_check_many_gives_up_at_its_timeout_naming_the_batch(gateway: ScriptedGateway) -> None:
    gateway.play([{"answer": {"status": 202, "body": {"id": BATCH, "total": 3}}}], DECISIONS)
    gateway.route("GET", f"/v1/batches/{BATCH}", status("submitted", 0))
    gateway.route("GET", f"/v1/batches/{BATCH}/results", {"status": 200, "ndjson": []})
    with GuardClient(gateway.url, "k") as client:
        started = time.monotonic()
        with pytest.raises(CheckTimeoutError) as timed_out:
            list(client.check_many([JOB, JOB, JOB], timeout=0.3))
        assert 0.3 <= time.monotonic() - started < 5
    assert timed_out.value.job_id == BATCH


def test_async_check_many_streams_the_same(gateway: ScriptedGateway) -> None:
    gateway.play(
        [
            {"answer": {"status": 202, "body": {"id": BATCH, "total": 2}}},
            {"answer": status("done", 2, total=2)},
            {"answer": {"status": 200, "ndjson": [{"$decision": "deny"}, {"$decision": "allow"}]}},
        ],
        DECISIONS,
    )

    async def run() -> list[str]:
        async with AsyncGuardClient(gateway.url, "k") as client:
            return [d["decision"] async for d in client.check_many([JOB, JOB])]

    assert asyncio.run(run()) == ["deny", "allow"]


def test_close_ends_a_request_in_flight_at_once(gateway: ScriptedGateway) -> None:
    gateway.play([{"answer": {"hang": True}}], DECISIONS)
    client = GuardClient(gateway.url, "k")
    failure: list[BaseException] = []

    def call() -> None:
        try:
            client.check(JOB, timeout=30)
        except BaseException as error:  # noqa: BLE001 - the test reads what was raised
            failure.append(error)

    worker = threading.Thread(target=call)
    worker.start()
    deadline = time.monotonic() + 10
    while not gateway.requests and time.monotonic() < deadline:
        time.sleep(0.01)
    assert gateway.requests, "the check never reached the gateway"
    started = time.monotonic()
    client.close()
    worker.join(10)
    assert not worker.is_alive()
    assert time.monotonic() - started < 2
    assert isinstance(failure[0], UnavailableError) and "closed" in failure[0].message
    with pytest.raises(UnavailableError):
        client.result("idem-x")
    assert len(gateway.requests) == 1


def test_a_client_needs_a_key_and_an_http_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GUARDAGENT_API_KEY", raising=False)
    with pytest.raises(UnauthorizedError):
        GuardClient("http://127.0.0.1:8080")
    monkeypatch.setenv("GUARDAGENT_API_KEY", "from-env")
    monkeypatch.setenv("GUARDAGENT_URL", "http://gateway.example:9000/")
    assert GuardClient().base_url == "http://gateway.example:9000"
    with pytest.raises(ValidationError):
        GuardClient("ftp://gateway.example", "k")


def test_a_base_url_with_a_path_prefixes_every_request(gateway: ScriptedGateway) -> None:
    gateway.play([{"answer": {"status": 200, "body": {"$decision": "allow"}}}], DECISIONS)
    with GuardClient(f"{gateway.url}/guard/", "k") as client:
        client.check(JOB)
    assert gateway.requests[0].path == "/guard/v1/checks"


def test_a_job_without_a_policy_is_refused_before_sending(gateway: ScriptedGateway) -> None:
    gateway.play([], DECISIONS)
    with GuardClient(gateway.url, "k") as client:
        with pytest.raises(ValidationError) as invalid:
            client.check({"input": "x"})  # type: ignore[typeddict-item]
    assert invalid.value.issues == [{"path": "policy", "message": "a policy id or a policy object is required"}]
    assert gateway.requests == []


def test_a_guarded_tool_called_with_arguments_it_does_not_take_is_refused_before_a_check(gateway: ScriptedGateway) -> None:
    gateway.play([], DECISIONS)
    with GuardClient(gateway.url, "k") as client:

        @client.tool(policy="refund-desk")
        def read_account(user_id: str) -> str:
            return user_id

        with pytest.raises(ValidationError):
            read_account("a", "b")  # type: ignore[call-arg]
    assert gateway.requests == []


def test_the_guarded_call_is_the_tool_call_action_with_its_arguments_by_name(gateway: ScriptedGateway) -> None:
    gateway.play([{"answer": {"status": 200, "body": {"$decision": "pending"}}}], DECISIONS)
    with GuardClient(gateway.url, "k") as client:

        @client.tool(policy="refund-desk", subject={"id": "cust-42"}, context={"channel": "chat"})
        def issue_refund(user_id: str, amount: float, *notes: str, reason: str = "none") -> None:
            raise AssertionError("a held call must not run")

        with pytest.raises(GuardPendingError) as held:
            issue_refund("cust-42", 80, "first", "second")
    sent = gateway.requests[0].json()
    args = {"user_id": "cust-42", "amount": 80, "notes": ["first", "second"], "reason": "none"}
    assert sent["action"] == {"kind": "tool_call", "tool": "issue_refund", "args": args}
    assert sent["output"] == {"tool": "issue_refund", "args": args}
    assert sent["subject"] == {"id": "cust-42"}
    assert sent["context"] == {"channel": "chat"}
    assert sent["idempotencyKey"].startswith("sdk-")
    assert held.value.token == DECISIONS["pending"]["approval"]["token"]


def test_a_retry_with_the_token_sends_it_in_the_context_and_runs_with_the_redacted_arguments(gateway: ScriptedGateway) -> None:
    allowed = {**DECISIONS["allow"], "redacted": {"args": {"user_id": "cust-42", "amount": 80, "notes": ["[REDACTED:card]"], "reason": "none"}}}
    gateway.play([{"answer": {"status": 200, "body": {"$decision": "pending"}}}, {"answer": {"status": 200, "body": allowed}}], DECISIONS)
    ran: list[tuple[Any, ...]] = []
    with GuardClient(gateway.url, "k") as client:

        @client.tool(policy="refund-desk", context={"channel": "chat"})
        def issue_refund(user_id: str, amount: float, *notes: str, reason: str = "none") -> str:
            ran.append((user_id, amount, notes, reason))
            return "refunded"

        with pytest.raises(GuardPendingError) as held:
            issue_refund("cust-42", 80, "4111 1111 1111 1111")
        assert held.value.retry() == "refunded"
    assert ran == [("cust-42", 80, ("[REDACTED:card]",), "none")]
    retried = gateway.requests[1].json()
    assert retried["context"] == {"channel": "chat", "approvalToken": DECISIONS["pending"]["approval"]["token"]}
    assert retried["idempotencyKey"] != gateway.requests[0].json()["idempotencyKey"]


def test_a_decision_whose_redacted_arguments_lack_a_parameter_does_not_run_the_tool(gateway: ScriptedGateway) -> None:
    allowed = {**DECISIONS["allow"], "redacted": {"args": {"amount": 80}}}
    gateway.play([{"answer": {"status": 200, "body": allowed}}], DECISIONS)
    with GuardClient(gateway.url, "k") as client:

        @client.tool(policy="refund-desk")
        def issue_refund(user_id: str, amount: float) -> None:
            raise AssertionError("must not run")

        with pytest.raises(GuardAgentError) as refused:
            issue_refund("cust-42", 80)
    assert "user_id" in refused.value.message


def test_a_pending_error_not_raised_by_a_guarded_tool_cannot_retry() -> None:
    error = GuardPendingError("tool", ["held"], DECISIONS["pending"])
    assert error.token == DECISIONS["pending"]["approval"]["token"]
    assert error.expires_at == DECISIONS["pending"]["approval"]["expiresAt"]
    with pytest.raises(GuardAgentError):
        error.retry()


def test_the_async_client_has_every_method_of_the_blocking_one_with_the_same_parameters() -> None:
    import inspect

    def methods(cls: type) -> dict[str, list[str]]:
        return {
            name: list(inspect.signature(fn).parameters)
            for name, fn in inspect.getmembers(cls, inspect.isfunction)
            if not name.startswith("_") and name != "close"
        }

    assert methods(AsyncGuardClient) == methods(GuardClient)
