"""Importing harness runs — JSON Lines traces and Inspect AI logs — each scored against its box
on the calling worker, then inserted through the one Writer.

The box is parsed once for all files; scoring never runs inside the database's write
transaction (a long trace would hold SQLite's write lock for seconds): the writer only
inserts the scored rows, one transaction per file.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from pathlib import Path

from lattice_desktop.errors import UserError
from lattice_desktop.harness import Box, parse_box
from lattice_desktop.harness.box import MAX_BOX_BYTES
from lattice_desktop.harness.inspect_log import is_inspect_log, read_inspect_log
from lattice_desktop.harness.run_files import runs_in_file
from lattice_desktop.resources import RESOURCES
from lattice_desktop.store.harness_runs import insert_runs, score_text
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
    failures: list[str] = field(default_factory=list)
    """Files that failed unexpectedly (a bug): the file and the traceback, one a file. The
    other files are still imported."""


def _runs_in_file(box: Box, path: Path) -> list[tuple[str, str, tuple[dict, ...]]]:
    """Each run of the file with what its transcript needs beyond the trace: an Inspect AI
    sample's messages and tool results (a JSON Lines trace holds everything itself)."""
    if is_inspect_log(path):
        return [(s.source, s.text, s.messages) for s in read_inspect_log(path, box)]
    return [(source, text, ()) for source, text in runs_in_file(box, path)]


def import_traces(
    writer: Writer, box: Path, traces: list[Path], *, work: Work | None = None
) -> ImportOutcome:
    """Score each trace or Inspect AI log against `box` here, and store each file's runs
    through the writer. A bad box stores nothing; a bad file (however it fails) stores
    nothing of its own, is reported, and the others are still stored. Cancelling `work`
    stops between files (those stored stay stored)."""
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
            scored = [
                score_text(parsed, box_text, source, text, messages)
                for source, text, messages in _runs_in_file(parsed, trace)
            ]
        except UserError as exc:
            outcome.errors.append(str(exc))
            continue
        except Exception:  # a bug: reported with its traceback, the other files go on
            outcome.failures.append(f"{trace}: unexpected error\n{traceback.format_exc()}")
            continue
        outcome.stored.extend(writer.call(insert_runs, scored))
    work.report(1.0, f"imported {len(outcome.stored)} of {len(traces)}")
    return outcome
