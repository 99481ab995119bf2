"""Stored values read back without trusting them: a time or a figure this version cannot read
becomes None (shown as unknown or "-"), so one damaged row never makes the runs list unusable."""

from __future__ import annotations

from datetime import datetime


def stored_time(value: object) -> datetime | None:
    """A stored timestamp as a datetime, or None when the row holds something else."""
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def stored_number(value: object) -> int | float | None:
    """A stored figure, or None when the row holds something else (SQLite keeps text in a
    number column); shown as "-", never used in a sum or a ranking."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value
