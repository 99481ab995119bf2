"""One published metric: its value (or missing), evidence tag, formula and inputs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Evidence tags, from strongest to weakest.
RECORDED = "recorded"
"""Computed from events the recorder observed directly (captures, calls, probes)."""
PROVIDER_REPORTED = "provider-reported"
"""Computed from numbers the model provider reported (spend)."""
PARTIAL = "partial"
"""Computed from part of the evidence; the rest could not be evaluated (see notes)."""
NONE = "none"
"""Nothing to compute from: the metric is missing."""

DIGITS = 6
"""Decimal places a metric value is stored with (two are shown)."""


@dataclass(frozen=True)
class Metric:
    """A metric on 0..1, or missing (`value is None`, shown as "-", never as 0).

    `formula` is the formula with its inputs filled in, so anyone can recompute the
    value from what is shown; `inputs` holds the same inputs as exact numbers.
    """

    value: float | None
    evidence: str
    formula: str
    inputs: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Stored values are rounded once, here, so that Execution and the ranking are
        # computed from exactly the values that are stored and shown in formulas.
        if self.value is not None:
            object.__setattr__(self, "value", round(float(self.value), DIGITS))

    @property
    def measured(self) -> bool:
        return self.value is not None

    @property
    def shown(self) -> str:
        """The value as the leaderboard shows it: two decimals, or "-" when missing."""
        return "-" if self.value is None else f"{self.value:.2f}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "evidence": self.evidence,
            "formula": self.formula,
            "inputs": self.inputs,
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Metric:
        return cls(
            value=data["value"],
            evidence=data["evidence"],
            formula=data["formula"],
            inputs=dict(data.get("inputs", {})),
            notes=tuple(data.get("notes", ())),
        )


def missing(name: str, reason: str, inputs: dict[str, Any] | None = None) -> Metric:
    """A metric that could not be measured; `reason` says why."""
    return Metric(None, NONE, f"{name} = - ({reason})", inputs or {}, (reason,))


def num(x: float | int) -> str:
    """A number as written in a formula: two decimals when exact, else full precision.

    Full precision (Python's shortest round-trip repr) keeps every formula exactly
    recomputable from its text.
    """
    if isinstance(x, int) and not isinstance(x, bool):
        return str(x)
    short = f"{x:.2f}"
    return short if float(short) == x else repr(float(x))


def res(x: float) -> str:
    """A result as shown: two decimals of the stored (rounded) value."""
    return f"{round(x, DIGITS):.2f}"


def part(x: float) -> float:
    """An intermediate value, rounded like a stored one so formulas recompute exactly."""
    return round(x, DIGITS)


def mean_of_parts(name: str, parts: dict[str, float | None]) -> tuple[float | None, str]:
    """Mean of the parts that could be evaluated, and its formula ("-" for the others)."""
    parts = {k: None if v is None else part(v) for k, v in parts.items()}
    present = [v for v in parts.values() if v is not None]
    shown = ", ".join(f"{k} {'-' if v is None else num(v)}" for k, v in parts.items())
    if not present:
        return None, f"{name} = mean({shown}) = -"
    value = sum(present) / len(present)
    return value, f"{name} = mean({shown}) = {res(value)}"
