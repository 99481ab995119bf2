"""A run id as the command line names it: ASCII digits, from 1 to the largest id the store can hold.

`int()` alone is too kind and too trusting: it takes ' 7 ', '+7', '7_0' and other scripts'
digits ('٣' is 3), so the id a user sees is not the id a command touches, and it takes numbers
past 2^63 - 1, which SQLite cannot bind (an OverflowError, reported as a bug). Every run-id
argument goes through `run_id` instead, so a bad one is a usage error (exit 2) naming it.
"""

from __future__ import annotations

import argparse
import os
import re

from lattice_desktop.cli.terminal import shown
from lattice_desktop.errors import UserError

# SQLite's INTEGER (and PostgreSQL's bigint) hold at most a signed 64-bit value.
LARGEST_RUN_ID = 2**63 - 1
_DIGITS = re.compile(r"[0-9]+")


def looks_like_run_id(text: str) -> bool:
    """Whether `text` is written as a run id (ASCII digits only), in range or not."""
    return _DIGITS.fullmatch(text) is not None


def run_id(text: str) -> int:
    """An argparse type: a run id, or an `ArgumentTypeError` saying what a run id is."""
    if not looks_like_run_id(text):
        raise argparse.ArgumentTypeError(
            f"'{_short(text)}' is not a run id (run ids are written in the digits 0-9; see `runs`)"
        )
    digits = text.lstrip("0")
    # Compared as text first: int() refuses more than 4,300 digits, and no id has more than 19.
    if not digits or len(digits) > len(str(LARGEST_RUN_ID)) or int(digits) > LARGEST_RUN_ID:
        raise argparse.ArgumentTypeError(
            f"no run {_short(text)}: run ids go from 1 to {LARGEST_RUN_ID} (see `runs`)"
        )
    return int(digits)


def _short(text: str) -> str:
    """`text` escaped, and cut when it is too long to read."""
    return shown(text if len(text) <= 40 else f"{text[:20]}…{text[-10:]} ({len(text)} characters)")


def run_id_or_path(text: str) -> int | None:
    """A run id when `text` is one, None when it names something else (a path), and a
    `UserError` when it reads as a number (to `int()`, or with its sign or other digits) that
    is no run id and names no file either."""
    if looks_like_run_id(text):
        try:
            return run_id(text)
        except argparse.ArgumentTypeError as exc:
            raise UserError(str(exc)) from None
    if _numeric(text) and not os.path.lexists(text):
        raise UserError(f"'{_short(text)}' is neither a run id (digits 0-9, from 1; see `runs`) nor a path")
    return None


def _numeric(text: str) -> bool:
    if text.strip().lstrip("+-").replace("_", "").isdigit():
        return True
    try:
        int(text)
    except ValueError:
        return False
    return True
