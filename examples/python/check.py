#!/usr/bin/env python3
"""Check one proposed tool call with GuardAgent's Python SDK (clients/python; standard library only).

    export GUARDAGENT_URL=http://localhost:8080 GUARDAGENT_API_KEY=ga_...
    python3 examples/python/check.py --tool issue_refund \
        --args '{"user_id": "cust-42", "amount": 20, "reason": "broken mug"}' \
        --subject '{"id": "cust-42", "roles": ["support_agent"]}'

Exit status, as in the README's exit-code table (the same as `guardagent check`): 0 allow,
1 deny, 4 pending (held for approval), 3 the guard could not decide (guard_error), 2 the request
was refused (invalid, unknown policy, bad key), 6 the gateway could not be reached or did not
answer in time (try again). The policy (default `refund-desk`, examples/policies/refund-desk.yaml)
must be registered first, e.g. `--put-policy policy.json` with the policy as JSON.

Runs from this checkout as it is; elsewhere `pip install ./clients/python` first.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

try:
    import guardagent
except ImportError:  # not installed: use the SDK of this checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "clients" / "python"))
    import guardagent

from guardagent import GuardAgentError, GuardClient, ValidationError, exit_code_of_decision, exit_code_of_error


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("GUARDAGENT_URL", "http://localhost:8080"))
    parser.add_argument("--key", default=os.environ.get("GUARDAGENT_API_KEY"))
    parser.add_argument("--policy", default="refund-desk")
    parser.add_argument("--put-policy", metavar="FILE", help="register this policy (JSON) first")
    parser.add_argument("--tool", default="read_account")
    parser.add_argument("--args", default='{"user_id": "cust-42"}', help="the tool's arguments (JSON object)")
    parser.add_argument("--subject", default='{"id": "cust-42", "roles": ["support_agent"]}', help="who the agent acts for (JSON)")
    parser.add_argument("--input", default="", help="the user's request")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for the decision")
    opts = parser.parse_args()
    if not opts.key:
        parser.error("set GUARDAGENT_API_KEY or pass --key")

    try:
        with GuardClient(opts.url, opts.key) as guard:
            if opts.put_policy:
                with open(opts.put_policy, encoding="utf-8") as f:
                    opts.policy = guard.put_policy(json.load(f))["id"]
            decision = guard.check(
                {
                    "policy": opts.policy,
                    "input": opts.input,
                    "subject": json.loads(opts.subject),
                    "action": {"kind": "tool_call", "tool": opts.tool, "args": json.loads(opts.args)},
                },
                timeout=opts.timeout,
            )
    except GuardAgentError as error:
        status = f"{error.status} " if error.status is not None else ""
        print(f"error: {status}{error.code}: {error.message}", file=sys.stderr)
        if isinstance(error, ValidationError):
            for issue in error.issues:
                print(f"  {issue.get('path') or '(body)'}: {issue.get('message')}", file=sys.stderr)
        return exit_code_of_error(error)
    except ValueError as error:  # --args or --subject that is not JSON, or a policy file that is not
        print(f"error: {error}", file=sys.stderr)
        return guardagent.ExitCode.INVALID
    except OSError as error:  # an unreadable policy file
        print(f"error: {error}", file=sys.stderr)
        return guardagent.ExitCode.INVALID

    print(json.dumps({k: decision.get(k) for k in ("id", "decision", "status", "layer", "reasons", "approval")}, indent=2))
    return exit_code_of_decision(decision)


if __name__ == "__main__":
    sys.exit(main())
