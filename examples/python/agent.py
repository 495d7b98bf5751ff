#!/usr/bin/env python3
"""A customer-service agent whose tools are guarded by GuardAgent (the Python SDK, clients/python).

Every tool call the agent proposes is checked against examples/policies/refund-desk.yaml before
the tool runs: the call runs on `allow`; on `deny` the tool never runs and the agent gets
GuardDeniedError with the reasons; on `pending` (a refund over 50 waits for a supervisor) it gets
GuardPendingError with the approval token. With `--operator-key` (a key with scope `operate`) the
example then plays the supervisor: it approves the token and the agent retries the identical call,
which runs once. The "LLM" is a script of proposed calls so the example runs offline; in a real
agent the same guarded functions are the tools you give the model.

    export GUARDAGENT_URL=http://localhost:8080 GUARDAGENT_API_KEY=<a check key> OPERATOR_KEY=<an operate key>
    python3 examples/python/agent.py --operator-key "$OPERATOR_KEY"

The policy must be stored first (`guardagent policy put examples/policies/refund-desk.yaml`).
Exit status by the README's exit-code table: 0 when the script ran, 2 or 6 when the gateway
refused or could not be reached.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Union

try:
    import guardagent
except ImportError:  # not installed: use the SDK of this checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))
    import guardagent

from guardagent import GuardAgentError, GuardClient, GuardDeniedError, GuardPendingError, Subject, exit_code_of_error

#: The signed-in customer's session: who the agent acts for.
SESSION: Subject = {"id": "cust-42", "roles": ["support_agent"], "attributes": {"email": "cust-42@example.com"}}

#: What a (scripted) model proposes for each user message: (user message, tool, arguments).
SCRIPT: list[tuple[str, str, dict[str, Any]]] = [
    ("What is my balance?", "read_account", {"user_id": "cust-42"}),
    ("And what is Bob's (cust-7) balance?", "read_account", {"user_id": "cust-7"}),
    ("Refund 20 for the broken mug.", "issue_refund", {"user_id": "cust-42", "amount": 20, "reason": "broken mug"}),
    ("Refund 400 for the TV.", "issue_refund", {"user_id": "cust-42", "amount": 400, "reason": "TV arrived broken"}),
    ("Email me the receipt.", "send_email", {"to": "cust-42@example.com", "subject": "Receipt", "body": "Your refund is on its way."}),
    ("Email the customer list to me.", "send_email", {"to": "attacker@example.net", "subject": "list", "body": "cust-7, cust-42"}),
]


@dataclass
class Outcome:
    user: str
    tool: str
    outcome: str  # ran, denied, held, approved-and-ran
    detail: str


def run_agent(guard: GuardClient, session: Subject = SESSION, operator: Union[GuardClient, None] = None, policy: str = "refund-desk") -> tuple[list[Outcome], dict[str, Any]]:
    """Run the scripted conversation with guarded tools. Returns what happened to each proposed
    call, and the shop's state (balances, outbox) so a caller can see which tools really ran."""
    accounts = {session["id"]: {"name": "Ada", "balance": 120}, "cust-7": {"name": "Bob", "balance": 3000}}
    outbox: list[dict[str, str]] = []
    user_message = ""
    tool = guard.tool
    common: dict[str, Any] = {"policy": policy, "subject": session, "input": lambda _args: user_message}

    @tool(**common)
    def read_account(user_id: str) -> Union[dict[str, Any], None]:
        return accounts.get(user_id)

    @tool(**common)
    def issue_refund(user_id: str, amount: float, reason: str) -> dict[str, Any]:
        accounts[user_id]["balance"] += amount
        return {"refunded": amount, "balance": accounts[user_id]["balance"]}

    @tool(**common)
    def send_email(to: str, subject: str, body: str) -> dict[str, Any]:
        outbox.append({"to": to, "subject": subject})
        return {"sent": True}

    tools: dict[str, Callable[..., Any]] = {"read_account": read_account, "issue_refund": issue_refund, "send_email": send_email}
    outcomes: list[Outcome] = []
    for user, name, args in SCRIPT:
        user_message = user.replace("cust-42", session["id"])
        call_args = {key: value.replace("cust-42", session["id"]) if isinstance(value, str) else value for key, value in args.items()}
        try:
            result = tools[name](**call_args)
            outcomes.append(Outcome(user, name, "ran", json.dumps(result)))
        except GuardPendingError as held:
            # In a real agent: tell the user the call waits for a supervisor, and retry once approved.
            if operator is None:
                outcomes.append(Outcome(user, name, "held", f"{'; '.join(held.reasons)} (approval token {held.token[:12]}..., expires {held.expires_at})"))
                continue
            operator.approve(held.token, "supervisor")
            result = held.retry()
            outcomes.append(Outcome(user, name, "approved-and-ran", json.dumps(result)))
        except GuardDeniedError as denied:
            # Hand the reasons back to the model as the tool's result, so it can explain or choose again.
            outcomes.append(Outcome(user, name, "denied", "; ".join(denied.reasons)))
    return outcomes, {"accounts": accounts, "outbox": outbox}


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("GUARDAGENT_URL", "http://localhost:8080"))
    parser.add_argument("--key", default=os.environ.get("GUARDAGENT_API_KEY"), help="the agent's key (scope check)")
    parser.add_argument("--operator-key", help="a key with scope operate: approve held calls and retry them")
    opts = parser.parse_args()
    if not opts.key:
        parser.error("set GUARDAGENT_API_KEY or pass --key")
    try:
        with GuardClient(opts.url, opts.key) as guard:
            operator = GuardClient(opts.url, opts.operator_key) if opts.operator_key else None
            try:
                outcomes, _ = run_agent(guard, operator=operator)
            finally:
                if operator is not None:
                    operator.close()
    except GuardAgentError as error:
        print(f"error: {error.code}: {error.message}", file=sys.stderr)
        return exit_code_of_error(error)
    marks = {"ran": "ran    ", "denied": "DENIED ", "held": "HELD   ", "approved-and-ran": "APPROVED, ran"}
    for o in outcomes:
        print(f"{marks[o.outcome]} {o.tool}\n        user: {o.user}\n        {o.detail}")
    return guardagent.ExitCode.OK


if __name__ == "__main__":
    sys.exit(main())
