"""A run trace: one JSON object per line, recorded while a harness attacked a box.

The format is described in docs/harness.md. `parse_trace` rejects a bad trace with the
line number and the reason; it never guesses a missing value.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from lattice_desktop.errors import Location, UserError
from lattice_desktop.harness.events import (
    CANONICAL,
    BoundaryProbe,
    Capture,
    Event,
    GamingCheck,
    MalformedRequest,
    ModelUsage,
    OversizedPayload,
    Paused,
    ToolCall,
)
from lattice_desktop.harness.quick_events import Shared, quick_event
from lattice_desktop.harness.trace_file import trace_lines

TRACE_FORMAT_VERSION = 1
MAX_TRACE_EVENTS = 2_000_000
"""Scoring keeps every event in memory: about 0.5 GB at its peak per million events
(docs/harness.md, "Limits")."""
PAUSE_REASONS = frozenset({"queue", "sandbox_setup", "preparation"})
PROBE_RESULTS = frozenset({"refused", "crossed"})
GAMING_RESULTS = frozenset({"pass", "violation"})
RUN_STATUSES = frozenset({"completed", "error", "cancelled"})
"""How a run ended: an errored or cancelled run is shown with its status and kept out of
the ranking unless its box says `rank_unfinished = true`."""
_DECODE = json.JSONDecoder().decode


@dataclass(frozen=True)
class Trace:
    run_id: str
    harness: str
    model: str
    box: str
    stage: str | None
    start_t: float
    end_t: float
    end_reason: str
    events: tuple[Event, ...]
    status: str = "completed"
    """run_end `status`: completed, error or cancelled."""
    source: str = "<trace>"
    start_line: int = 1
    origin: dict[str, Any] = field(default_factory=dict)
    """Where the run came from when it was converted (run_start `source`: e.g. the
    Inspect AI log, sample id, epoch and the box's mapping), shown on the run page."""
    unrecorded: dict[str, str] = field(default_factory=dict)
    """Event types the recorder could not observe, each with the reason (e.g. an Inspect AI
    log has no boundary probes): their absence proves nothing, so what depends on them is
    missing rather than clean."""

    def of(self, kind: type) -> list:
        """The events of one type, in trace order (grouped once: scoring asks for each type)."""
        return list(self._by_kind.get(kind, ()))

    @cached_property
    def _by_kind(self) -> dict[type, list[Event]]:
        groups: dict[type, list[Event]] = {}
        for event in self.events:
            groups.setdefault(type(event), []).append(event)
        return groups


class _Line:
    """One parsed line, with typed field access that reports errors with line and key."""

    def __init__(self, data: dict[str, Any], number: int, source: str) -> None:
        self.data, self.number, self.source = data, number, source
        self.type = data.get("type")

    def error(self, message: str, key: str | None = None) -> UserError:
        prefix = f"{self.type}: " if isinstance(self.type, str) else ""
        return UserError(prefix + message, Location(self.source, self.number, key))

    def get(self, key: str, kind: type | tuple, *, required: bool = True, nullable: bool = False) -> Any:
        value = self.data.get(key)
        # The common case first (a long trace has a million of these): a plain value of
        # the wanted type. Anything else goes through the full checks below.
        if kind is float and type(value) is float and math.isfinite(value):
            return value
        if kind is str and type(value) is str and value and not value[0].isspace():
            return value
        if key not in self.data:
            if required:
                raise self.error(f"{key!r} is missing", key)
            return None
        value = self.data[key]
        if value is None and (nullable or not required):
            return None
        number = kind in (float, int)
        if number and (
            isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value)
        ):
            raise self.error(f"{key!r} must be a number, not {value!r}", key)
        if not number and not isinstance(value, kind):
            raise self.error(f"{key!r} must be a {getattr(kind, '__name__', kind)}, not {value!r}", key)
        if kind is int and value != int(value):
            raise self.error(f"{key!r} must be a whole number, not {value!r}", key)
        if kind is str and not value.strip():
            raise self.error(f"{key!r} must not be empty", key)
        return int(value) if kind is int else float(value) if kind is float else value

    def time(self, key: str) -> float:
        """A required non-negative number of seconds."""
        value = self.get(key, float)
        if value < 0:
            raise self.error(f"{key!r} must not be negative, not {value!r}", key)
        return float(value)

    def non_negative(self, key: str, *, required: bool = True, nullable: bool = False) -> float | None:
        value = self.get(key, float, required=required, nullable=nullable)
        if value is not None and value < 0:
            raise self.error(f"{key!r} must not be negative, not {value!r}", key)
        return value

    def choice(self, key: str, allowed: frozenset[str]) -> str:
        value = self.get(key, str)
        if value not in allowed:
            raise self.error(f"{key!r} must be one of {', '.join(sorted(allowed))}, not {value!r}", key)
        return value


