"""Importing harness traces: each scored against its box and stored through the one Writer."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lattice_desktop.errors import UserError
from lattice_desktop.harness import load_box
from lattice_desktop.resources import RESOURCES
from lattice_desktop.store.harness_runs import import_run
from lattice_desktop.store.writer import Writer
from lattice_desktop.work import Work

BUNDLED_HARNESS = RESOURCES / "harness"


def bundled_examples() -> tuple[Path, list[Path]]:
    """The bundled example box and its traces."""
    return BUNDLED_HARNESS / "webshop.box.toml", sorted((BUNDLED_HARNESS / "traces").glob("*.jsonl"))


@dataclass(frozen=True)
class ImportOutcome:
    stored: list[int] = field(default_factory=list)  # new stored ids, in the traces' order
    errors: list[str] = field(default_factory=list)  # "file:line: key: reason", one a file


def import_traces(writer: Writer, box: Path, traces: list[Path], *,
                  work: Work | None = None) -> ImportOutcome:
    """Score and store each trace against `box` (on a worker; the writes on the writer).

    A bad box stores nothing; a bad trace is reported and the others are still stored.
    Cancelling `work` stops between traces (those stored stay stored).
    """
    work = work or Work()
    outcome = ImportOutcome()
    try:
        load_box(box)
    except UserError as exc:
        outcome.errors.append(str(exc))
        return outcome
    for done, trace in enumerate(traces):
        work.raise_if_cancelled()
        work.report(done / len(traces), f"importing {trace.name} ({done + 1} of {len(traces)})")
        try:
            outcome.stored.append(writer.call(import_run, box, trace))
        except UserError as exc:
            outcome.errors.append(str(exc))
    work.report(1.0, f"imported {len(outcome.stored)} of {len(traces)}")
    return outcome
