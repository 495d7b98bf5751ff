#!/usr/bin/env python3
"""Check one proposed tool call with the GuardAgent HTTP API (standard library only).

    export GUARDAGENT_URL=http://localhost:8080 GUARDAGENT_API_KEY=ga_...
    python3 examples/python/check.py --tool issue_refund \
        --args '{"user_id": "cust-42", "amount": 20, "reason": "broken mug"}' \
        --subject '{"id": "cust-42", "roles": ["support_agent"]}'

Exit status, as in the README's exit-code table (the same as `guardagent check`): 0 allow,
1 deny, 4 pending (held for approval), 3 the guard could not decide (guard_error), 2 the request
was refused (invalid, unknown policy, bad key), 6 the gateway could not be reached or did not
answer in time (try again). The policy (default `refund-desk`, examples/policies/refund-desk.yaml)
must be registered first, e.g. `--put-policy policy.json` with the policy as JSON.
"""
import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request


# The README's exit-code table (EXIT_CODES in @guardagent/client); a test keeps the two equal.
EXIT_OK = 0
EXIT_DENIED = 1
EXIT_INVALID = 2
EXIT_GUARD_ERROR = 3
EXIT_PENDING = 4
EXIT_FLIPPED = 5
EXIT_UNAVAILABLE = 6
EXIT_INTERNAL = 70
EXIT_INTERRUPTED = 130

# Answers after which trying again later may work (the gateway or Redis busy or restarting).
TRANSIENT_STATUSES = (408, 429, 502, 503, 504)


def exit_code_of_decision(decision):
    """allow 0, deny 1, pending 4; a guard that could not decide (and did not let the call through) 3."""
    if decision.get("decision") == "allow":
        return EXIT_OK
    if decision.get("status") == "guard_error":
        return EXIT_GUARD_ERROR
    return EXIT_PENDING if decision.get("decision") == "pending" else EXIT_DENIED


class GuardAgentError(Exception):
    def __init__(self, status, code, message, issues=None):
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.issues = status, code, issues or []


def call(base_url, api_key, method, path, body=None, timeout=30):
    """One request; JSON in and out. HTTP errors become GuardAgentError with the server's code."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(base_url.rstrip("/") + path, data=data, method=method)
    request.add_header("Authorization", f"Bearer {api_key}")
    request.add_header("Accept", "application/json")
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
            return response.status, (json.loads(raw) if raw else None)
    except urllib.error.HTTPError as error:
        try:
            err = json.loads(error.read()).get("error", {})
        except ValueError:
            err = {}
        raise GuardAgentError(error.code, err.get("code", "HTTP_ERROR"), err.get("message", error.reason), err.get("issues"))


def check(base_url, api_key, job, wait_ms=10_000, timeout_s=60):
    """POST /v1/checks; if no decision came within `wait_ms` (202), poll GET /v1/checks/{id}."""
    status, body = call(base_url, api_key, "POST", f"/v1/checks?wait={wait_ms}", job, timeout=wait_ms / 1000 + 30)
    deadline = time.monotonic() + timeout_s
    delay = 0.1
    while status == 202:
        if time.monotonic() > deadline:
            raise TimeoutError(f"no decision for check {body['id']} within {timeout_s} s")
        time.sleep(delay)
        delay = min(delay * 2, 1.0)
        status, polled = call(base_url, api_key, "GET", f"/v1/checks/{body['id']}")
        body = polled if status == 200 else body
    return body


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("GUARDAGENT_URL", "http://localhost:8080"))
    parser.add_argument("--key", default=os.environ.get("GUARDAGENT_API_KEY"))
    parser.add_argument("--policy", default="refund-desk")
    parser.add_argument("--put-policy", metavar="FILE", help="register this policy (JSON) first")
    parser.add_argument("--tool", default="read_account")
    parser.add_argument("--args", default='{"user_id": "cust-42"}', help="the tool's arguments (JSON object)")
    parser.add_argument("--subject", default='{"id": "cust-42", "roles": ["support_agent"]}', help="who the agent acts for (JSON)")
    parser.add_argument("--input", default="", help="the user's request")
    opts = parser.parse_args()
    if not opts.key:
        parser.error("set GUARDAGENT_API_KEY or pass --key")

    try:
        if opts.put_policy:
            with open(opts.put_policy, encoding="utf-8") as f:
                policy = json.load(f)
            _, registered = call(opts.url, opts.key, "PUT", f"/v1/policies/{policy['id']}", policy)
            opts.policy = registered["id"]
        job = {
            "policy": opts.policy,
            "input": opts.input,
            "subject": json.loads(opts.subject),
            "action": {"kind": "tool_call", "tool": opts.tool, "args": json.loads(opts.args)},
        }
        decision = check(opts.url, opts.key, job)
    except GuardAgentError as error:
        print(f"error: {error}", file=sys.stderr)
        for issue in error.issues:
            print(f"  {issue.get('path') or '(body)'}: {issue.get('message')}", file=sys.stderr)
        return EXIT_UNAVAILABLE if error.status in TRANSIENT_STATUSES or error.status >= 500 else EXIT_INVALID
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    except ValueError as error:  # --args or --subject that is not JSON, or a policy file that is not
        print(f"error: {error}", file=sys.stderr)
        return EXIT_INVALID

    print(json.dumps({k: decision.get(k) for k in ("id", "decision", "status", "layer", "reasons", "approval")}, indent=2))
    return exit_code_of_decision(decision)


if __name__ == "__main__":
    sys.exit(main())
