"""Exporting a run, the runs list and a leaderboard as CSV (for spreadsheets and scripts)
and as one self-contained HTML report with its plots (for people). Qt-free: the CLI's
`export` and the app's File › Export… both call these, on whatever thread reads the
database."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lattice_desktop.errors import Location, UserError
from lattice_desktop.services.exports.csv_text import csv_text
from lattice_desktop.services.exports.harness_export import harness_html, harness_table
from lattice_desktop.services.exports.html_report import leaderboard_html, run_html, runs_html
from lattice_desktop.services.exports.tables import board_table, result_table, runs_table
from lattice_desktop.store.field import Leaderboard
from lattice_desktop.store.fuel_queries import field_best_per_case
from lattice_desktop.store.harness_runs import load_harness_run
from lattice_desktop.store.pages import load_run_page
from lattice_desktop.store.queries import ListedRun
from lattice_desktop.store.run_numbers import no_such_run


@dataclass(frozen=True)
class Export:
    """One export's text, ready to write: `kind` is "csv" or "html"."""

    kind: str
    text: str
    what: str  # "run 12", "the runs list", "the lattice leaderboard": for messages


def run_export(run_id: int, kind: str) -> Export:
    """A stored run's results (CSV) or its report with the fuel plots against the field (HTML)."""
    page = load_run_page(run_id)
    if page is None:
        harness = load_harness_run(run_id)
        if harness is None:
            raise UserError(no_such_run(run_id, command="export"))
        text = csv_text(harness_table(harness)) if kind == "csv" else harness_html(harness)
        return Export(kind, text, f"run {run_id}")
    text = csv_text(result_table(page.run)) if kind == "csv" else run_html(page, field_best_per_case(run_id))
    return Export(kind, text, f"run {run_id}")


def runs_export(runs: Sequence[ListedRun], kind: str, *, scope: str = "") -> Export:
    text = csv_text(runs_table(runs)) if kind == "csv" else runs_html(runs, scope=scope)
    return Export(kind, text, "the runs list")


def board_export(board: Leaderboard, kind: str) -> Export:
    text = csv_text(board_table(board)) if kind == "csv" else leaderboard_html(board)
    return Export(kind, text, f"the {board.case_name} leaderboard")


def write_export(export: Export, path: str | Path) -> Path:
    """Write the export whole or not at all (a temporary file beside it, then a rename), so
    an existing file is never left half overwritten. A path that cannot be written is the
    user's to fix: a located `UserError`."""
    target = Path(path)
    if target.is_dir():
        raise UserError("is a folder; name the file to write", Location(str(target)))
    try:
        handle, scratch = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or Path("."))
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(export.text)
        os.replace(scratch, target)
    except OSError as exc:
        if "scratch" in locals() and Path(scratch).exists():
            Path(scratch).unlink()
        raise UserError(f"cannot write {export.what}: {exc.strerror or exc}", Location(str(target))) from None
    return target
