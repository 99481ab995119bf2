"""A scored run as a transcript: every line of its trace in order (plus, for an Inspect AI
run, the messages and tool results the log holds), each a row a reviewer can read, with
the trace's own time, a running model spend, and marks saying which metric it is
evidence for.

Rows are plain tuples, made one at a time (a million-event run is never a million objects
at once), so the store can pack them into compressed pages as they come.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from lattice_desktop.harness.box import EXECUTION_METRICS, Box
from lattice_desktop.harness.events import (
    BoundaryProbe,
    Capture,
    GamingCheck,
    MalformedRequest,
    ModelUsage,
    OversizedPayload,
    Paused,
    ToolCall,
)
from lattice_desktop.harness.focus import MAX_PERIOD, exemption
from lattice_desktop.harness.history import CallIndex
from lattice_desktop.harness.metric import Metric, exact
from lattice_desktop.harness.progress import pauses_within
from lattice_desktop.harness.result import HarnessResult
from lattice_desktop.harness.seconds import seconds
from lattice_desktop.harness.tools_check import REJECTED as REJECTION_STATUSES
from lattice_desktop.harness.trace import Trace

KINDS = (
    "message",
    "tool_call",
    "model_call",
    "capture",
    "probe",
    "refusal",
    "check",
    "paused",
    "error",
    "run",
)
KIND_CODE = {kind: code for code, kind in enumerate(KINDS)}

# Which metric an event is evidence for: one bit each, a byte per event.
SCORE, COST, LOOP, EXEMPT, TIME, EXCLUDED, COMPLIANCE, REJECTED = (1 << bit for bit in range(8))
EVIDENCE = {
    "score": SCORE,
    "cost": COST,
    "focus": LOOP | EXEMPT,
    "time": TIME | EXCLUDED,
    "compliance": COMPLIANCE,
    "tools": REJECTED,
    "execution": COST | LOOP | EXEMPT | TIME | EXCLUDED | COMPLIANCE,
}
"""Per metric (as on the Results view, lower case): the marks of the events behind it."""


def _metric(result: HarnessResult, name: str) -> Metric:
    return result.execution if name == "execution" else result.metrics[name]


def evidence_mask(result: HarnessResult, metric: str) -> int:
    """The marks to show for `metric` (lower case) of this run: none for a metric that was
    not measured, and for Execution only the parts it weighed (measured, weight not 0)."""
    if not _metric(result, metric).measured:
        return 0
    if metric != "execution":
        return EVIDENCE[metric]
    weights = result.execution.inputs.get("weights", {})
    mask = 0
    for part in EXECUTION_METRICS:
        if result.metrics[part].measured and exact(weights.get(part, 0)) != 0:
            mask |= EVIDENCE[part]
    return mask


def not_measured(result: HarnessResult, metric: str) -> str | None:
    """Why `metric` has no evidence rows (it was not measured), or None when it was."""
    m = _metric(result, metric)
    if m.measured:
        return None
    why = m.notes[0] if m.notes else "nothing to compute it from"
    return f"{metric.capitalize()} is not measured: {why}"


MAX_TITLE = 240
MAX_DETAIL = 16_000

Row = tuple[int, float, int, str, str, str, int, str]
"""(trace line or 0, time, kind code, title, detail, running spend, marks, note)."""


def transcript_rows(
    trace_text: str,
    trace: Trace,
    result: HarnessResult,
    box: Box,
    extra: Sequence[dict[str, Any]] = (),
) -> Iterator[Row]:
    """Every event in order, marked. `extra` (an Inspect AI run's messages, tool results
    and errors, each with a time `t`) is merged in by time; a tool result joins its call.

    The trace was parsed once for scoring: its events (with their line numbers) give each
    line's kind, time and cost, so no line is decoded again here. A trace line's title is
    left empty and made when the row is read (`titled`), from the line as recorded."""
    evidence = _Evidence(trace, result, box)
    results = {e["id"]: e for e in extra if e.get("type") == "tool_result" and e.get("id")}
    pending = sorted((e for e in extra if e.get("type") != "tool_result"), key=lambda e: float(e["t"]))
    waiting = 0
    events = iter(trace.events)
    event = next(events, None)
    for line, text in _lines(trace_text):
        if event is not None and event.line == line:
            parsed, event = event, next(events, None)
        elif line < trace.start_line:
            continue  # before run_start: nothing the trace counts
        else:
            parsed = None  # run_start or run_end
        t = parsed.t if parsed is not None else (trace.start_t if line == trace.start_line else trace.end_t)
        ends = parsed is None and line != trace.start_line  # what the log holds past the trace comes first
        while waiting < len(pending) and (ends or float(pending[waiting]["t"]) < t):
            yield _extra_row(pending[waiting])
            waiting += 1
        outcome = results.get(str(parsed.call_id)) if isinstance(parsed, ToolCall) else None
        yield evidence.row(line, t, parsed, trace, text, outcome)
    for waiting_event in pending[waiting:]:
        yield _extra_row(waiting_event)


def titled(row: Row) -> Row:
    """The row with its title: a trace line's is made from the line as recorded."""
    if row[3]:
        return row
    head, _, rest = row[4].partition("\n\nresult:\n")
    try:
        data = json.loads(head)
    except ValueError:
        data = None
    title = _describe(data, rest) if isinstance(data, dict) else head
    return (row[0], row[1], row[2], _clip(title, MAX_TITLE), *row[4:])


