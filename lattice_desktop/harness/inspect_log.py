"""Inspect AI eval logs (`.eval`, `.json`) as harness runs: each sample (and epoch) becomes
one run trace in this project's format, read through inspect_ai's own log reader.

The mapping (docs/harness.md, "Inspect AI logs"): tool events become tool calls, their
error type an HTTP-like status; the agent's model events become spend (`usage.total_cost`,
which Inspect prices from its own table, else tokens priced by the box's table, else
unknown) — a scorer's own model calls (a model-graded scorer) are not the harness's spend
nor its time; scores and flags become captures through the box's `[inspect]` rules, a
score dated at the end of the agent's last action; the events' working clock is the
time, and everything before the first model call is setup. Attachments (long arguments
stored once as `attachment://<hash>`) are resolved to their text. A log cannot say whether a
boundary probe was crossed or a gaming check failed: the trace declares both unrecorded,
so Compliance is missing with that reason. inspect_ai is an optional extra, imported only
here and only when a log is read.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lattice_desktop.errors import Location, UserError
from lattice_desktop.harness.box import Box
from lattice_desktop.harness.inspect_mapping import InspectMapping
from lattice_desktop.harness.log_limits import check_eval_archive, check_json_log

INSPECT_SUFFIXES = (".eval", ".json")
STATUS_OF_ERROR: dict[str, int | None] = {
    "permission": 403,  # the sandbox refused: PermissionError
    "approval": 403,  # an approver rejected the call
    "file_not_found": 404,
    "parsing": 400,  # the arguments could not be parsed or did not fit the tool
    "is_a_directory": 400,
    "unicode_decode": 422,
    "timeout": 408,
    "limit": 413,  # the tool's output or a resource went over a limit
    "output_limit": 413,
    "sandbox_unavailable": 503,
    "cancelled": None,  # no response
    "unknown": 500,
}
"""Inspect's ToolCallError types as statuses: 403/404 are rejections (a repeat counts
against adaptation), 408/429/5xx and no response are temporary (a retry is expected)."""
UNRECORDED = {
    "boundary_probe": "an Inspect AI log records no boundary probes",
    "gaming_check": "an Inspect AI log records no anti-gaming checks",
}


@dataclass(frozen=True)
class SampleTrace:
    source: str
    """The log path and the sample: `LOG#sample=ID,epoch=N`."""
    text: str
    """The run in this project's trace format (JSON Lines), as stored."""
    messages: tuple[dict[str, Any], ...] = ()
    """What the log holds beyond the trace, for the run's transcript (harness/transcript.py):
    the messages, each tool call's result and the errors, each with its time `t`."""


def is_inspect_log(path: str | Path) -> bool:
    return Path(path).suffix.lower() in INSPECT_SUFFIXES


def read_inspect_log(path: str | Path, box: Box) -> list[SampleTrace]:
    """Every sample of the log as a run trace against `box` (which must declare its
    `[inspect]` mapping). Raises `UserError` for a missing extra, an unreadable log or a
    log without samples."""
    where = Location(str(path))
    if box.inspect is None:
        raise UserError(
            f"box {box.id!r} declares no [inspect] table, so an Inspect AI log "
            "cannot be mapped onto it (which score or flag captures which "
            "objective?) — see docs/harness.md",
            Location(box.source, None, "inspect"),
        )
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise UserError(
            "reading Inspect AI logs needs the optional inspect_ai package: "
            "pip install 'lattice-desktop[inspect]'",
            where,
        ) from None
    if not Path(path).is_file():
        raise UserError("not a file (a folder?)" if Path(path).exists() else "no such file", where)
    if Path(path).suffix.lower() == ".eval":
        check_eval_archive(Path(path))
    else:
        check_json_log(Path(path))
    try:
        log = read_eval_log(str(path), resolve_attachments=True)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UserError(f"not a readable Inspect AI log: {first}", where) from None
    if not log.samples:
        raise UserError(f"the log holds no samples (status {log.status})", where)
    return [
        SampleTrace(
            f"{path}#sample={sample.id},epoch={sample.epoch}",
            _trace_text(log, sample, box, str(path)),
            sample_messages(sample),
        )
        for sample in log.samples
    ]


SCORER_SPANS = frozenset({"scorer", "scorers"})
"""Span types inside which events belong to scoring, not to the agent."""
CANCELLED_ERRORS = ("CancelledError(", "Cancelled(")
"""How Inspect records a sample cancelled by its backend (inspect_ai._util.error)."""


