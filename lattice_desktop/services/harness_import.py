"""Importing harness runs — JSON Lines traces and Inspect AI logs — each scored against its box
and stored through the one Writer."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lattice_desktop.errors import UserError
from lattice_desktop.harness import parse_box
from lattice_desktop.harness.box import MAX_BOX_BYTES
from lattice_desktop.harness.run_files import runs_in_file
from lattice_desktop.resources import RESOURCES
from lattice_desktop.store.harness_runs import store_run
from lattice_desktop.store.writer import Writer
from lattice_desktop.textfile import read_text
from lattice_desktop.work import Work

BUNDLED_HARNESS = RESOURCES / "harness"


def bundled_examples() -> tuple[Path, list[Path]]:
    """The bundled example box and its traces."""
    return BUNDLED_HARNESS / "webshop.box.toml", sorted((BUNDLED_HARNESS / "traces").glob("*.jsonl"))


@dataclass(frozen=True)
class ImportOutcome:
    stored: list[int] = field(default_factory=list)  # new stored ids, in the files' order
    errors: list[str] = field(default_factory=list)  # "file:line: key: reason", one a file


def import_traces(
    writer: Writer, box: Path, traces: list[Path], *, work: Work | None = None
) -> ImportOutcome:
    """Score and store each trace or Inspect AI log against `box` (read and converted on
    the calling worker; the writes on the writer).

    A bad box stores nothing; a bad file is reported and the others are still stored.
    Cancelling `work` stops between files (those stored stay stored).
    """
    work = work or Work()
    outcome = ImportOutcome()
    try:
        box_text = read_text(box, limit=MAX_BOX_BYTES, what="box file")
        parsed = parse_box(box_text, source=str(box))
    except UserError as exc:
        outcome.errors.append(str(exc))
        return outcome
    for done, trace in enumerate(traces):
        work.raise_if_cancelled()
        work.report(done / len(traces), f"importing {trace.name} ({done + 1} of {len(traces)})")
        try:
            for source, text in runs_in_file(parsed, Path(trace)):
                outcome.stored.append(writer.call(store_run, str(box), box_text, source, text))
        except UserError as exc:
            outcome.errors.append(str(exc))
    work.report(1.0, f"imported {len(outcome.stored)} of {len(traces)}")
    return outcome