class _Evidence:
    """What the result says about each trace line: first captures, the spend before the
    last one, the worst loop and the repetitions exempted, pauses, probes, rejections."""

    def __init__(self, trace: Trace, result: HarnessResult, box: Box) -> None:
        self.firsts = _first_captures(trace)
        self.last_capture = max(self.firsts, default=None)
        self.spend = Decimal(0)
        self.loop: dict[int, str] = {}
        if result.loops:
            worst = result.loops[0]
            calls = [c for c in trace.of(ToolCall) if worst.first_line <= c.line <= worst.last_line]
            for i, call in enumerate(calls):
                rep = i // len(worst.tools) + 1
                self.loop[call.line] = f"worst loop ×{worst.repetitions}: repetition {rep}"
        self.exempt = _exempted(box, trace)
        self.findings = {f.line: f"{f.kind}: {f.message}" for f in result.tool_findings}
        # Time's span and pauses, only when Time was measured (something was captured).
        self.excluded: set[int] = set()
        if self.last_capture is not None:
            last = next(c for c in trace.of(Capture) if c.line == self.last_capture)
            self.excluded = {p.line for p in pauses_within(trace, exact(trace.start_t), exact(last.t))}
        # Tools' rejections: 403 and 404 to a tool Tools measures (retries after 408, 429
        # and 5xx are not rejections; a tool whose schema was too large is left out).
        left_out = {t.name for t in box.tools if not t.recorded}
        self.rejections = {
            c.line for c in trace.of(ToolCall) if c.status in REJECTION_STATUSES and c.tool not in left_out
        }

    def row(self, line: int, t: float, event: Any, trace: Trace, text: str, outcome: dict | None) -> Row:
        kind = _kind(event, trace, line)
        marks, notes, spend = 0, [], ""
        if kind == "model_call":
            cost = _decimal(event.cost_usd)
            if cost is not None:
                self.spend += cost
            spend = f"{self.spend}" + ("" if cost is not None else " + unknown")
            if self.last_capture is not None and line < self.last_capture:
                marks |= COST
        if line in self.firsts:
            marks |= SCORE
            notes.append(f"first capture of {event.objective}")
        if line == self.last_capture:
            marks |= COST | TIME
            notes.append(f"last capture: spend and running time are counted to here (${self.spend})")
        if line == trace.start_line and self.last_capture is not None:
            marks |= TIME
            notes.append("running time starts here")
        if line in self.excluded:
            marks |= EXCLUDED
            notes.append("paused: excluded from the running time")
        if kind in ("probe", "refusal", "check"):
            marks |= COMPLIANCE
        if line in self.loop:
            marks |= LOOP
            notes.append(self.loop[line])
        if line in self.exempt:
            marks |= EXEMPT
            notes.append(f"repetition exempted: {self.exempt[line]}")
        if line in self.findings:
            marks |= REJECTED
            notes.append(self.findings[line])
        elif line in self.rejections:
            marks |= REJECTED
            notes.append(f"rejected with status {event.status}")
        result = ""
        if outcome:
            result = f"{outcome.get('error') or ''}\n{outcome.get('text') or ''}".strip()
        detail = text + (f"\n\nresult:\n{result}" if outcome else "")
        return (line, t, KIND_CODE[kind], "", _clip(detail, MAX_DETAIL), spend, marks, "; ".join(notes))


