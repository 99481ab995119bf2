"""Stored values read back without trusting them: a time this version cannot read becomes
None (shown as unknown), so one damaged row never makes the runs list unusable."""

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
