"""The exit codes of ``guardagent``, of programs built on the SDKs and of the examples.

One table, the README's ("Exit codes"); ``EXIT_CODES`` in ``@guardagent/client`` is the same, and
tests in both languages compare each with the README row for row.
"""

from __future__ import annotations

import socket
from enum import IntEnum
from typing import Any, Mapping

from .errors import GuardAgentError, GuardDeniedError


class ExitCode(IntEnum):
    OK = 0
    DENIED = 1
    INVALID = 2
    GUARD_ERROR = 3
    PENDING = 4
    FLIPPED = 5
    UNAVAILABLE = 6
    INTERNAL = 70
    INTERRUPTED = 130


# Error codes after which running again later may work (the rest need the call, the file or the
# configuration fixed). The same set as isTransientErrorCode in @guardagent/client.
TRANSIENT_CODES = frozenset(
    {"UNAVAILABLE", "CHECK_TIMEOUT", "STORE_FULL", "QUOTA_EXCEEDED", "REQUEST_TIMEOUT", "BATCH_STALLED", "REPLAY_STALLED", "LLM_REQUEST_FAILED"}
)


def is_transient_error_code(code: str) -> bool:
    """Whether running again later may work after an error with this code."""
    return code in TRANSIENT_CODES


def exit_code_of_decision(decision: Mapping[str, Any]) -> ExitCode:
    """allow 0, deny 1, pending 4; a guard that could not decide (and did not let the call through) 3."""
    if decision.get("decision") == "allow":
        return ExitCode.OK
    if decision.get("status") == "guard_error":
        return ExitCode.GUARD_ERROR
    return ExitCode.PENDING if decision.get("decision") == "pending" else ExitCode.DENIED


def exit_code_of_error(error: BaseException) -> ExitCode:
    """The exit code for an error that ended a program.

    A guarded tool's refusal exits as its decision (deny 1, pending 4, guard_error 3); a transient
    error (unreachable, a timeout, a quota, a 5xx) 6; any other GuardAgent error 2 (fix the call);
    Ctrl-C 130; anything else 70 (a bug).
    """
    if isinstance(error, GuardDeniedError):
        return exit_code_of_decision(error.decision)
    if isinstance(error, GuardAgentError):
        if is_transient_error_code(error.code):
            return ExitCode.UNAVAILABLE
        if error.status is not None and error.status >= 500:
            return ExitCode.UNAVAILABLE
        return ExitCode.INVALID
    if isinstance(error, KeyboardInterrupt):
        return ExitCode.INTERRUPTED
    if isinstance(error, (ConnectionError, TimeoutError, socket.gaierror)):
        return ExitCode.UNAVAILABLE
    return ExitCode.INTERNAL
