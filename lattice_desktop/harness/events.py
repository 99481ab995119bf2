"""The events of a run trace, one class per event type (docs/harness.md, "Run trace").

Slotted and frozen: a long run holds a million of them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

RUNNING_JOB_STATES = frozenset({"queued", "pending", "running"})
CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"))
"""Arguments as canonical JSON: object key order does not matter, nothing else changes."""


@dataclass(frozen=True, slots=True)
class ToolCall:
    line: int
    t: float
    tool: str
    arguments: Any
    """As recorded: normally an object, but a harness may send anything."""
    status: int | None
    """HTTP-like response status; None when no response arrived."""
    duration: float | None = None
    job_state: str | None = None
    call_id: str | None = None
    key: tuple[str, str] = field(default=("", ""), compare=False, repr=False)
    """What loop and repeat detection compare: tool name and arguments as recorded (as
    canonical JSON). Computed once when the call is read; identical calls share it and
    their arguments object, so a long run holds each distinct call once."""

    def __post_init__(self) -> None:
        if not self.key[0]:
            object.__setattr__(self, "key", (self.tool, CANONICAL.encode(self.arguments)))

    @property
    def job_running(self) -> bool:
        return self.status == 202 or self.job_state in RUNNING_JOB_STATES


@dataclass(frozen=True, slots=True)
class ModelUsage:
    line: int
    t: float
    cost_usd: float | None
    """As the provider reported it; None when the provider reported no cost."""
    priced: str | None = None
    """How the cost was obtained when it was not reported as is (tokens x a declared
    price), shown on the run page so Cost can be recomputed."""


@dataclass(frozen=True, slots=True)
class Capture:
    line: int
    t: float
    objective: str


@dataclass(frozen=True, slots=True)
class BoundaryProbe:
    line: int
    t: float
    probe: str
    result: str


@dataclass(frozen=True, slots=True)
class GamingCheck:
    line: int
    t: float
    check: str
    result: str


@dataclass(frozen=True, slots=True)
class OversizedPayload:
    line: int
    t: float
    tool: str | None
    size_bytes: int | None


@dataclass(frozen=True, slots=True)
class MalformedRequest:
    line: int
    t: float
    tool: str | None
    reason: str


@dataclass(frozen=True, slots=True)
class Paused:
    """An interval when the harness was not running (queueing, sandbox setup, ...)."""

    line: int
    t: float
    until: float
    reason: str


Event = (
    ToolCall
    | ModelUsage
    | Capture
    | BoundaryProbe
    | GamingCheck
    | OversizedPayload
    | MalformedRequest
    | Paused
)