def _event(line: _Line, t: float, shared: Shared) -> Event:
    n = line.number
    match line.type:
        case "tool_call":
            status = line.get("status", int, nullable=True)
            if status is not None and not 100 <= status <= 599:
                raise line.error(f"'status' must be an HTTP status (100-599), not {status}", "status")
            if "arguments" not in line.data:
                raise line.error("'arguments' is missing", "arguments")
            tool = line.get("tool", str)
            key = (tool, CANONICAL.encode(line.data["arguments"]))
            key, arguments = shared.setdefault(key, (key, line.data["arguments"]))
            return ToolCall(
                n,
                t,
                tool,
                arguments,
                status,
                line.non_negative("duration", required=False),
                line.get("job_state", str, required=False),
                line.get("id", str, required=False),
                key,
            )
        case "model_usage":
            return ModelUsage(
                n, t, line.non_negative("cost_usd", nullable=True), line.get("priced", str, required=False)
            )
        case "capture":
            return Capture(n, t, line.get("objective", str))
        case "boundary_probe":
            return BoundaryProbe(n, t, line.get("probe", str), line.choice("result", PROBE_RESULTS))
        case "gaming_check":
            return GamingCheck(n, t, line.get("check", str), line.choice("result", GAMING_RESULTS))
        case "oversized_payload":
            size = line.get("bytes", int, required=False)
            return OversizedPayload(n, t, line.get("tool", str, required=False), size)
        case "malformed_request":
            return MalformedRequest(n, t, line.get("tool", str, required=False), line.get("reason", str))
        case "paused":
            until = line.time("until")
            if until < t:
                raise line.error(f"'until' ({until}) is before 't' ({t})", "until")
            return Paused(n, t, until, line.choice("reason", PAUSE_REASONS))
    known = (
        "run_start, run_end, tool_call, model_usage, capture, boundary_probe, "
        "gaming_check, oversized_payload, malformed_request, paused"
    )
    raise line.error(f"unknown event type {line.type!r} (known: {known})", "type")


def _decoded(raw: str, number: int, source: str) -> dict[str, Any] | None:
    """One line's JSON object (None for a blank line); anything else is a located error."""
    if not raw.strip():
        return None
    try:
        data = _DECODE(raw)
    except json.JSONDecodeError as exc:
        raise UserError(f"not valid JSON: {exc.msg} (column {exc.colno})", Location(source, number)) from None
    except RecursionError:
        raise UserError("JSON nested too deeply", Location(source, number)) from None
    except ValueError as exc:  # an integer of more digits than Python converts (4,300)
        raise UserError(f"not a usable JSON value: {exc}", Location(source, number)) from None
    if not isinstance(data, dict):
        raise UserError("each line must be a JSON object", Location(source, number))
    return data


def parse_trace(text: str, *, source: str = "<trace>") -> Trace:
    """Parse and check a JSON Lines trace. Raises `UserError` with the line and reason."""
    return parse_lines(text.splitlines(), source=source)


def parse_lines(raw_lines: Iterable[str], *, source: str = "<trace>") -> Trace:
    """`parse_trace` over lines as they are read: only the events are kept, never the text
    nor a decoded line more than one ahead, so memory is bounded by the events."""
    first: _Line | None = None
    pending: _Line | None = None  # the line read last: an event, unless it is the last line
    events: list[Event] = []
    shared: Shared = {}
    previous_t: float | None = None
    for number, raw in enumerate(raw_lines, start=1):
        data = _decoded(raw, number, source)
        if data is None:
            continue
        line = _Line(data, number, source)
        if first is None:
            if line.type != "run_start":
                raise line.error("the first line must be the run_start event", "type")
            if data.get("format", TRACE_FORMAT_VERSION) != TRACE_FORMAT_VERSION:
                raise line.error(f"unsupported trace format {data['format']!r}", "format")
            first = line
            previous_t = line.time("t")
            continue
        if pending is not None:
            if len(events) >= MAX_TRACE_EVENTS:
                raise pending.error(f"the trace holds more than {MAX_TRACE_EVENTS:,} events (the limit)")
            events.append(_middle(pending, previous_t, shared))
            previous_t = events[-1].t
        pending = line
    if first is None:
        raise UserError("the trace is empty", Location(source))
    if pending is None or pending.type != "run_end":
        last = pending or first
        raise last.error("the last line must be the run_end event (is the trace cut short?)", "type")
    end_t = pending.time("t")
    if previous_t is not None and end_t < previous_t:
        raise pending.error(
            f"'t' goes backwards ({end_t} after {previous_t}); events must be in time order", "t"
        )
    last = pending
    return Trace(
        run_id=first.get("run_id", str),
        harness=first.get("harness", str),
        model=first.get("model", str),
        box=first.get("box", str),
        stage=first.get("stage", str, required=False),
        start_t=first.time("t"),
        end_t=end_t,
        end_reason=last.get("reason", str, required=False) or "",
        events=tuple(events),
        status=last.choice("status", RUN_STATUSES) if "status" in last.data else "completed",
        source=source,
        start_line=first.number,
        origin=first.get("source", dict, required=False) or {},
        unrecorded=_unrecorded(first),
    )


def _middle(line: _Line, previous_t: float | None, shared: Shared) -> Event:
    """An event line between run_start and run_end, checked to be in time order."""
    event = quick_event(line.data, line.number, previous_t, shared)
    if event is not None:
        return event
    t = line.time("t")
    if previous_t is not None and t < previous_t:
        raise line.error(f"'t' goes backwards ({t} after {previous_t}); events must be in time order", "t")
    if line.type in ("run_start", "run_end"):
        raise line.error(
            f"{line.type} may appear only once, as the "
            f"{'first' if line.type == 'run_start' else 'last'} line",
            "type",
        )
    return _event(line, t, shared)


UNRECORDABLE = ("boundary_probe", "gaming_check")
"""Event types a recorder may declare it could not observe (run_start `unrecorded`)."""


def _unrecorded(first: _Line) -> dict[str, str]:
    value = first.get("unrecorded", dict, required=False)
    if value is None:
        return {}
    for kind, reason in value.items():
        if kind not in UNRECORDABLE:
            raise first.error(
                f"'unrecorded' names {kind!r}; only {', '.join(UNRECORDABLE)} can be declared unrecorded",
                "unrecorded",
            )
        if not isinstance(reason, str) or not reason.strip():
            raise first.error(f"'unrecorded.{kind}' must give the reason as text", "unrecorded")
    return dict(value)


def load_trace(path: str | Path) -> Trace:
    """Read and parse a trace file line by line; too large or unreadable is a `UserError`."""
    return parse_lines(trace_lines(path), source=str(path))
