"""Numbers as people read them: SI-prefixed fuel, grouped integers, short hashes."""

from __future__ import annotations

from datetime import datetime

_PREFIXES = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def si(value: float | int | None, unit: str = "") -> str:
    """1234567 -> '1.23 M' (with the unit appended when given)."""
    if value is None:
        return "-"
    sign = "-" if value < 0 else ""
    value = abs(value)
    for scale, prefix in _PREFIXES:
        if value >= scale:
            text = f"{value / scale:.3g}"
            return f"{sign}{text} {prefix} {unit}".rstrip()
    return f"{sign}{value:g} {unit}".rstrip()


def fuel(value: int | None) -> str:
    return si(value, "fuel") if value is not None else "-"


def grouped(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def percent(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}%"


def short_hash(value: int | str | None) -> str:
    """A u64 or hex digest shortened to 4…4 hex digits."""
    if value is None:
        return "-"
    text = f"{value:016x}" if isinstance(value, int) else value
    return text if len(text) <= 10 else f"{text[:4]}…{text[-4:]}"


def moment(value: datetime | None, pattern: str = "%Y-%m-%d %H:%M", *, local: bool = False) -> str:
    """A stored time as text ("unknown" when the row's time could not be read)."""
    if value is None:
        return "unknown"
    return (value.astimezone() if local else value).strftime(pattern)
