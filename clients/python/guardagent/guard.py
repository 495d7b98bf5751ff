"""Guarded tools: a decorator that checks every call of a function an agent uses as a tool.

The call is sent as the action ``{"kind": "tool_call", "tool": <name>, "args": <the call's
arguments by parameter name>}``. The function runs only on ``allow``, with the arguments the
decision allows (``decision["redacted"]["args"]`` when the policy redacted PII from them, else
its own). A ``deny`` raises GuardDeniedError, a ``pending`` (held for approval) GuardPendingError
with the approval token; once an operator approved it, ``error.retry()`` (or
``tool.with_approval(token)(...)``) makes the identical call again with the token in
``context.approvalToken``, and the tool runs once. No decision (a timeout, the gateway down)
raises that error, and the tool does not run.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Iterable, Mapping, ParamSpec, Protocol, TypeVar, Union, cast, overload

from .errors import GuardAgentError, GuardDeniedError, GuardPendingError, ValidationError
from .types import Decision, GuardJob, JsonObject, JsonValue, Subject, TextOrJson

if TYPE_CHECKING:
    from .aio import AsyncGuardClient
    from .client import GuardClient

P = ParamSpec("P")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)
V = TypeVar("V")

#: A value fixed for every call, or computed from the call's arguments (a dict by parameter name).
PerCall = Union[V, Callable[[JsonObject], V]]

#: Parameters never sent to the guard as arguments (a method's receiver).
RECEIVER_NAMES = frozenset({"self", "cls"})


class GuardedTool(Protocol[P, R_co]):
    """A guarded function: call it as the original; ``with_approval(token)`` makes the call that an
    operator approved; ``tool_name`` is the name the policy knows it by."""

    tool_name: str

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R_co: ...

    def with_approval(self, token: str) -> Callable[P, R_co]: ...


class ToolDecorator(Protocol):
    def __call__(self, fn: Callable[P, R], /) -> GuardedTool[P, R]: ...


class AsyncToolDecorator(Protocol):
    """Guards with an AsyncGuardClient: the guarded tool is always a coroutine function."""

    @overload
    def __call__(self, fn: Callable[P, Awaitable[R]], /) -> GuardedTool[P, Awaitable[R]]: ...

    @overload
    def __call__(self, fn: Callable[P, R], /) -> GuardedTool[P, Awaitable[R]]: ...


def _resolve(value: Any, args: JsonObject) -> Any:
    return value(args) if callable(value) else value


class _Call:
    """One call of a guarded tool: its arguments bound to the function's parameters."""

    def __init__(self, signature: inspect.Signature, exclude: frozenset[str], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        try:
            self.bound = signature.bind(*args, **kwargs)
        except TypeError as error:
            raise ValidationError(f"Invalid tool call: {error}", [{"path": "args", "message": str(error)}]) from error
        self.bound.apply_defaults()
        self.signature = signature
        self.exclude = exclude
        self.args: JsonObject = {}
        for name, value in self.bound.arguments.items():
            if name in exclude:
                continue
            kind = signature.parameters[name].kind
            if kind is inspect.Parameter.VAR_KEYWORD:
                for key, item in value.items():
                    self.args[key] = _json_value(item, f"args.{key}")
            elif kind is inspect.Parameter.VAR_POSITIONAL:
                self.args[name] = _json_value(list(value), f"args.{name}")
            else:
                self.args[name] = _json_value(value, f"args.{name}")

    def with_args(self, allowed: Mapping[str, JsonValue]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The call rebuilt with the arguments the decision allows (each guarded parameter from them)."""
        bound = inspect.BoundArguments(self.signature, OrderedDict(self.bound.arguments))
        named = set()
        for name, param in self.signature.parameters.items():
            if name in self.exclude or param.kind is inspect.Parameter.VAR_KEYWORD:
                continue
            named.add(name)
            if name not in allowed:
                raise GuardAgentError(f"the decision's arguments have no '{name}': the tool is not run with arguments the guard did not allow")
            value = allowed[name]
            if param.kind is inspect.Parameter.VAR_POSITIONAL:
                if not isinstance(value, list):
                    raise GuardAgentError(f"the decision's '{name}' is not a list: the tool is not run")
                bound.arguments[name] = tuple(value)
            else:
                bound.arguments[name] = value
        for name, param in self.signature.parameters.items():
            if param.kind is inspect.Parameter.VAR_KEYWORD and name not in self.exclude:
                bound.arguments[name] = {key: value for key, value in allowed.items() if key not in named}
        return bound.args, bound.kwargs


def _json_value(value: Any, path: str) -> JsonValue:
    """The argument as JSON, as the guard will see it; a value JSON cannot carry is refused (pass
    such parameters through with ``exclude``)."""
    try:
        return cast(JsonValue, json.loads(json.dumps(value, allow_nan=False)))
    except (TypeError, ValueError) as error:
        raise ValidationError(
            f"Invalid tool call: {path}: {type(value).__name__} is not JSON; list the parameter in exclude= to pass it unchecked",
            [{"path": path, "message": f"{type(value).__name__} is not JSON"}],
        ) from error


class _Guard:
    """What a guarded tool needs from guard_tool's options."""

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        policy: Union[str, JsonObject],
        tool_name: Union[str, None],
        subject: Union[PerCall[Subject], None],
        input: Union[PerCall[TextOrJson], None],
        output: Union[PerCall[TextOrJson], None],
        context: Union[PerCall[JsonObject], None],
        timeout: Union[float, None],
        on_decision: Union[Callable[[Decision, JsonObject], None], None],
        exclude: Iterable[str],
    ) -> None:
        self.fn = fn
        self.policy = policy
        self.tool_name = tool_name or fn.__name__
        self.subject = subject
        self.input = input
        self.output = output
        self.context = context
        self.timeout = timeout
        self.on_decision = on_decision
        self.signature = inspect.signature(fn)
        self.exclude = frozenset(exclude) | (RECEIVER_NAMES & set(self.signature.parameters))

    def call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> _Call:
        return _Call(self.signature, self.exclude, args, kwargs)

    def job(self, call: _Call, token: Union[str, None]) -> GuardJob:
        subject = _resolve(self.subject, call.args)
        input_value = _resolve(self.input, call.args)
        output = _resolve(self.output, call.args)
        context = _resolve(self.context, call.args)
        job: dict[str, Any] = {
            "policy": self.policy,
            "input": "" if input_value is None else input_value,
            "output": {"tool": self.tool_name, "args": call.args} if output is None else output,
            "action": {"kind": "tool_call", "tool": self.tool_name, "args": call.args},
        }
        if subject is not None:
            job["subject"] = subject
        if token is not None:
            context = {**(context or {}), "approvalToken": token}
        if context is not None:
            job["context"] = context
        return cast(GuardJob, job)

    def allowed(self, call: _Call, decision: Decision, retry: Callable[[], Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The call to run when the decision allows it; else the refusal as an error."""
        if self.on_decision is not None:
            self.on_decision(decision, call.args)
        if decision["decision"] != "allow":
            reasons = decision.get("reasons") or ["the call is held for approval" if decision["decision"] == "pending" else "denied by the guard"]
            if decision["decision"] == "pending":
                raise GuardPendingError(self.tool_name, reasons, decision, retry)
            raise GuardDeniedError(self.tool_name, reasons, decision)
        # The arguments the guard allowed: the redacted ones when the policy redacts PII from
        # tool-call arguments (pii: redact on the input filters), never the proposed ones.
        redacted = decision.get("redacted", {}).get("args")
        if redacted is None:
            return call.bound.args, call.bound.kwargs
        return call.with_args(redacted)


def _sync_tool(guard: _Guard, client: GuardClient) -> GuardedTool[Any, Any]:
    fn = guard.fn
    if inspect.iscoroutinefunction(fn):

        async def run_async(args: tuple[Any, ...], kwargs: dict[str, Any], token: Union[str, None]) -> Any:
            call = guard.call(args, kwargs)
            decision = await asyncio.to_thread(client.check, guard.job(call, token), timeout=guard.timeout)
            run_args, run_kwargs = guard.allowed(call, decision, lambda: run_async(args, kwargs, _token_of(decision)))
            return await fn(*run_args, **run_kwargs)

        @functools.wraps(fn)
        async def guarded_async(*args: Any, **kwargs: Any) -> Any:
            return await run_async(args, kwargs, None)

        return _finish(guarded_async, guard, lambda token: functools.wraps(fn)(lambda *a, **k: run_async(a, k, token)))

    def run(args: tuple[Any, ...], kwargs: dict[str, Any], token: Union[str, None]) -> Any:
        call = guard.call(args, kwargs)
        decision = client.check(guard.job(call, token), timeout=guard.timeout)
        run_args, run_kwargs = guard.allowed(call, decision, lambda: run(args, kwargs, _token_of(decision)))
        return fn(*run_args, **run_kwargs)

    @functools.wraps(fn)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        return run(args, kwargs, None)

    return _finish(guarded, guard, lambda token: functools.wraps(fn)(lambda *a, **k: run(a, k, token)))


def _async_tool(guard: _Guard, client: AsyncGuardClient) -> GuardedTool[Any, Any]:
    fn = guard.fn
    is_async = inspect.iscoroutinefunction(fn)

    async def run(args: tuple[Any, ...], kwargs: dict[str, Any], token: Union[str, None]) -> Any:
        call = guard.call(args, kwargs)
        decision = await client.check(guard.job(call, token), timeout=guard.timeout)
        run_args, run_kwargs = guard.allowed(call, decision, lambda: run(args, kwargs, _token_of(decision)))
        result = fn(*run_args, **run_kwargs)
        return await result if is_async else result

    @functools.wraps(fn)
    async def guarded(*args: Any, **kwargs: Any) -> Any:
        return await run(args, kwargs, None)

    return _finish(guarded, guard, lambda token: functools.wraps(fn)(lambda *a, **k: run(a, k, token)))


def _token_of(decision: Decision) -> Union[str, None]:
    approval = decision.get("approval")
    return approval["token"] if approval else None


def _finish(guarded: Callable[..., Any], guard: _Guard, with_approval: Callable[[str], Callable[..., Any]]) -> GuardedTool[Any, Any]:
    setattr(guarded, "tool_name", guard.tool_name)
    setattr(guarded, "with_approval", with_approval)
    return cast(GuardedTool[Any, Any], guarded)


@overload
def guard_tool(
    client: AsyncGuardClient,
    *,
    policy: Union[str, JsonObject],
    tool_name: Union[str, None] = None,
    subject: Union[PerCall[Subject], None] = None,
    input: Union[PerCall[TextOrJson], None] = None,
    output: Union[PerCall[TextOrJson], None] = None,
    context: Union[PerCall[JsonObject], None] = None,
    timeout: Union[float, None] = None,
    on_decision: Union[Callable[[Decision, JsonObject], None], None] = None,
    exclude: Iterable[str] = (),
) -> AsyncToolDecorator: ...


@overload
def guard_tool(
    client: GuardClient,
    *,
    policy: Union[str, JsonObject],
    tool_name: Union[str, None] = None,
    subject: Union[PerCall[Subject], None] = None,
    input: Union[PerCall[TextOrJson], None] = None,
    output: Union[PerCall[TextOrJson], None] = None,
    context: Union[PerCall[JsonObject], None] = None,
    timeout: Union[float, None] = None,
    on_decision: Union[Callable[[Decision, JsonObject], None], None] = None,
    exclude: Iterable[str] = (),
) -> ToolDecorator: ...


def guard_tool(
    client: Union[GuardClient, AsyncGuardClient],
    *,
    policy: Union[str, JsonObject],
    tool_name: Union[str, None] = None,
    subject: Union[PerCall[Subject], None] = None,
    input: Union[PerCall[TextOrJson], None] = None,
    output: Union[PerCall[TextOrJson], None] = None,
    context: Union[PerCall[JsonObject], None] = None,
    timeout: Union[float, None] = None,
    on_decision: Union[Callable[[Decision, JsonObject], None], None] = None,
    exclude: Iterable[str] = (),
) -> Union[ToolDecorator, AsyncToolDecorator]:
    """A decorator that guards a function used as an agent's tool (see the module's docs).

    ``policy``: a registered policy's id, or a whole policy. ``tool_name``: the name the policy's
    rails and guard code know the tool by (default: the function's name). ``subject``, ``input``
    (the user's request), ``output`` (default: the proposed call) and ``context``: fixed, or a
    function of the call's arguments (a dict by parameter name). ``timeout``: seconds to wait for
    the decision (default: the client's). ``on_decision`` sees every decision. ``exclude``:
    parameters passed to the tool unchecked and unsent (``self`` and ``cls`` always are).

    With a GuardClient the guarded function keeps its kind (an ``async def`` tool is checked in a
    worker thread); with an AsyncGuardClient it is always a coroutine function.
    """
    from .aio import AsyncGuardClient

    def decorate(fn: Callable[..., Any]) -> GuardedTool[Any, Any]:
        guard = _Guard(
            fn,
            policy=policy,
            tool_name=tool_name,
            subject=subject,
            input=input,
            output=output,
            context=context,
            timeout=timeout,
            on_decision=on_decision,
            exclude=exclude,
        )
        if isinstance(client, AsyncGuardClient):
            return _async_tool(guard, client)
        return _sync_tool(guard, client)

    return cast(Union[ToolDecorator, AsyncToolDecorator], decorate)
