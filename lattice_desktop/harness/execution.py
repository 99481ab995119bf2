"""Execution = weighted mean of the measured metrics; missing ones are dropped from both
the numerator and the denominator, never counted as 0."""

from __future__ import annotations

from lattice_desktop.harness.box import EXECUTION_METRICS, Box
from lattice_desktop.harness.metric import PARTIAL, RECORDED, Metric, missing, num, res


def execution_metric(box: Box, metrics: dict[str, Metric]) -> Metric:
    weights = box.execution_weights
    values = {m: v for m in EXECUTION_METRICS if (v := metrics[m].value) is not None}
    measured = list(values)
    dropped = [m for m in EXECUTION_METRICS if m not in values]
    total_weight = sum(weights[m] for m in measured)
    inputs = {"weights": dict(weights), "values": values, "dropped": dropped}
    if total_weight == 0:
        return missing("Execution", "no weighted metric was measured", inputs)
    value = sum(weights[m] * values[m] for m in measured) / total_weight
    top = " + ".join(f"{num(weights[m])} x {num(values[m])}" for m in measured)
    bottom = " + ".join(num(weights[m]) for m in measured)
    formula = f"Execution = ({top}) / ({bottom}) = {res(value)}"
    notes: tuple[str, ...] = ()
    if dropped:
        formula += f" ({', '.join(m.capitalize() for m in dropped)} not measured: dropped)"
        notes = (f"{', '.join(dropped)} missing: left out of numerator and denominator",)
    return Metric(value, PARTIAL if dropped else RECORDED, formula, inputs, notes)
