"""Not a test module: scripts/test-python.sh type-checks it with mypy --strict, so the SDK's
public types hold for a user's code. Each ``type: ignore`` marks an error mypy must find
(strict mode reports an ignore that no longer silences anything)."""

from __future__ import annotations

from typing import Literal, Union

from guardagent import ApprovalPage, ApprovalView, AsyncGuardClient, Decision, GuardClient, GuardPendingError

guard = GuardClient("http://127.0.0.1:8080", "key")


@guard.tool(policy="refund-desk", subject={"id": "cust-42"}, input=lambda args: str(args.get("amount")))
def issue_refund(user_id: str, amount: float, reason: str) -> dict[str, float]:
    return {"refunded": amount}


refunded: dict[str, float] = issue_refund("cust-42", 80, "broken kettle")
approved: dict[str, float] = issue_refund.with_approval("apv_token")("cust-42", 80, reason="broken kettle")
name: str = issue_refund.tool_name
wrong_return: int = issue_refund("cust-42", 80, "broken kettle")  # type: ignore[assignment]
wrong_argument = issue_refund("cust-42", "eighty", "broken kettle")  # type: ignore[arg-type]

aguard = AsyncGuardClient("http://127.0.0.1:8080", "key")


@aguard.tool(policy="refund-desk")
def read_account(user_id: str) -> str:
    return user_id


@aguard.tool(policy="refund-desk")
async def send_email(to: str) -> bool:
    return True


async def agent() -> None:
    balance: str = await read_account("cust-42")
    sent: bool = await send_email("a@example.com")
    decision: Decision = await aguard.check({"policy": "refund-desk", "input": "hi"})
    kind: str = decision["decision"]
    async for streamed in aguard.check_many([{"policy": "refund-desk"}]):
        token = streamed.get("approval", {}).get("token")
    unawaited: str = read_account("cust-42")  # type: ignore[assignment, misc]


try:
    issue_refund("cust-42", 80, "broken kettle")
except GuardPendingError as held:
    expires: str = held.expires_at
    retried = held.retry()


# Approvals: the page and views are typed; approve and reject say which result.
page: ApprovalPage = guard.list_approvals(status="approved", tool="issue_refund", limit=10)
cursor: Union[str, None] = page["next"]
first_id: str = page["approvals"][0]["id"]
approver: Union[str, None] = page["approvals"][0].get("approver")
every: list[ApprovalView] = list(guard.iter_approvals(subject="cust-42", page_size=100))
found: Union[ApprovalView, None] = guard.approval(first_id)
unchecked: ApprovalView = guard.approval(first_id)  # type: ignore[assignment]
rejected: Literal["rejected", "already-rejected"] = guard.reject(first_id, "ops-lead", reason="not to that card")
approved_once: Literal["approved", "already-approved"] = guard.approve(first_id, "ops-lead")
wrong_status = guard.list_approvals(status="rejected")  # type: ignore[arg-type]
wrong_result: Literal["approved"] = guard.reject(first_id, "ops-lead")  # type: ignore[assignment]


async def operator() -> None:
    listed: ApprovalPage = await aguard.list_approvals()
    async for view in aguard.iter_approvals(policy="refund-desk"):
        held_for: str = view["subject"]
    decided: str = await aguard.reject(listed["approvals"][0]["id"], "ops-lead", reason="no")
