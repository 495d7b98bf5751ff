"""Not a test module: scripts/test-python.sh type-checks it with mypy --strict, so the SDK's
public types hold for a user's code. Each ``type: ignore`` marks an error mypy must find
(strict mode reports an ignore that no longer silences anything)."""

from __future__ import annotations

from guardagent import AsyncGuardClient, Decision, GuardClient, GuardPendingError

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