def _agent(log: Any) -> str:
    """The agent the log recorded: its solver, else its plan's solvers, else the task."""
    if log.eval.solver:
        return str(log.eval.solver)
    steps = [step.solver for step in (log.plan.steps if log.plan else [])]
    return "+".join(steps) or str(log.eval.task)


def _text(result: Any) -> str:
    """A tool result as text, for flag rules."""
    if isinstance(result, str):
        return result
    if isinstance(result, list):
        return "\n".join(_text(r) for r in result)
    text = getattr(result, "text", None)
    return text if isinstance(text, str) else str(result)


def _same(value: Any, wanted: str | float | bool) -> bool:
    """A score value equals a rule's value of the same kind (True is not 1)."""
    if isinstance(wanted, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(wanted, bool) and value == wanted
    if isinstance(wanted, float):
        return isinstance(value, int | float) and value == wanted
    return value == wanted


def _spend(event: Any, mapping: InspectMapping) -> dict[str, Any]:
    """One model call's spend: reported, priced from tokens, or unknown (never 0)."""
    model = event.model
    usage = event.output.usage if event.output is not None else None
    if event.cache == "read":
        return {
            "cost_usd": 0.0,
            "model": model,
            "priced": f"{model}: answered from Inspect's cache, no provider call",
        }
    if usage is None:
        return {"cost_usd": None, "model": model, "priced": f"{model}: the log has no usage"}
    if usage.total_cost is not None:
        return {
            "cost_usd": usage.total_cost,
            "model": model,
            "priced": f"{model}: usage.total_cost ${usage.total_cost!r}, priced by Inspect "
            "from its own price table (not reported by the provider)",
        }
    tokens = {
        "input": usage.input_tokens,
        "output": usage.output_tokens,
        "cache_read": usage.input_tokens_cache_read or 0,
        "cache_write": usage.input_tokens_cache_write or 0,
    }
    price = mapping.price(model)
    if price is None:
        return {
            "cost_usd": None,
            "model": model,
            "tokens": tokens,
            "priced": f"{model}: no usage.total_cost in the log and no price for "
            f"{model} in the box's [[inspect.prices]]",
        }
    cost, how = price.cost(tokens)
    if cost is None:
        return {"cost_usd": None, "model": model, "tokens": tokens, "priced": f"{model}: {how}"}
    return {
        "cost_usd": float(cost),
        "model": model,
        "tokens": tokens,
        "priced": f"{model}: {how} = ${float(cost)!r}",
    }


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _scoring_spans(events: list[Any]) -> set[str]:
    """Ids of the spans that belong to scoring: a scorer span and everything under it."""
    parents: dict[str, str | None] = {}
    kinds: dict[str, str | None] = {}
    for event in events:
        if event.event == "span_begin":
            parents[event.id] = event.parent_id
            kinds[event.id] = event.type
    scoring = set()
    for span in parents:
        at: str | None = span
        seen = 0
        while at is not None and seen <= len(parents):
            if kinds.get(at) in SCORER_SPANS:
                scoring.add(span)
                break
            at, seen = parents.get(at), seen + 1
    return scoring


def sample_messages(sample: Any) -> tuple[dict[str, Any], ...]:
    """The agent's messages (the first call's input, then each answer), tool results and
    errors, timed as the trace times them (a model call at its end, a tool at its end);
    the scorers' own calls are left out, as they are from the trace."""
    scoring = _scoring_spans(sample.events)
    out: list[dict[str, Any]] = []
    for event in sample.events:
        if event.event not in ("model", "tool", "error") or getattr(event, "span_id", None) in scoring:
            continue
        start = float(event.working_start or 0.0)
        end = start + float(getattr(event, "working_time", 0.0) or 0.0)
        if event.event == "model":
            if not any(e["type"] == "message" for e in out):
                out += [{"type": "message", "t": start, "role": m.role, "text": m.text} for m in event.input]
            choices = event.output.choices if event.output is not None else []
            if choices:
                message = choices[0].message
                calls = [
                    f"{c.function} {json.dumps(_jsonable(c.arguments))}" for c in message.tool_calls or []
                ]
                out.append(
                    {
                        "type": "message",
                        "t": end,
                        "role": "assistant",
                        "text": message.text,
                        "tool_calls": calls,
                    }
                )
        elif event.event == "tool":
            error = None if event.error is None else f"{event.error.type}: {event.error.message}"
            out.append(
                {"type": "tool_result", "t": end, "id": event.id, "text": _text(event.result), "error": error}
            )
        else:
            out.append({"type": "error", "t": start, "text": str(event.error.message)})
    return tuple(out)


def sample_status(sample: Any) -> tuple[str, str]:
    """(status, reason): completed, error or cancelled, with why the sample ended."""
    if sample.error is not None:
        message = str(sample.error.message).splitlines()[0] if sample.error.message else "error"
        cancelled = str(sample.error.message or "").startswith(CANCELLED_ERRORS)
        return ("cancelled" if cancelled else "error"), f"{'cancelled' if cancelled else 'error'}: {message}"
    if sample.limit is not None:
        if sample.limit.type == "operator":
            return "cancelled", "cancelled by the operator"
        return "completed", f"{sample.limit.type} limit"
    return "completed", "completed"


def _trace_text(log: Any, sample: Any, box: Box, path: str) -> str:
    mapping = box.inspect
    assert mapping is not None
    flags = [(r, r.flag) for r in mapping.captures if r.flag is not None]
    timed: list[tuple[float, dict[str, Any]]] = []
    first_model: float | None = None
    work_end = 0.0
    scoring = _scoring_spans(sample.events)
    scorer_calls: list[dict[str, Any]] = []
    for event in sample.events:
        if event.event not in ("model", "tool"):
            continue
        start = float(event.working_start)
        end = start + float(event.working_time or 0.0)
        if event.span_id in scoring:  # a model-graded scorer's call: not the harness's
            if event.event == "model":
                scorer_calls.append(_spend(event, mapping))
            continue
        work_end = max(work_end, end)
        if event.event == "model":
            first_model = start if first_model is None else min(first_model, start)
            timed.append((end, {"type": "model_usage", "t": end, **_spend(event, mapping)}))
            continue
        text = _text(event.result)
        if event.error is not None:
            code: int | None = STATUS_OF_ERROR.get(event.error.type, 500)
        elif event.failed:
            code = mapping.crashed_status
        else:
            code = 200
        call: dict[str, Any] = {
            "type": "tool_call",
            "t": start,
            "tool": event.function,
            "arguments": _jsonable(event.arguments),
            "status": code,
            "duration": end - start,
            "id": event.id,
        }
        if event.error is not None:
            call["inspect_error"] = {"type": event.error.type, "message": event.error.message}
        elif event.failed:
            call["inspect_error"] = {"type": "failed", "message": "the tool raised (a hard error)"}
        if code == 200 and mapping.still_running(event.function, text):
            call["job_state"] = "running"
        timed.append((start, call))
        if event.truncated:
            timed.append(
                (
                    end,
                    {
                        "type": "oversized_payload",
                        "t": end,
                        "tool": event.function,
                        "bytes": int(event.truncated[0]),
                    },
                )
            )
        for rule, flag in flags:
            if flag in text:
                timed.append(
                    (end, {"type": "capture", "t": end, "objective": rule.objective, "by": rule.describe()})
                )
    scores = sample.scores or {}
    for rule in mapping.captures:
        score = scores.get(rule.scorer) if rule.scorer is not None else None
        if score is not None and rule.value is not None and _same(score.value, rule.value):
            # A scorer runs after the agent stops: the capture is dated to the end of the
            # agent's last action (its last model or tool event), which led to it; the
            # scorer's own calls are not counted.
            timed.append(
                (
                    work_end,
                    {"type": "capture", "t": work_end, "objective": rule.objective, "by": rule.describe()},
                )
            )
    timed.sort(key=lambda item: item[0])  # stable: same-time events keep their order
    setup = first_model or 0.0
    status, end_reason = sample_status(sample)
    origin = {
        "format": "inspect_ai",
        "log": path,
        "task": log.eval.task,
        "eval_id": log.eval.eval_id,
        "sample_id": sample.id,
        "epoch": sample.epoch,
        "scores": {name: _jsonable(s.value) for name, s in scores.items()},
        "setup_s": setup,
        "mapping": mapping.to_dict(),
        "agent": _agent(log),
        "status": status,
        "scorer_calls": scorer_calls,
    }
    lines: list[dict[str, Any]] = [
        {
            "type": "run_start",
            "t": 0.0,
            "format": 1,
            "run_id": f"{log.eval.eval_id}/{sample.id}/{sample.epoch}",
            "harness": mapping.harness or _agent(log),
            "model": str(log.eval.model),
            "box": box.id,
            "stage": box.stage,
            "source": origin,
            "unrecorded": UNRECORDED,
        }
    ]
    if setup > 0:
        lines.append({"type": "paused", "t": 0.0, "until": setup, "reason": "preparation"})
    lines += [event for _t, event in timed]
    last_t = max([setup, *(t for t, _e in timed)])
    lines.append({"type": "run_end", "t": last_t, "reason": end_reason, "status": status})
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