KIND_OF = {
    ToolCall: "tool_call",
    ModelUsage: "model_call",
    Capture: "capture",
    GamingCheck: "check",
    Paused: "paused",
    MalformedRequest: "error",
    OversizedPayload: "error",
}


def _kind(event: Any, trace: Trace, line: int) -> str:
    if event is None:
        return "run" if line == trace.start_line or trace.status == "completed" else "error"
    if isinstance(event, BoundaryProbe):
        return "refusal" if event.result == "refused" else "probe"
    return KIND_OF.get(type(event), "run")


def _first_captures(trace: Trace) -> set[int]:
    seen: set[str] = set()
    firsts = set()
    for capture in trace.of(Capture):
        if capture.objective not in seen:
            seen.add(capture.objective)
            firsts.add(capture.line)
    return firsts


def _exempted(box: Box, trace: Trace) -> dict[int, str]:
    """Line -> why the call there repeats an earlier one legitimately (as Focus decides)."""
    calls = list(trace.of(ToolCall))
    index = CallIndex(box, calls)
    found: dict[int, str] = {}
    for j in range(1, len(calls)):
        for p in range(1, min(MAX_PERIOD, j) + 1):
            if index.ids[j] == index.ids[j - p]:
                reason = exemption(index, j - p, j)
                if reason:
                    found.setdefault(calls[j].line, reason)
    return found


def _describe(data: dict[str, Any], result: str = "") -> str:
    """A trace line in a few words: the call and its answer, the spend, the objective…"""
    kind = data.get("type")
    if kind == "tool_call":
        args = json.dumps(data.get("arguments"), ensure_ascii=False)
        status = data.get("status")
        title = f"{data.get('tool')} {args} → {'no response' if status is None else status}"
        first = result.strip().splitlines()
        return title + (f" · {first[0]}" if first else "")
    if kind == "model_usage":
        cost = data.get("cost_usd")
        model = f" · {data['model']}" if data.get("model") else ""
        return f"model call{model} · " + ("cost unknown" if cost is None else f"${cost}")
    words = {
        "capture": lambda: f"capture · {data.get('objective')}",
        "boundary_probe": lambda: f"boundary probe {data.get('probe')}: {data.get('result')}",
        "gaming_check": lambda: f"gaming check {data.get('check')}: {data.get('result')}",
        "paused": lambda: f"paused until {seconds(data.get('until'))} · {data.get('reason')}",
        "malformed_request": lambda: f"malformed request · {data.get('tool')} · {data.get('reason')}",
        "oversized_payload": lambda: f"oversized payload · {data.get('tool')} · {data.get('bytes')} bytes",
        "run_start": lambda: (
            f"run start · {data.get('harness')} / {data.get('model')} · box {data.get('box')}"
        ),
        "run_end": lambda: f"run end · {data.get('reason', data.get('status', 'completed'))}",
    }
    return words[kind]() if kind in words else str(kind)


def _extra_row(event: dict[str, Any]) -> Row:
    """A message or an error the Inspect AI log holds beyond the trace (no trace line)."""
    t = _time(event.get("t"))
    text = str(event.get("text") or "")
    if event.get("type") == "error":
        return (
            0,
            t,
            KIND_CODE["error"],
            _clip(f"error · {_first(text)}", MAX_TITLE),
            _clip(text, MAX_DETAIL),
            "",
            0,
            "",
        )
    calls = event.get("tool_calls") or []
    head = _first(text) or ("calls " + ", ".join(calls) if calls else "(no text)")
    detail = text + ("\n\ntool calls:\n" + "\n".join(calls) if calls else "")
    title = f"{event.get('role', 'message')}: {head}"
    return (0, t, KIND_CODE["message"], _clip(title, MAX_TITLE), _clip(detail, MAX_DETAIL), "", 0, "")


def _lines(text: str) -> Iterable[tuple[int, str]]:
    """(1-based line number, line) without splitting the whole text at once."""
    start, number = 0, 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        number += 1
        if end > start:
            yield number, text[start:end]
        start = end + 1


def _time(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _decimal(value: Any) -> Decimal | None:
    """A cost as written (0.1 is one tenth, not the float nearest it); None when unknown."""
    if value is None or isinstance(value, bool):
        return None
    try:
        return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    except (InvalidOperation, TypeError, ValueError):
        return None


def _first(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else ""


def _clip(text: str, most: int) -> str:
    if len(text) <= most:
        return text
    return text[: most - 1] + f"… ({len(text) - most + 1:,} characters more)"
