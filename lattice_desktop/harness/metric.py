"""One published metric: its value (or missing), evidence tag, formula and inputs."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from lattice_desktop.formatting import half_up, rounded

# Evidence tags, from strongest to weakest.
RECORDED = "recorded"
"""Computed from events the recorder observed directly (captures, calls, probes)."""
PROVIDER_REPORTED = "provider-reported"
"""Computed from numbers the model provider reported (spend)."""
PRICED = "priced"
"""Computed from token usage priced by the box's declared price table, because the
provider reported no cost (an imported Inspect AI log)."""
PARTIAL = "partial"
"""Computed from part of the evidence; the rest could not be evaluated (see notes)."""
NONE = "none"
"""Nothing to compute from: the metric is missing."""

DIGITS = 6
"""Decimal places a metric value is stored with (two are shown); both rounded half up from
the exact value (`formatting.rounded`, docs/harness.md "Rounding")."""
AT_MOST = "≤"
"""Written before a value that is an upper bound (`Metric.at_most`)."""


@dataclass(frozen=True)
class Metric:
    """A metric on 0..1, or missing (`value is None`, shown as "-", never as 0).

    `formula` is the formula with its inputs filled in, so anyone can recompute the
    value from what is shown; `inputs` holds the same inputs as exact numbers.
    """

    value: float | Fraction | None
    """Rounded to DIGITS decimals (a float); pass a `Fraction` and it becomes `exact`."""
    evidence: str
    formula: str
    inputs: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    exact: Fraction | None = None
    """The exact value, from the inputs as written: what Execution and the ranking use
    (two runs that both show 1.00 may still differ)."""
    at_most: bool = False
    """The value is an upper bound: part of what it rests on is unknown (a Cost with a model
    call of unknown cost, and an Execution computed from such a Cost). Shown as "≤0.88"."""

    def __post_init__(self) -> None:
        if isinstance(self.value, Fraction):
            object.__setattr__(self, "exact", self.value)
        if self.value is not None:
            object.__setattr__(self, "value", float(half_up(self.value, DIGITS)))

    @property
    def measured(self) -> bool:
        return self.value is not None

    @property
    def exact_value(self) -> Fraction | None:
        """`exact`, or for a result stored before exact values were kept, its value."""
        if self.value is None:
            return None
        return self.exact if self.exact is not None else exact(self.value)

    @property
    def shown(self) -> str:
        """The value as every view prints it: two decimals rounded half up from the exact
        value, "≤" before an upper bound, "-" when missing."""
        if self.value is None:
            return "-"
        return f"{AT_MOST if self.at_most else ''}{rounded(self.exact_value)}"

    @property
    def shown_formula(self) -> str:
        """The formula as every page prints it: as stored, each operand the exact value the
        result was computed from, only results rounded (docs/harness.md, "Rounding")."""
        return self.formula

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "evidence": self.evidence,
            "formula": self.formula,
            "inputs": self.inputs,
            "notes": list(self.notes),
            "exact": None if self.exact is None else str(self.exact),
            "at_most": self.at_most,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Metric:
        return cls(
            value=data["value"],
            evidence=data["evidence"],
            formula=data["formula"],
            inputs=dict(data.get("inputs", {})),
            notes=tuple(data.get("notes", ())),
            exact=None if data.get("exact") is None else Fraction(data["exact"]),
            at_most=bool(data.get("at_most", False)),
        )


def missing(name: str, reason: str, inputs: dict[str, Any] | None = None) -> Metric:
    """A metric that could not be measured; `reason` says why."""
    return Metric(None, NONE, f"{name} = - ({reason})", inputs or {}, (reason,))


def exact(x: float | int | Fraction) -> Fraction:
    """A number as written, exactly: a float is read as its shortest decimal (0.1 is
    1/10, not the binary value nearest to it)."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    return Fraction(repr(float(x)))


def _decimal(x: Fraction) -> str | None:
    """`x` as a terminating decimal (at least 2 places), or None when it has none."""
    q, places = x.denominator, 0
    for prime in (2, 5):
        count = 0
        while q % prime == 0:
            q //= prime
            count += 1
        places = max(places, count)
    if q != 1:
        return None
    places = max(places, 2)
    scaled = abs(x.numerator) * 10**places // x.denominator
    digits = str(scaled).rjust(places + 1, "0")
    return f"{'-' if x < 0 else ''}{digits[:-places]}.{digits[-places:]}"


def num(x: float | int | Fraction) -> str:
    """A number as written in a formula, exactly, so a formula recomputes from its text:
    two decimals when that is exact, else full precision (a float's shortest repr; a
    fraction as its exact decimal, or as p/q when it has none). Never rounded: the one
    rule (docs/harness.md, "Rounding") rounds results, not operands."""
    if isinstance(x, int) and not isinstance(x, bool):
        return str(x)
    if isinstance(x, Fraction):
        decimal = _decimal(x)
        return decimal if decimal is not None else f"{x.numerator}/{x.denominator}"
    short = f"{x:.2f}"
    return short if float(short) == x else repr(float(x))


def divisor(x: float | int | Fraction) -> str:
    """`num(x)` where it divides: a fraction in brackets, "/ (5/11)", since "/ 5/11" reads
    as "/ 5 / 11" to anyone recomputing it left to right."""
    text = num(x)
    return f"({text})" if "/" in text else text


def res(x: float | Fraction) -> str:
    """A result as shown: two decimals, rounded half up from the exact value (the same
    digits as `Metric.shown`)."""
    return rounded(x)


def mean_of_parts(name: str, parts: dict[str, Fraction | None]) -> tuple[Fraction | None, str]:
    """Exact mean of the parts that could be evaluated, and its formula ("-" for the others)."""
    present = [v for v in parts.values() if v is not None]
    shown = ", ".join(f"{k} {'-' if v is None else num(v)}" for k, v in parts.items())
    if not present:
        return None, f"{name} = mean({shown}) = -"
    value = sum(present, Fraction(0)) / len(present)
    return value, f"{name} = mean({shown}) = {res(value)}"
