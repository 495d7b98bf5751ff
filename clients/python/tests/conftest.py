"""The tests import the package from this source tree (clients/python), installed or not;
test_packaging.py checks that it also installs and imports from a virtual environment.

The ``stack`` fixture is a real deployment (redis-server and `guardagent up` of this checkout's
built JavaScript), started once for the session when a test asks for it; ``tenant`` is a tenant
of its own on it with an agent's ``check`` key and an operator's ``operate`` key."""

from __future__ import annotations

import sys
import uuid
from dataclasses import dataclass
from typing import Any, Iterator

import pytest

from paths import PACKAGE_ROOT, REPO_ROOT

sys.path.insert(0, str(PACKAGE_ROOT))

from guardagent import GuardClient  # noqa: E402
from stack import Stack, policy_from_yaml  # noqa: E402

REFUND_DESK = REPO_ROOT / "examples" / "policies" / "refund-desk.yaml"


@pytest.fixture(scope="session")
def stack() -> Iterator[Stack]:
    deployment = Stack()
    try:
        deployment.start()
        yield deployment
    finally:
        deployment.stop()


@dataclass
class Tenant:
    id: str
    url: str
    admin_key: str
    check_key: str
    operate_key: str
    policy: dict[str, Any]

    def client(self, key: str, **options: Any) -> GuardClient:
        return GuardClient(self.url, key, **options)


@pytest.fixture(scope="session")
def tenant(stack: Stack) -> Iterator[Tenant]:
    """A tenant with refund-desk stored (rails only: no LLM), an agent's key and an operator's key."""
    with GuardClient(stack.url, stack.admin_key) as server_admin:
        created = server_admin.create_tenant(id=f"py-{uuid.uuid4().hex[:8]}", name="python sdk tests")
    with GuardClient(stack.url, created["apiKey"]) as tenant_admin:
        check_key = tenant_admin.create_key(["check"], name="agent")["apiKey"]
        operate_key = tenant_admin.create_key(["operate"], name="operator")["apiKey"]
        policy = policy_from_yaml(REFUND_DESK)
        stored = tenant_admin.put_policy(policy)
        assert stored["id"] == "refund-desk"
    yield Tenant(created["id"], stack.url, created["apiKey"], check_key, operate_key, policy)
