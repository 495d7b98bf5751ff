"""The SDKs' contract (clients/contract/cases.json) run against GuardClient; the TypeScript SDK
runs the same cases in packages/client/test/contract.test.ts."""

from __future__ import annotations

import json
from typing import Any, Iterator

import pytest

from paths import REPO_ROOT
from guardagent import GuardAgentError, GuardClient, exit_code_of_decision, exit_code_of_error
from scripted_gateway import Recorded, ScriptedGateway

CONTRACT = json.loads((REPO_ROOT / "clients" / "contract" / "cases.json").read_text(encoding="utf-8"))
CASES = CONTRACT["cases"]


@pytest.fixture(scope="module")
def gateway() -> Iterator[ScriptedGateway]:
    server = ScriptedGateway()
    yield server
    server.close()


def contains(actual: Any, expected: Any, where: str = "") -> None:
    """``actual`` holds ``expected``: objects by their keys, lists item by item (same length), the rest equal."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where or 'value'}: expected an object, got {actual!r}"
        for key, item in expected.items():
            assert key in actual, f"{where}.{key}: missing in {actual!r}"
            contains(actual[key], item, f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), f"{where}: expected {len(expected)} items, got {actual!r}"
        for index, item in enumerate(expected):
            contains(actual[index], item, f"{where}[{index}]")
    else:
        assert actual == expected, f"{where}: expected {expected!r}, got {actual!r}"


def client_for(gateway: ScriptedGateway, options: dict[str, Any]) -> GuardClient:
    kwargs: dict[str, Any] = {}
    if "submitAttempts" in options:
        kwargs["submit_attempts"] = options["submitAttempts"]
    if "maxServerWaitMs" in options:
        kwargs["max_server_wait"] = options["maxServerWaitMs"] / 1000
    if "requestTimeoutMs" in options:
        kwargs["request_timeout"] = options["requestTimeoutMs"] / 1000
    return GuardClient(gateway.url, CONTRACT["apiKey"], **kwargs)


def invoke(client: GuardClient, call: dict[str, Any]) -> Any:
    jobs = CONTRACT["jobs"]
    method = call["method"]
    if method == "check":
        return client.check(jobs[call["job"]], timeout=call["timeoutMs"] / 1000 if "timeoutMs" in call else None)
    if method == "submit":
        return client.submit(jobs[call["job"]])
    if method == "result":
        return client.result(call["id"])
    if method == "feedback":
        return client.feedback(call["id"], call["correctLabel"], note=call.get("note"))
    if method == "approve":
        return client.approve(call["token"], call["approver"], tenant=call.get("tenant"))
    if method == "submitBatch":
        return client.submit_batch([jobs[name] for name in call["jobs"]])
    if method == "batchResults":
        return list(client.batch_results(call["id"], start=call.get("from", 0)))
    raise AssertionError(f"the contract names a method this runner does not know: {method}")


def error_fields(error: GuardAgentError) -> dict[str, Any]:
    """The error as the contract names its fields (the TypeScript runner reads the same from its errors)."""
    return {
        "code": error.code,
        "status": error.status,
        "message": error.message,
        "retryAfterSeconds": getattr(error, "retry_after", None),
        "scope": getattr(error, "scope", None),
        "issues": getattr(error, "issues", None),
        "unreachable": bool(getattr(error, "unreachable", False)),
        "jobId": getattr(error, "job_id", None),
    }


def check_requests(case: dict[str, Any], requests: list[Recorded]) -> None:
    expect = case["expect"]
    unexpected = [f"{r.method} {r.path}" for r in requests if r.unexpected]
    assert not unexpected, f"requests past the script: {unexpected}"
    if "requests" in expect:
        assert len(requests) == expect["requests"], [f"{r.method} {r.path}" for r in requests]
    if "minRequests" in expect:
        assert len(requests) >= expect["minRequests"]
    for recorded, exchange in zip(requests, case["exchanges"]):
        want = exchange["request"]
        assert recorded.headers.get("authorization") == f"Bearer {CONTRACT['apiKey']}"
        assert recorded.method == want["method"]
        assert recorded.path == want["path"]
        for key, value in want.get("query", {}).items():
            assert recorded.query.get(key) == value, f"query {key}: {recorded.query}"
        if "bodyIncludes" in want:
            contains(recorded.json(), want["bodyIncludes"], "body")
        if "bodyEquals" in want:
            assert recorded.json() == want["bodyEquals"]
        if "contentType" in want:
            assert recorded.headers.get("content-type", "").split(";")[0] == want["contentType"]
        if "ndjsonLines" in want:
            lines = [json.loads(line) for line in recorded.body.decode("utf-8").splitlines() if line.strip()]
            assert len(lines) == want["ndjsonLines"]
            assert all("idempotencyKey" not in line for line in lines)
    keys = [r.json().get("idempotencyKey") for r in requests if r.method == "POST" and r.path == "/v1/checks"]
    if expect.get("sameIdempotencyKey"):
        assert len(keys) >= 2 and len(set(keys)) == 1, keys
    if "idempotencyKey" in expect:
        assert keys and all(key == expect["idempotencyKey"] for key in keys), keys
    if "idempotencyKeyPrefix" in expect:
        assert keys and all(isinstance(key, str) and key.startswith(expect["idempotencyKeyPrefix"]) for key in keys), keys
    for index, least in enumerate(expect.get("minGapsMs", [])):
        gap = (requests[index + 1].at - requests[index].at) * 1000
        assert gap >= least, f"request {index + 2} came {gap:.0f} ms after request {index + 1}; at least {least} ms expected"


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_contract_case(gateway: ScriptedGateway, case: dict[str, Any]) -> None:
    gateway.play(case["exchanges"], CONTRACT["decisions"])
    client = client_for(gateway, case.get("options", {}))
    expect = case["expect"]
    try:
        if "error" in expect:
            with pytest.raises(GuardAgentError) as raised:
                invoke(client, case["call"])
            fields = error_fields(raised.value)
            for key, value in expect["error"].items():
                assert fields[key] == value, f"error {key}: expected {value!r}, got {fields[key]!r} ({raised.value!r})"
            if "exitCode" in expect:
                assert exit_code_of_error(raised.value) == expect["exitCode"]
        else:
            result = invoke(client, case["call"])
            contains(result, expect["result"], "result")
            if "exitCode" in expect:
                assert exit_code_of_decision(result) == expect["exitCode"]
    finally:
        client.close()
    check_requests(case, gateway.requests)


def test_every_contract_case_has_an_expectation_that_can_fail() -> None:
    for case in CASES:
        assert ("result" in case["expect"]) != ("error" in case["expect"]), case["name"]
        assert "requests" in case["expect"] or "minRequests" in case["expect"], case["name"]
