"""Score, Cost and Time: what the run captured, and what it spent in money and time
up to and including its last capture (nothing after it counts)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from lattice_desktop.errors import Location, UserError
from lattice_desktop.harness.box import Box
from lattice_desktop.harness.metric import (
    PARTIAL,
    PRICED,
    PROVIDER_REPORTED,
    RECORDED,
    Metric,
    divisor,
    exact,
    missing,
    num,
    res,
)
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
            raise UserError(
                f"capture of objective {capture.objective!r}, which box "
                f"{box.id!r} does not define (it defines {known})",
                Location(trace.source, capture.line, "objective"),
            )
        firsts.setdefault(capture.objective, capture)
    return Progress(tuple(firsts.values()))


def captured_fraction(box: Box, got: Progress) -> Fraction:
    """Exactly captured weight / total weight: Score's value, and what Cost and Time divide by."""
    by_id = {o.id: o for o in box.objectives}
    captured_w = sum((exact(by_id[c.objective].weight) for c in got.captures), Fraction(0))
    return captured_w / sum((exact(o.weight) for o in box.objectives), Fraction(0))


def score_metric(box: Box, got: Progress) -> Metric:
    """Exactly captured weight / total weight: 10,000,000 of 10,000,001 is below 1."""
    by_id = {o.id: o for o in box.objectives}
    captured = [by_id[c.objective] for c in got.captures]  # `progress` refused unknown ones
    captured_w = sum((exact(o.weight) for o in captured), Fraction(0))
    total = sum((exact(o.weight) for o in box.objectives), Fraction(0))
    value = captured_w / total
    terms = " + ".join(f"{o.id} {num(o.weight)}" for o in captured) or "0"
    all_terms = " + ".join(f"{o.id} {num(o.weight)}" for o in box.objectives)
    formula = (
        f"Score = captured weight / total weight = ({terms}) / ({all_terms}) "
        f"= {num(captured_w)} / {num(total)} = {res(value)}"
    )
    inputs = {
        "captured": [o.id for o in captured],
        "captured_weight": float(captured_w),
        "total_weight": float(total),
    }
    return Metric(value, RECORDED, formula, inputs)


def spend_to_last_capture(trace: Trace, got: Progress) -> tuple[Fraction, list[int], list[str]]:
    """Reported spend on lines before the last capture, summed exactly as the provider's
    decimal numbers add up (1.2, not 1.2000000000000002); lines whose cost is unknown; and
    how each priced (not reported) cost was obtained."""
    last = got.last
    assert last is not None
    spend, unknown, priced = Fraction(0), [], []
    for usage in trace.of(ModelUsage):
        if usage.line > last.line:
            break
        if usage.priced:
            priced.append(f"line {usage.line}: {usage.priced}")
        if usage.cost_usd is None:
            unknown.append(usage.line)
        else:
            spend += exact(usage.cost_usd)
    return spend, unknown, priced


def cost_metric(box: Box, trace: Trace, got: Progress) -> Metric:
    """Cost per unit of progress. A model call before the last capture whose cost is
    unknown makes the known spend a lower bound: Cost is then an upper bound, tagged
    `partial`, and the run is unranked until its cost is known (`unranked_reason`), so
    hiding a cost can never raise a run above the same run with its cost reported."""
    if got.last is None:
        return missing("Cost", "nothing was captured")
    spend, unknown, priced = spend_to_last_capture(trace, got)
    detail: dict[str, object] = {"priced": priced} if priced else {}
    budget = box.model_budget_usd
    captured = captured_fraction(box, got)
    value = 1 - min(Fraction(1), spend / exact(budget) / captured)
    inputs = {
        "spend_usd": float(spend),
        "budget_usd": budget,
        "stage": box.stage,
        "last_capture_line": got.last.line,
        **detail,
    }
    formula = f"Cost = 1 - min(1, ({num(spend)} / {num(exact(budget))}) / {divisor(captured)}) = {res(value)}"
    if unknown:
        lines = ", ".join(map(str, unknown))
        note = (
            f"the cost of the model call(s) on line(s) {lines} is unknown: {num(spend)} is the "
            "known spend, a lower bound, so this Cost is an upper bound and the run is "
            "not ranked until its cost is known (on a board it is placed at its worst, Cost 0)"
        )
        return Metric(
            value,
            PARTIAL,
            f"{formula} (at most: spend at least {num(spend)}, line(s) {lines} unknown)",
            {**inputs, "unreported_lines": unknown},
            (note,),
            at_most=True,
        )
    return Metric(value, PRICED if priced else PROVIDER_REPORTED, formula, inputs)


def excluded_seconds(trace: Trace, start: Fraction, end: Fraction) -> Fraction:
    """Seconds of [start, end] covered by paused intervals (overlaps counted once)."""
    spans = sorted((max(exact(p.t), start), min(exact(p.until), end)) for p in trace.of(Paused))
    total, reach = Fraction(0), start
    for first, hi in spans:
        lo = max(first, reach)
        if hi > lo:
            total += hi - lo
            reach = hi
    return total


def pauses_within(trace: Trace, start: Fraction, end: Fraction) -> list[Paused]:
    """The pauses that cover part of [start, end]: those Time leaves out (its evidence)."""
    return [p for p in trace.of(Paused) if min(exact(p.until), end) > max(exact(p.t), start)]


def elapsed_to_last_capture(trace: Trace, got: Progress) -> tuple[Fraction, Fraction]:
    """Harness running time to the last capture, and the paused seconds left out (exact)."""
    assert got.last is not None
    start, last = exact(trace.start_t), exact(got.last.t)
    paused = excluded_seconds(trace, start, last)
    return (last - start) - paused, paused


def time_metric(box: Box, trace: Trace, got: Progress) -> Metric:
    if got.last is None:
        return missing("Time", "nothing was captured")
    elapsed, paused = elapsed_to_last_capture(trace, got)
    deadline = exact(box.deadline_seconds)
    captured = captured_fraction(box, got)
    value = 1 - min(Fraction(1), elapsed / deadline / captured)
    formula = (
        f"elapsed = ({num(exact(got.last.t))} - {num(exact(trace.start_t))}) - "
        f"{num(paused)} paused = {num(elapsed)} s; "
        f"Time = 1 - min(1, ({num(elapsed)} / {num(deadline)}) / {divisor(captured)}) = {res(value)}"
    )
    inputs = {
        "last_capture_t": got.last.t,
        "run_start_t": trace.start_t,
        "paused_s": float(paused),
        "elapsed_s": float(elapsed),
        "deadline_s": box.deadline_seconds,
    }
    return Metric(value, RECORDED, formula, inputs)
