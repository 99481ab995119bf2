"""Grading from the app: a queue of jobs run one at a time off the GUI thread through
`grade_and_store`, with progress, cancel, and the outcome reported through signals."""

from __future__ import annotations

from collections import deque

from PySide6.QtCore import QObject, Signal, Slot

from lattice_desktop.services.grade_jobs import GradeJob, run_job
from lattice_desktop.services.grading import StoredGrade
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui.common import tasks
from lattice_desktop.work import Step, Work


class GradeOp(tasks.Op):
    """Runs queued jobs one after another; `cancel()` stops the running one (wasm is
    interrupted by the core) and drops the queue. `changed` says a run was created (RUNS)
    and that it was stored finished (RUNS | SCORES)."""

    job_started = Signal(object)  # GradeJob
    run_created = Signal()  # the run exists in the database, marked running
    progress = Signal(object)  # Step, its item a GradingStep
    graded = Signal(object)  # StoredGrade
    failed = Signal(str, str)  # message, traceback ("" for a user error)
    cancelled = Signal()
    idle = Signal()  # the queue is empty and nothing runs

    def __init__(self, writer: Writer, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.writer = writer
        self._queue: deque[GradeJob] = deque()
        self._work: Work | None = None
        self._first_progress = False
        self.current: GradeJob | None = None
        self.workers = 2  # threads grading one submission's cases (Preferences)

    @property
    def running(self) -> bool:
        return self.current is not None

    def enqueue(self, jobs: list[GradeJob]) -> None:
        self._queue.extend(jobs)
        if not self.running:
            self._next()

    def cancel(self) -> None:
        self._queue.clear()
        if self._work is not None:
            self._work.cancel()

    def _next(self) -> None:
        if not self._queue:
            self.current = None
            self.idle.emit()
            return
        job = self._queue.popleft()
        self.current = job
        self._first_progress = True
        task = tasks.Task(run_job, job, self.writer, work=True, workers=self.workers)
        self._work = task.work
        task.signals.progress.connect(self._on_progress)
        task.signals.done.connect(self._on_done)
        task.signals.failed.connect(self._on_failed)
        task.signals.cancelled.connect(self._on_cancelled)
        self.job_started.emit(job)
        tasks.start(task)

    @Slot(object)
    def _on_progress(self, step: Step) -> None:
        if self._first_progress:
            self._first_progress = False
            self.run_created.emit()
            self.changed.emit(tasks.Changed.RUNS)  # a running run ranks nowhere yet
        self.progress.emit(step)

    @Slot(object)
    def _on_done(self, stored: StoredGrade) -> None:
        self._finish()
        self.graded.emit(stored)
        self._next()

    @Slot(str, str)
    def _on_failed(self, message: str, details: str) -> None:
        self._finish()
        self.failed.emit(message, details)
        self._next()

    @Slot()
    def _on_cancelled(self) -> None:
        self._finish()
        self.cancelled.emit()
        self._next()

    def _finish(self) -> None:
        self._work = None
        self.current = None
        self.changed.emit(tasks.Changed.RUNS | tasks.Changed.SCORES)  # stored finished, or cancelled
