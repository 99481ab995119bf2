"""`score(box, trace)`: every metric of one run, and `verify` to recompute a stored one.

`score` is a pure, deterministic function of the box and the trace: the same inputs
give the same result, byte for byte in JSON, so a stored run can always be re-checked.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from lattice_desktop.errors import Location, UserError
from lattice_desktop.harness.box import Box
from lattice_desktop.harness.compliance import compliance_metric
from lattice_desktop.harness.execution import execution_metric
from lattice_desktop.harness.focus import Loop, focus_metric
from lattice_desktop.harness.history import CallIndex
from lattice_desktop.harness.metric import Metric
from lattice_desktop.harness.progress import (
    cost_metric,
    elapsed_to_last_capture,
    progress,
    score_metric,
    time_metric,
)
from lattice_desktop.harness.tools_check import ToolFinding, tools_metric
from lattice_desktop.harness.trace import MalformedRequest, ToolCall, Trace

SCORER_VERSION = 5
"""Bumped whenever a formula changes, so old stored results are not silently compared
with a different definition. 4: display rounding exact and half up; an Execution resting
on an upper-bound Cost is a bound (`at_most`). 5: no operand is approximated ("≈"): a
fraction without a finite decimal is written p/q, bracketed where it divides."""
METRIC_ORDER = ("score", "cost", "focus", "time", "compliance", "tools")


@dataclass(frozen=True)
class HarnessResult:
    run_id: str
    harness: str
    model: str
    box: str
    stage: str
    metrics: dict[str, Metric]
    """score, cost, focus, time, compliance, tools: in that order."""
    execution: Metric
    loops: tuple[Loop, ...]
    tool_findings: tuple[ToolFinding, ...]
    last_capture_elapsed_s: float | None
    """Harness running time to the last capture: the first tie-breaker."""
    spend_to_last_capture_usd: float | None
    scorer_version: int = SCORER_VERSION
    origin: dict[str, Any] = field(default_factory=dict)
    status: str = "completed"
    """How the run ended: completed, error or cancelled (an Inspect AI sample's status)."""
    unranked: str | None = None
    """Why the run is kept out of the ranking (errored or cancelled, or its Cost unknown);
    None for a ranked run."""
    """Where a converted run came from (the trace's run_start `source`), e.g. the Inspect
    AI log, the sample id and epoch, and the box's mapping that was used."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "scorer_version": self.scorer_version,
            "run_id": self.run_id,
            "harness": self.harness,
            "model": self.model,
            "box": self.box,
            "stage": self.stage,
            "metrics": {name: m.to_dict() for name, m in self.metrics.items()},
            "execution": self.execution.to_dict(),
            "loops": [loop.to_dict() for loop in self.loops],
            "tool_findings": [f.to_dict() for f in self.tool_findings],
            "last_capture_elapsed_s": self.last_capture_elapsed_s,
            "spend_to_last_capture_usd": self.spend_to_last_capture_usd,
            "origin": self.origin,
            "status": self.status,
            "unranked": self.unranked,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HarnessResult:
        return cls(
            run_id=data["run_id"],
            harness=data["harness"],
            model=data["model"],
            box=data["box"],
            stage=data["stage"],
            metrics={name: Metric.from_dict(m) for name, m in data["metrics"].items()},
            execution=Metric.from_dict(data["execution"]),
            loops=tuple(Loop.from_dict(d) for d in data["loops"]),
            tool_findings=tuple(ToolFinding.from_dict(d) for d in data["tool_findings"]),
            last_capture_elapsed_s=data["last_capture_elapsed_s"],
            spend_to_last_capture_usd=data["spend_to_last_capture_usd"],
            scorer_version=data["scorer_version"],
            origin=dict(data.get("origin", {})),
            status=data.get("status", "completed"),
            unranked=data.get("unranked"),
        )

    @classmethod
    def from_json(cls, text: str) -> HarnessResult:
        try:
            return cls.from_dict(json.loads(text))
        except (ValueError, KeyError, TypeError) as exc:  # ValueError: bad JSON or fraction
            raise UserError(f"not a stored harness result: {exc}") from None


def _check_match(box: Box, trace: Trace) -> None:
    where = Location(trace.source, trace.start_line, "box")
    if trace.box != box.id:
        raise UserError(
            f"the trace was recorded against box {trace.box!r}, not {box.id!r} ({box.source})", where
        )
    if trace.stage is not None and trace.stage != box.stage:
        raise UserError(
            f"the trace was recorded in stage {trace.stage!r}, but box "
            f"{box.id!r} belongs to stage {box.stage!r}",
            Location(trace.source, trace.start_line, "stage"),
        )


def score(box: Box, trace: Trace) -> HarnessResult:
    """Every metric of one run. Raises `UserError` if the trace does not fit the box."""
    _check_match(box, trace)
    got = progress(box, trace)
    index = CallIndex(box, trace.of(ToolCall))
    focus, loops = focus_metric(index)
    tools, findings = tools_metric(box, index, trace.of(MalformedRequest))
    metrics = {
        "score": score_metric(box, got),
        "cost": cost_metric(box, trace, got),
        "focus": focus,
        "time": time_metric(box, trace, got),
        "compliance": compliance_metric(trace),
        "tools": tools,
    }
    elapsed = float(elapsed_to_last_capture(trace, got)[0]) if got.last else None
    execution = execution_metric(box, metrics)
    return HarnessResult(
        run_id=trace.run_id,
        harness=trace.harness,
        model=trace.model,
        box=box.id,
        stage=box.stage,
        metrics=metrics,
        execution=execution,
        loops=tuple(loops),
        tool_findings=tuple(findings),
        last_capture_elapsed_s=elapsed,
        spend_to_last_capture_usd=metrics["cost"].inputs.get("spend_usd"),
        origin=trace.origin,
        status=trace.status,
        unranked=unranked_reason(box, trace, metrics["cost"]),
    )


def unranked_reason(box: Box, trace: Trace, cost: Metric) -> str | None:
    """Why a run is kept out of the ranking, or None: an errored or cancelled run (unless
    the box sets `rank_unfinished`), and a run whose spend to its last capture is not all
    known (an unknown cost must never help: docs/harness.md, "Unknown cost")."""
    if trace.status != "completed" and not box.rank_unfinished:
        why = f": {trace.end_reason}" if trace.end_reason else ""
        return f"the run ended with status {trace.status}{why}"
    unknown = cost.inputs.get("unreported_lines")
    if unknown:
        lines = ", ".join(map(str, unknown))
        return f"its Cost is not known: no cost for the model call(s) on line(s) {lines}"
    return None


def verify(box: Box, trace: Trace, stored: HarnessResult) -> list[str]:
    """Recompute a stored run; one line per stored value that does not reproduce."""
    fresh = score(box, trace).to_dict()
    old = stored.to_dict()
    problems = []
    if old["scorer_version"] != fresh["scorer_version"]:
        problems.append(
            f"scored by scorer version {old['scorer_version']}, this is version {fresh['scorer_version']}"
        )
    for name in (*METRIC_ORDER, "execution"):
        was = old["execution"] if name == "execution" else old["metrics"].get(name)
        now = fresh["execution"] if name == "execution" else fresh["metrics"][name]
        if was is None:
            problems.append(f"{name}: not stored")
            continue
        problems.extend(
            f"{name}: stored {key} {was.get(key)!r}, recomputed {now[key]!r}"
            for key in ("value", "exact", "at_most", "evidence", "formula", "inputs")
            if was.get(key) != now[key]
        )
    compared = (
        "run_id",
        "harness",
        "model",
        "box",
        "stage",
        "loops",
        "tool_findings",
        "last_capture_elapsed_s",
        "spend_to_last_capture_usd",
        "origin",
        "status",
        "unranked",
    )
    problems.extend(
        f"{key}: stored {old[key]!r}, recomputed {fresh[key]!r}" for key in compared if old[key] != fresh[key]
    )
    return problems
