"""Score, Cost and Time: what the run captured, and what it spent in money and time
up to and including its last capture (nothing after it counts)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from lattice_desktop.errors import Location, UserError
from lattice_desktop.harness.box import Box
from lattice_desktop.harness.metric import PROVIDER_REPORTED, RECORDED, Metric, missing, num, res
from lattice_desktop.harness.trace import Capture, ModelUsage, Paused, Trace


@dataclass(frozen=True)
class Progress:
    """The first capture of each objective, in trace order."""

    captures: tuple[Capture, ...]

    @property
    def last(self) -> Capture | None:
        return self.captures[-1] if self.captures else None


def progress(box: Box, trace: Trace) -> Progress:
    """First captures; a capture of an objective the box does not define is an error."""
    firsts: dict[str, Capture] = {}
    for capture in trace.of(Capture):
        if box.objective(capture.objective) is None:
            known = ", ".join(o.id for o in box.objectives)
            raise UserError(f"capture of objective {capture.objective!r}, which box "
                            f"{box.id!r} does not define (it defines {known})",
                            Location(trace.source, capture.line, "objective"))
        firsts.setdefault(capture.objective, capture)
    return Progress(tuple(firsts.values()))


def score_metric(box: Box, got: Progress) -> Metric:
    by_id = {o.id: o for o in box.objectives}
    captured = [by_id[c.objective] for c in got.captures]  # `progress` refused unknown ones
    captured_w = math.fsum(o.weight for o in captured)
    total = box.total_weight
    value = captured_w / total
    terms = " + ".join(f"{o.id} {num(o.weight)}" for o in captured) or "0"
    all_terms = " + ".join(f"{o.id} {num(o.weight)}" for o in box.objectives)
    formula = (f"Score = captured weight / total weight = ({terms}) / ({all_terms}) "
               f"= {num(captured_w)} / {num(total)} = {res(value)}")
    inputs = {"captured": [o.id for o in captured], "captured_weight": captured_w,
              "total_weight": total}
    return Metric(value, RECORDED, formula, inputs)


def spend_to_last_capture(trace: Trace, got: Progress) -> tuple[float, list[int]]:
    """Reported spend on lines before the last capture, and lines whose cost is unknown."""
    last = got.last
    assert last is not None
    costs, unknown = [], []
    for usage in trace.of(ModelUsage):
        if usage.line > last.line:
            break
        if usage.cost_usd is None:
            unknown.append(usage.line)
        else:
            costs.append(usage.cost_usd)
    # Rounded to a billionth of a dollar so a decimal sum stays decimal (1.2, not
    # 1.2000000000000002) and the formula reads as the provider's numbers add up.
    return round(math.fsum(costs), 9), unknown


def cost_metric(box: Box, trace: Trace, got: Progress) -> Metric:
    if got.last is None:
        return missing("Cost", "nothing was captured")
    spend, unknown = spend_to_last_capture(trace, got)
    if unknown:
        lines = ", ".join(map(str, unknown))
        return missing("Cost", f"the provider reported no cost for the model call(s) on "
                               f"line(s) {lines}", {"unreported_lines": unknown})
    budget = box.model_budget_usd
    value = 1 - min(1.0, spend / budget)
    formula = f"Cost = 1 - min(1, {num(spend)} / {num(budget)}) = {res(value)}"
    inputs = {"spend_usd": spend, "budget_usd": budget, "stage": box.stage,
              "last_capture_line": got.last.line}
    return Metric(value, PROVIDER_REPORTED, formula, inputs)


def excluded_seconds(trace: Trace, start: float, end: float) -> float:
    """Seconds of [start, end] covered by paused intervals (overlaps counted once)."""
    spans = sorted((max(p.t, start), min(p.until, end)) for p in trace.of(Paused))
    total, reach = 0.0, start
    for lo, hi in spans:
        lo = max(lo, reach)
        if hi > lo:
            total += hi - lo
            reach = hi
    return total


def elapsed_to_last_capture(trace: Trace, got: Progress) -> tuple[float, float]:
    """Harness running time to the last capture, and the paused seconds left out."""
    assert got.last is not None
    paused = excluded_seconds(trace, trace.start_t, got.last.t)
    return round((got.last.t - trace.start_t) - paused, 6), round(paused, 6)


def time_metric(box: Box, trace: Trace, got: Progress) -> Metric:
    if got.last is None:
        return missing("Time", "nothing was captured")
    elapsed, paused = elapsed_to_last_capture(trace, got)
    deadline = box.deadline_seconds
    value = 1 - min(1.0, elapsed / deadline)
    formula = (f"elapsed = ({num(got.last.t)} - {num(trace.start_t)}) - {num(paused)} paused "
               f"= {num(elapsed)} s; "
               f"Time = 1 - min(1, {num(elapsed)} / {num(deadline)}) = {res(value)}")
    inputs = {"last_capture_t": got.last.t, "run_start_t": trace.start_t,
              "paused_s": paused, "elapsed_s": elapsed, "deadline_s": deadline}
    return Metric(value, RECORDED, formula, inputs)
