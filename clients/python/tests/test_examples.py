"""examples/python against a real deployment, so they cannot rot silently (services/gateway/test/
examples.test.ts also runs check.py's exit codes from the TypeScript suite)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import uuid
from types import ModuleType

from conftest import Tenant
from guardagent import GuardClient, Subject
from paths import REPO_ROOT

EXAMPLES = REPO_ROOT / "examples" / "python"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def session() -> Subject:
    ident = f"cust-{uuid.uuid4().hex[:8]}"
    return {"id": ident, "roles": ["support_agent"], "attributes": {"email": f"{ident}@example.com"}}


def test_the_agent_runs_allowed_calls_stops_the_others_and_runs_an_approved_one_once(tenant: Tenant) -> None:
    agent = load("agent")
    me = session()
    with GuardClient(tenant.url, tenant.check_key) as guard, GuardClient(tenant.url, tenant.operate_key) as operator:
        outcomes, shop = agent.run_agent(guard, session=me, operator=operator)
    assert [(o.tool, o.outcome) for o in outcomes] == [
        ("read_account", "ran"),
        ("read_account", "denied"),
        ("issue_refund", "ran"),
        ("issue_refund", "approved-and-ran"),
        ("send_email", "ran"),
        ("send_email", "denied"),
    ]
    assert "only the account" in outcomes[1].detail
    # The refunds of 20 and (once approved) 400 ran once each; one email went out.
    assert shop["accounts"][me["id"]]["balance"] == 120 + 20 + 400
    assert shop["accounts"]["cust-7"]["balance"] == 3000
    assert shop["outbox"] == [{"to": me["attributes"]["email"], "subject": "Receipt"}]


def test_without_an_operator_the_held_refund_does_not_run(tenant: Tenant) -> None:
    agent = load("agent")
    me = session()
    with GuardClient(tenant.url, tenant.check_key) as guard:
        outcomes, shop = agent.run_agent(guard, session=me)
    held = [o for o in outcomes if o.outcome == "held"]
    assert [o.tool for o in held] == ["issue_refund"]
    assert "refunds over 50 need a supervisor's approval" in held[0].detail
    assert shop["accounts"][me["id"]]["balance"] == 120 + 20


def test_the_scripts_exit_by_the_readme_table(tenant: Tenant) -> None:
    env = {**os.environ, "GUARDAGENT_URL": tenant.url, "GUARDAGENT_API_KEY": tenant.check_key}
    me = session()

    def run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(EXAMPLES / script), *args], env=env, capture_output=True, text=True, timeout=60)

    subject = f'{{"id": "{me["id"]}", "roles": ["support_agent"]}}'
    held = run("check.py", "--tool", "issue_refund", "--args", f'{{"user_id": "{me["id"]}", "amount": 90, "reason": "broken TV"}}', "--subject", subject)
    assert held.returncode == 4, held.stderr
    assert '"token": "apv_' in held.stdout
    invalid = run("check.py", "--subject", '{"roles": "agent"}')
    assert invalid.returncode == 2
    assert "subject.id" in invalid.stderr and "400 VALIDATION_FAILED" in invalid.stderr

    agent = run("agent.py")
    assert agent.returncode == 0, agent.stderr
    assert agent.stdout.count("DENIED") == 2 and agent.stdout.count("HELD") == 1
