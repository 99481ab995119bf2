"""Grade many from the app: a folder of submissions graded on a local dask cluster off the
GUI thread, with progress and Cancel in the status bar; stored runs refresh the views as
they land."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from lattice_desktop.batch.cluster import cluster_grader
from lattice_desktop.batch.driver import BatchProgress, BatchResult
from lattice_desktop.batch.field import find_submissions
from lattice_desktop.batch.summary import clock as clock_text
from lattice_desktop.batch.summary import progress_text
from lattice_desktop.manifest import load_case
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui.common import tasks
from lattice_desktop.work import Step, Work

LOCAL_WORKERS = 2
TICK_MS = 1000


def run_batch(case_path: Path, folder: Path, writer: Writer, *, work: Work) -> BatchResult:
    """The worker side: find the submissions, grade them on a local cluster, store each run."""
    grade_on_cluster = cluster_grader()
    case = load_case(case_path)
    submissions, problems = find_submissions([folder])
    result = grade_on_cluster(case, submissions, workers=LOCAL_WORKERS, writer=writer, work=work)
    result.problems[:0] = problems
    return result


class BatchOp(tasks.Op):
    """One batch at a time; `cancel()` stops the cluster's work, keeping only whole runs."""

    progress = Signal(object)  # BatchProgress
    landed = Signal()  # runs were stored
    finished = Signal(object)  # BatchResult
    failed = Signal(str, str)  # message, traceback ("" for a user error)
    cancelled = Signal()

    def __init__(self, writer: Writer, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.writer = writer
        self._work: Work | None = None

    @property
    def running(self) -> bool:
        return self._work is not None

    def start(self, case_path: Path, folder: Path) -> None:
        task = tasks.Task(run_batch, case_path, folder, self.writer, work=True)
        self._work = task.work
        task.signals.progress.connect(self._on_progress)
        task.signals.done.connect(self._on_done)
        task.signals.failed.connect(self._on_failed)
        task.signals.cancelled.connect(self._on_cancelled)
        tasks.start(task)

    def cancel(self) -> None:
        if self._work is not None:
            self._work.cancel()

    @Slot(object)
    def _on_progress(self, step: Step) -> None:
        if isinstance(step.item, BatchProgress):
            self.progress.emit(step.item)
            if step.item.landed:
                self.landed.emit()
                self.changed.emit(tasks.Changed.RUNS | tasks.Changed.SCORES)

    @Slot(object)
    def _on_done(self, result: BatchResult) -> None:
        self._work = None
        self.finished.emit(result)

    @Slot(str, str)
    def _on_failed(self, message: str, details: str) -> None:
        self._work = None
        self.failed.emit(message, details)

    @Slot()
    def _on_cancelled(self) -> None:
        self._work = None
        self.cancelled.emit()


class BatchStatus(QWidget):
    """The batch in the status bar: jobs and runs done, time elapsed and left, and Cancel.
    It ticks every second between the batch's reports (a stress job may take minutes), the
    elapsed time counted from the moment the user asked — the cluster's start included."""

    def __init__(
        self, op: BatchOp, parent: QWidget | None = None, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__(parent)
        self.op = op
        self.clock = clock
        self._began = 0.0
        self._last: tuple[BatchProgress, float] | None = None  # the latest report, when it came
        self._folder = ""
        self.ticker = QTimer(self, interval=TICK_MS)
        self.ticker.timeout.connect(self.tick)
        self.label = QLabel()
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(240)
        self.bar.setFormat("%v of %m jobs")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip(
            "Stop the batch: runs already finished stay stored, nothing half-graded is"
        )
        self.cancel_button.clicked.connect(self.cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.label, self.bar, self.cancel_button):
            layout.addWidget(widget)
        op.progress.connect(self.on_progress)
        for signal in (op.finished, op.failed, op.cancelled):
            signal.connect(self.end)
        self.hide()

    def begin(self, folder: Path) -> None:
        self._began, self._last, self._folder = self.clock(), None, folder.name
        self.bar.setRange(0, 0)
        self.cancel_button.setEnabled(True)
        self.tick()
        self.ticker.start()
        self.show()

    @Slot()
    def end(self) -> None:
        self.ticker.stop()
        self.hide()

    @Slot()
    def tick(self) -> None:
        """Redraw the times as of now: between reports they move on by themselves."""
        if not self.cancel_button.isEnabled():
            return
        now = self.clock()
        if self._last is None:
            self.label.setText(
                f"Grading many: starting a local cluster for {self._folder}… {clock_text(now - self._began)}"
            )
            return
        p, received = self._last
        self.label.setText(f"Grading many: {progress_text(p, since=now - received)}")

    @Slot()
    def cancel(self) -> None:
        self.label.setText("Cancelling the batch…")
        self.cancel_button.setEnabled(False)
        self.op.cancel()

    @Slot(object)
    def on_progress(self, p: BatchProgress) -> None:
        if not self.cancel_button.isEnabled():
            return
        self._last = (p, self.clock())
        self.tick()
        self.bar.setRange(0, max(1, p.jobs_total))
        self.bar.setValue(p.jobs_done)
