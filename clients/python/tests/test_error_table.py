"""The README's error-code table is what GuardClient raises: each code's class, whether it is
retried, and its exit code (packages/client/test/error-table.test.ts reads it for the TypeScript SDK)."""

from __future__ import annotations

import inspect
import json
import re
from http.client import HTTPMessage
from typing import Any, Union

import pytest

import guardagent.errors as errors_module
from guardagent import (
    CheckTimeoutError,
    ExitCode,
    GuardAgentError,
    GuardDeniedError,
    GuardPendingError,
    UnavailableError,
    exit_code_of_error,
)
from guardagent._http import error_from, is_lost
from paths import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")


def table(heading: str, header: str) -> list[list[str]]:
    section = README[README.index(heading) :]
    start = section.index(header)
    block = section[start : section.index("\n\n", start)]
    rows = [line.strip().strip("|").split(" | ") for line in block.splitlines()[2:]]
    return [[cell.strip() for cell in row] for row in rows]


ERROR_ROWS = table("#### Error codes", "| code | HTTP |")
EXIT_ROWS = table("#### Exit codes", "| code | name |")


def headers(values: dict[str, str]) -> HTTPMessage:
    message = HTTPMessage()
    for key, value in values.items():
        message[key] = value
    return message


def sdk_side(code: str) -> GuardAgentError:
    decision: Any = {"decision": "deny", "status": "ok", "reasons": ["no"]}
    if code == "CHECK_TIMEOUT":
        return CheckTimeoutError("idem-x", 1.0)
    if code == "GUARD_DENIED":
        return GuardDeniedError("tool", ["no"], decision)
    if code == "GUARD_PENDING":
        return GuardPendingError("tool", ["held"], {**decision, "decision": "pending", "approval": {"token": "apv_x", "expiresAt": "2030-01-01T00:00:00Z"}})
    if code == "UNAVAILABLE":
        return UnavailableError("cannot reach the gateway", unreachable=True)
    raise AssertionError(f"no way to make {code} without an answer")


def answered(code: str, status: int) -> GuardAgentError:
    if code.startswith("HTTP_"):
        return error_from(status, headers({}), b"<html>teapot</html>", "/v1/checks")
    extra = {"retry-after": "3"} if code in ("QUOTA_EXCEEDED", "STORE_FULL") else {}
    body = json.dumps({"error": {"code": code, "message": f"the gateway's {code}", "details": {"scope": "operate"}}}).encode()
    return error_from(status, headers(extra), body, "/v1/checks")


@pytest.mark.parametrize("row", ERROR_ROWS, ids=[row[0] for row in ERROR_ROWS])
def test_a_row_of_the_error_table(row: list[str]) -> None:
    code_cell, http, _meaning, _ts, python_class, retried, exit_cell = row
    code = code_cell.strip("`")
    statuses = [int(n) for n in re.findall(r"\d{3}", http)]
    if code.startswith("HTTP_"):
        statuses = [418]
    made: list[GuardAgentError] = [answered(code, status) for status in statuses]
    if "none" in http:
        made.append(sdk_side(code))
    assert made, row
    for error in made:
        assert type(error).__name__ == python_class.strip("`"), (code, error)
        assert error.code == (f"HTTP_{statuses[0]}" if code.startswith("HTTP_") else code)
        assert exit_code_of_error(error) == int(exit_cell.split()[0]), (code, error)
        assert is_lost(error) == (retried == "yes"), (code, error)
        if error.status is not None:
            assert error.message == f"the gateway's {code}" or code.startswith("HTTP_")
    if "6 if ≥ 500" in exit_cell:
        assert exit_code_of_error(error_from(500, headers({}), b"", "/v1/checks")) == ExitCode.UNAVAILABLE


def test_every_error_class_is_in_the_table() -> None:
    classes = {
        name
        for name, value in vars(errors_module).items()
        if inspect.isclass(value) and issubclass(value, GuardAgentError) and value is not GuardAgentError
    }
    documented = {row[4].strip("`") for row in ERROR_ROWS}
    assert classes == documented


def test_the_exit_code_table_is_exit_code_row_for_row() -> None:
    assert [(row[1].strip("`"), int(row[0])) for row in EXIT_ROWS] == [(member.name, member.value) for member in ExitCode]


def test_retry_after_an_unreachable_gateway_waits_the_backoff_or_the_answers_retry_after_up_to_10_s() -> None:
    from guardagent._http import retry_after_seconds, retry_delay

    assert [retry_delay(attempt, None) for attempt in (1, 2, 3, 4)] == [0.1, 0.4, 1.6, 1.6]
    assert retry_delay(1, 1.0) == 1.0
    assert retry_delay(3, 0.5) == 1.6
    assert retry_delay(1, 3600.0) == 10.0
    parsed: list[Union[float, None]] = [retry_after_seconds(v) for v in ("7", " 2 ", "0", "-1", "Wed, 21 Oct 2015 07:28:00 GMT", None)]
    assert parsed == [7.0, 2.0, None, None, None, None]

