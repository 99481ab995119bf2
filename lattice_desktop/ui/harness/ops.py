"""Harness work from the app, off the GUI thread: importing traces (scored and stored
through the one Writer) and checking that every stored run reproduces."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot

from lattice_desktop.services.harness_import import ImportOutcome, import_traces
from lattice_desktop.store.pages import HarnessCheck, check_harness_runs
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui.common import tasks
from lattice_desktop.work import Step, Work


class HarnessOps(tasks.Op):
    """Starts imports and checks; their outcomes come back on the GUI thread."""

    imported = Signal(object, bool)  # ImportOutcome, whether to open the newest run
    checked = Signal(object)  # HarnessCheck
    failed = Signal(str, str)  # message, traceback: a bug
    progress = Signal(object)  # Step of a running import

    def __init__(self, writer: Writer, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.writer = writer
        self.pending = 0
        self._imports: list[Work | None] = []  # while any task runs (cancelling a finished one is harmless)

    @property
    def busy(self) -> bool:
        return self.pending > 0

    def import_runs(self, box: Path, traces: list[Path], *, open_newest: bool = True) -> None:
        slot = self._on_imported_open if open_newest else self._on_imported_quiet
        task = tasks.Task(import_traces, self.writer, box, list(traces), work=True)
        self._imports.append(task.work)
        task.signals.progress.connect(self._on_progress)
        task.signals.cancelled.connect(self._on_cancelled)
        self._start(task, slot)

    def cancel(self) -> None:
        """Stop running imports between traces (what they stored stays stored)."""
        for work in self._imports:
            if work is not None:
                work.cancel()

    def check(self) -> None:
        self._start(tasks.Task(check_harness_runs), self._on_checked)

    def _start(self, task: tasks.Task, on_done) -> None:
        task.signals.done.connect(on_done)
        task.signals.failed.connect(self._on_failed)
        self.pending += 1
        tasks.start(task)

    @Slot(object)
    def _on_progress(self, step: Step) -> None:
        self.progress.emit(step)

    @Slot()
    def _on_cancelled(self) -> None:
        self._finished()

    def _finished(self) -> None:
        self.pending -= 1
        if self.pending == 0:
            self._imports.clear()

    @Slot(object)
    def _on_imported_open(self, outcome: ImportOutcome) -> None:
        self._finished()
        self.imported.emit(outcome, True)

    @Slot(object)
    def _on_imported_quiet(self, outcome: ImportOutcome) -> None:
        self._finished()
        self.imported.emit(outcome, False)

    @Slot(object)
    def _on_checked(self, check: HarnessCheck) -> None:
        self._finished()
        self.checked.emit(check)

    @Slot(str, str)
    def _on_failed(self, message: str, details: str) -> None:
        self._finished()
        self.failed.emit(message, details)


def check_message(check: HarnessCheck) -> tuple[str, str]:
    """The message bar's text and kind for a finished check."""
    if check.count == 0:
        return "No harness runs are stored yet — File > Import harness run…", "info"
    if not check.problems:
        return (f"✓ All {check.count} stored harness runs reproduce from their stored box and trace.", "info")
    lines = [
        f"{check.reproduced} of {check.count} stored harness runs reproduce; "
        f"{len(check.problems)} do not — a scoring bug, please report it:"
    ]
    for stored_id, problems in check.problems:
        lines += [f"run #{stored_id}: {problem}" for problem in problems]
    return "\n".join(lines), "error"
