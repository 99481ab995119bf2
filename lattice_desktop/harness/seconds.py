"""Seconds as a run page prints them: to the millisecond, thousands grouped, as the
Transcript's Time column does ("0.014", "1,512.000"); the exact value stays in the JSON."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

PLACES = Decimal("0.001")


def seconds(value: object) -> str:
    """`value` (seconds, as a trace or a log wrote it) to three decimals, half up from the
    number as written; anything that is not a number is shown as it is."""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal | str):
        return str(value)
    try:
        exact = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
        return f"{exact.quantize(PLACES, rounding=ROUND_HALF_UP):,}"
    except (InvalidOperation, ValueError):
        return str(value)
