"""Execution = weighted mean of the measured metrics; missing ones are dropped from both
the numerator and the denominator, never counted as 0. Computed exactly from the
metrics' exact values, which the formula shows."""

from __future__ import annotations

from fractions import Fraction

from lattice_desktop.harness.box import EXECUTION_METRICS, Box
from lattice_desktop.harness.metric import PARTIAL, RECORDED, Metric, exact, missing, num, res


def execution_metric(box: Box, metrics: dict[str, Metric]) -> Metric:
    weights = box.execution_weights
    measured = [m for m in EXECUTION_METRICS if metrics[m].measured]
    dropped = [m for m in EXECUTION_METRICS if not metrics[m].measured]
    total_weight = sum(weights[m] for m in measured)
    inputs = {"weights": dict(weights), "values": {m: metrics[m].value for m in measured}, "dropped": dropped}
    if total_weight == 0:
        return missing("Execution", "no weighted metric was measured", inputs)
    values = {m: metrics[m].exact_value or Fraction(0) for m in measured}
    value = sum((exact(weights[m]) * values[m] for m in measured), Fraction(0)) / sum(
        exact(weights[m]) for m in measured
    )
    top = " + ".join(f"{num(weights[m])} x {num(values[m])}" for m in measured)
    bottom = " + ".join(num(weights[m]) for m in measured)
    formula = f"Execution = ({top}) / ({bottom}) = {res(value)}"
    notes: tuple[str, ...] = ()
    if dropped:
        formula += f" ({', '.join(m.capitalize() for m in dropped)} not measured: dropped)"
        notes = (f"{', '.join(dropped)} missing: left out of numerator and denominator",)
    return Metric(value, PARTIAL if dropped else RECORDED, formula, inputs, notes)
