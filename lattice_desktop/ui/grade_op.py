"""Grading from the app: a queue of jobs run one at a time off the GUI thread through
`grade_and_store`, with progress, cancel, and the outcome reported through signals."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot

from lattice_desktop.cancel import CancelToken
from lattice_desktop.grading.grader import Progress
from lattice_desktop.grading.session import StoredGrade, grade_and_store
from lattice_desktop.manifest import Submission, load_case, load_submission
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui import tasks


@dataclass(frozen=True)
class GradeJob:
    """One submission to grade against one case. `allow_build` only after the user saw
    and confirmed the build commands."""

    case_path: Path
    submission: Submission
    allow_build: bool = False

    @property
    def label(self) -> str:
        return f"{self.submission.name} · {self.submission.model}"


def shipped_module_job(case_path: Path, submission: Submission) -> GradeJob:
    """Grade the module a submission ships, without running its build commands."""
    return GradeJob(case_path, replace(submission, commands=()), allow_build=False)


def sample_jobs(case_path: Path, samples_dir: Path | None) -> list[GradeJob]:
    """The case's sample submissions that can be graded without building anything."""
    jobs = []
    if samples_dir is None or not samples_dir.is_dir():
        return jobs
    for folder in sorted(p for p in samples_dir.iterdir() if (p / "submission.toml").is_file()):
        submission = load_submission(folder)
        if submission.module_path.is_file():
            jobs.append(shipped_module_job(case_path, submission))
    return jobs


def demo_jobs(case_path: Path) -> list[GradeJob]:
    """The sample submissions of a case (read on a worker: hashing its inputs takes a while)."""
    case = load_case(case_path)
    return sample_jobs(case.path, case.samples_dir)


def run_job(job: GradeJob, writer: Writer, cancel: CancelToken, *, report, workers: int = 2) -> StoredGrade:
    """The worker side: read the case (hashing its inputs can take a while), grade, store."""
    case = load_case(job.case_path)
    return grade_and_store(case, job.submission, writer=writer, allow_build=job.allow_build,
                           progress=report, cancel=cancel, workers=workers)


class GradeOp(QObject):
    """Runs queued jobs one after another; `cancel()` stops the running one (wasm is
    interrupted by the core) and drops the queue."""

    job_started = Signal(object)  # GradeJob
    run_created = Signal()  # the run exists in the database, marked running
    progress = Signal(object)  # Progress
    graded = Signal(object)  # StoredGrade
    failed = Signal(str, str)  # message, traceback ("" for a user error)
    cancelled = Signal()
    idle = Signal()  # the queue is empty and nothing runs

    def __init__(self, writer: Writer, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.writer = writer
        self._queue: deque[GradeJob] = deque()
        self._token: CancelToken | None = None
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
        if self._token is not None:
            self._token.cancel()

    def _next(self) -> None:
        if not self._queue:
            self.current = None
            self.idle.emit()
            return
        job = self._queue.popleft()
        self.current = job
        self._token = CancelToken()
        self._first_progress = True
        task = tasks.Task(run_job, job, self.writer, self._token, progress=True, workers=self.workers)
        task.signals.progress.connect(self._on_progress)
        task.signals.done.connect(self._on_done)
        task.signals.failed.connect(self._on_failed)
        task.signals.cancelled.connect(self._on_cancelled)
        self.job_started.emit(job)
        tasks.start(task)

    @Slot(object)
    def _on_progress(self, step: Progress) -> None:
        if self._first_progress:
            self._first_progress = False
            self.run_created.emit()
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
        self._token = None
        self.current = None
