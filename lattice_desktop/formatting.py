"""Numbers as people read them: SI-prefixed fuel, grouped integers, short hashes, and
harness metrics rounded exactly (half up) from their fractions."""

from __future__ import annotations

import re
from datetime import datetime
from fractions import Fraction
from functools import lru_cache

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


def half_up(value: Fraction | float | int, places: int) -> Fraction:
    """`value` rounded to `places` decimals, half away from zero, computed exactly.

    A float is read as the decimal it prints as (0.575 is 23/40, not the binary number just
    below it), so the rule gives the same digits whether it starts from the stored fraction
    or from the float a reader copies off the page."""
    if isinstance(value, float):
        value = Fraction(repr(value))
    scale = 10**places
    scaled = abs(Fraction(value)) * scale
    units = scaled.numerator // scaled.denominator
    if scaled - units >= Fraction(1, 2):
        units += 1
    return Fraction(-units if value < 0 else units, scale)


def rounded(value: Fraction | float | int | None, places: int = 2) -> str:
    """The one rule for printing a harness number: exact, half up (23/40 -> "0.58", 3/8 ->
    "0.38", where binary floats once gave "0.57" and "0.38"); "-" for a missing value."""
    if value is None:
        return "-"
    return _fixed(half_up(value, places), places)


def _fixed(value: Fraction, places: int) -> str:
    """A fraction with at most `places` decimals, written with exactly that many."""
    digits = str(int(abs(value) * 10**places)).rjust(places + 1, "0")
    sign = "-" if value < 0 else ""
    return f"{sign}{digits[:-places]}.{digits[-places:]}" if places else f"{sign}{digits}"


# Control characters (C0, DEL, C1), line and paragraph separators, and the format characters
# that reorder or hide text (bidirectional marks, embeddings, overrides and isolates).
UNSAFE = "\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"


@lru_cache(maxsize=8)
def _unsafe(keep: str) -> re.Pattern[str]:
    unsafe = f"[{UNSAFE}]"
    return re.compile(unsafe if not keep else f"(?![{re.escape(keep)}]){unsafe}")


def _escaped(match: re.Match[str]) -> str:
    """`\\u001b`: readable, and still valid where it lands inside a JSON string."""
    return f"\\u{ord(match.group()):04x}"


def printable(value: object, *, keep: str = "") -> str:
    """`value` as text with every control character written as a visible escape (`\\u001b`
    for ESC, `\\u0000` for NUL): how the terminal, the exports and a harness page show
    someone else's text. `keep` names control characters that stay (newlines, tabs)."""
    return _unsafe(keep).sub(_escaped, str(value))
