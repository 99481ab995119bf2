"""Harness work from the app, off the GUI thread: importing traces (scored and stored
through the one Writer) and checking that every stored run reproduces."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot

from lattice_desktop.errors import UserError
from lattice_desktop.harness import load_box
from lattice_desktop.resources import RESOURCES
from lattice_desktop.store.harness_runs import import_run
from lattice_desktop.store.ui_queries import HarnessCheck, check_harness_runs
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui import tasks

BUNDLED_HARNESS = RESOURCES / "harness"


def bundled_examples() -> tuple[Path, list[Path]]:
    """The bundled example box and its traces."""
    return BUNDLED_HARNESS / "webshop.box.toml", sorted((BUNDLED_HARNESS / "traces").glob("*.jsonl"))


@dataclass(frozen=True)
class ImportOutcome:
    stored: list[int] = field(default_factory=list)  # new stored ids, in the traces' order
    errors: list[str] = field(default_factory=list)  # "file:line: key: reason", one a file


def import_traces(writer: Writer, box: Path, traces: list[Path]) -> ImportOutcome:
    """Score and store each trace against `box` (on a worker; the writes on the writer).

    A bad box stores nothing; a bad trace is reported and the others are still stored.
    """
    outcome = ImportOutcome()
    try:
        load_box(box)
    except UserError as exc:
        outcome.errors.append(str(exc))
        return outcome
    for trace in traces:
        try:
            outcome.stored.append(writer.call(import_run, box, trace))
        except UserError as exc:
            outcome.errors.append(str(exc))
    return outcome


class HarnessOps(QObject):
    """Starts imports and checks; their outcomes come back on the GUI thread."""

    imported = Signal(object, bool)  # ImportOutcome, whether to open the newest run
    checked = Signal(object)  # HarnessCheck
    failed = Signal(str, str)  # message, traceback: a bug

    def __init__(self, writer: Writer, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.writer = writer
        self.pending = 0

    @property
    def busy(self) -> bool:
        return self.pending > 0

    def import_runs(self, box: Path, traces: list[Path], *, open_newest: bool = True) -> None:
        slot = self._on_imported_open if open_newest else self._on_imported_quiet
        self._start(tasks.Task(import_traces, self.writer, box, list(traces)), slot)

    def check(self) -> None:
        self._start(tasks.Task(check_harness_runs), self._on_checked)

    def _start(self, task: tasks.Task, on_done) -> None:
        task.signals.done.connect(on_done)
        task.signals.failed.connect(self._on_failed)
        self.pending += 1
        tasks.start(task)

    @Slot(object)
    def _on_imported_open(self, outcome: ImportOutcome) -> None:
        self.pending -= 1
        self.imported.emit(outcome, True)

    @Slot(object)
    def _on_imported_quiet(self, outcome: ImportOutcome) -> None:
        self.pending -= 1
        self.imported.emit(outcome, False)

    @Slot(object)
    def _on_checked(self, check: HarnessCheck) -> None:
        self.pending -= 1
        self.checked.emit(check)

    @Slot(str, str)
    def _on_failed(self, message: str, details: str) -> None:
        self.pending -= 1
        self.failed.emit(message, details)


def check_message(check: HarnessCheck) -> tuple[str, str]:
    """The message bar's text and kind for a finished check."""
    if check.count == 0:
        return "No harness runs are stored yet — File > Import harness run…", "info"
    if not check.problems:
        return (f"✓ All {check.count} stored harness runs reproduce from their stored box and "
                "trace.", "info")
    lines = [f"{check.reproduced} of {check.count} stored harness runs reproduce; "
             f"{len(check.problems)} do not — a scoring bug, please report it:"]
    for stored_id, problems in check.problems:
        lines += [f"run #{stored_id}: {problem}" for problem in problems]
    return "\n".join(lines), "error"
