"""The common event lines read without the checking machinery: a long trace is nearly all
plain tool calls, model spend and captures. Anything unusual (a missing or mistyped field,
an integer time, an optional field this path does not know) returns None, and the full
reader in trace.py checks the line and names what is wrong; so both paths accept exactly
the same lines and build the same events."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, TypeGuard

from lattice_desktop.harness.events import CANONICAL, Capture, Event, ModelUsage, ToolCall

Shared = dict[tuple[str, str], tuple[tuple[str, str], Any]]
"""Each distinct call's key and arguments, so that identical calls share one copy."""
_ABSENT = object()


def _text(value: object) -> TypeGuard[str]:
    """A non-empty string not starting with white space (what trace.py's `get` accepts)."""
    return type(value) is str and value != "" and not value[0].isspace()


def _optional_text(data: dict[str, Any], key: str) -> object:
    value = data.get(key)
    return value if value is None or _text(value) else _ABSENT


def _tool_call(data: dict[str, Any], n: int, t: float, shared: Shared) -> Event | None:
    tool, status, arguments = data.get("tool"), data.get("status", _ABSENT), data.get("arguments", _ABSENT)
    if not _text(tool) or arguments is _ABSENT:
        return None
    if status is not None and not (type(status) is int and 100 <= status <= 599):
        return None
    duration = data.get("duration")
    if duration is not None and not (type(duration) is float and math.isfinite(duration) and duration >= 0):
        return None
    job_state, call_id = _optional_text(data, "job_state"), _optional_text(data, "id")
    if job_state is _ABSENT or call_id is _ABSENT:
        return None
    key = (tool, CANONICAL.encode(arguments))
    key, arguments = shared.setdefault(key, (key, arguments))
    return ToolCall(n, t, tool, arguments, status, duration, job_state, call_id, key)  # type: ignore[arg-type]


def _model_usage(data: dict[str, Any], n: int, t: float, shared: Shared) -> Event | None:
    cost = data.get("cost_usd", _ABSENT)
    if "priced" in data or not (cost is None or (type(cost) is float and math.isfinite(cost) and cost >= 0)):
        return None
    return ModelUsage(n, t, cost)


def _capture(data: dict[str, Any], n: int, t: float, shared: Shared) -> Event | None:
    objective = data.get("objective")
    return Capture(n, t, objective) if _text(objective) else None


_QUICK: dict[object, Callable[[dict[str, Any], int, float, Shared], Event | None]] = {
    "tool_call": _tool_call,
    "model_usage": _model_usage,
    "capture": _capture,
}


def quick_event(data: dict[str, Any], n: int, previous_t: float | None, shared: Shared) -> Event | None:
    """The event of a plain line in time order, or None to let the full reader check it."""
    t = data.get("t")
    if type(t) is not float or previous_t is None or not previous_t <= t < math.inf:
        return None
    kind = data.get("type")
    read = _QUICK.get(kind) if type(kind) is str else None
    return None if read is None else read(data, n, t, shared)
