"""Execution = weighted mean of the measured metrics; missing ones are dropped from both
the numerator and the denominator, never counted as 0. Computed exactly from the
metrics' exact values, which the formula shows.

An Execution that rests on an upper-bound Cost (a model call of unknown cost) is itself an
upper bound: tagged `partial`, shown "≤", its formula saying so and giving the worst case
(Cost 0), which is what a board places the run by."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from lattice_desktop.harness.box import EXECUTION_METRICS, Box
from lattice_desktop.harness.metric import PARTIAL, RECORDED, Metric, exact, missing, num, res


def weighted_mean(weights: Mapping[str, float], values: Mapping[str, Fraction]) -> Fraction:
    """Σ weight x value / Σ weight over the metrics in `values` (their weights non-zero in sum)."""
    top = sum((exact(weights[m]) * v for m, v in values.items()), Fraction(0))
    return top / sum((exact(weights[m]) for m in values), Fraction(0))


def execution_metric(box: Box, metrics: dict[str, Metric]) -> Metric:
    weights = box.execution_weights
    measured = [m for m in EXECUTION_METRICS if metrics[m].measured]
    dropped = [m for m in EXECUTION_METRICS if not metrics[m].measured]
    total_weight = sum(weights[m] for m in measured)
    inputs = {"weights": dict(weights), "values": {m: metrics[m].value for m in measured}, "dropped": dropped}
    if total_weight == 0:
        return missing("Execution", "no weighted metric was measured", inputs)
    values = {m: metrics[m].exact_value or Fraction(0) for m in measured}
    value = weighted_mean(weights, values)
    top = " + ".join(f"{num(weights[m])} x {num(values[m])}" for m in measured)
    bottom = " + ".join(num(weights[m]) for m in measured)
    formula = f"Execution = ({top}) / ({bottom}) = {res(value)}"
    notes: tuple[str, ...] = ()
    if dropped:
        formula += f" ({', '.join(m.capitalize() for m in dropped)} not measured: dropped)"
        notes = (f"{', '.join(dropped)} missing: left out of numerator and denominator",)
    bounded = [m for m in measured if metrics[m].at_most]
    if bounded:
        worst = weighted_mean(weights, {**values, **dict.fromkeys(bounded, Fraction(0))})
        names = ", ".join(m.capitalize() for m in bounded)
        formula += f" (at most: {names} is an upper bound; at least {res(worst)} with {names} 0)"
        notes += (f"rests on an upper bound ({names}): at most {res(value)}, at least {res(worst)}",)
    evidence = PARTIAL if dropped or bounded else RECORDED
    return Metric(value, evidence, formula, inputs, notes, at_most=bool(bounded))
