"""What the window's grading commands do: File › Grade submission… (with its build
dialogs), Grade the demo samples, Grade many… on a local cluster, Cancel grading, and
prewarming the demo's keyframes once it is graded. The window lays out the buttons and the
status bar; this object runs the ops behind them and reports through signals."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtWidgets import QWidget

from lattice_desktop.batch.driver import BatchResult
from lattice_desktop.batch.summary import outcome_text
from lattice_desktop.errors import UserError
from lattice_desktop.manifest import CaseManifest, load_case, load_submission
from lattice_desktop.sandbox.isolation import isolation
from lattice_desktop.services.grade_jobs import GradeJob, demo_jobs, shipped_module_job
from lattice_desktop.services.grading import StoredGrade
from lattice_desktop.services.prewarm import prewarm
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui.common import tasks
from lattice_desktop.ui.common.dialogs import (
    BuildChoice,
    BuildConfirmDialog,
    DialogFolder,
    Recent,
    UnisolatedBuildDialog,
    choose_case_file,
    choose_submission_folder,
    choose_submissions_folder,
)
from lattice_desktop.ui.common.latest_query import LatestQuery
from lattice_desktop.ui.common.tasks import Changed
from lattice_desktop.ui.grading.batch_op import BatchOp
from lattice_desktop.ui.grading.grade_op import GradeOp


class GradingActions(QObject):
    """The grading commands and the case they grade against (`case_path`)."""

    message = Signal(str, str)  # text for the message bar, its kind
    failed = Signal(str, str)  # message, traceback: a bug to show with its traceback
    graded = Signal(object, bool)  # StoredGrade, whether to open it on Results
    changed = Signal(object)  # Changed: what grading stored

    def __init__(
        self,
        writer: Writer,
        window: QWidget,
        *,
        demo_case: Path,
        recent_cases: Recent,
        recent_submissions: Recent,
    ) -> None:
        super().__init__(window)
        self.window, self.demo_case = window, demo_case
        self.recent_cases, self.recent_submissions = recent_cases, recent_submissions
        self.dialog_folder = DialogFolder(recent_cases.settings)
        self.case_path: Path | None = self._initial_case()
        self._open_after_grade = True
        self._prewarm_pending = False
        self.queue = GradeOp(writer, self)
        self.queue.changed.connect(self.changed)
        self.queue.graded.connect(self._on_graded)
        self.queue.failed.connect(self._on_failed)
        self.queue.cancelled.connect(self._on_cancelled)
        self.queue.idle.connect(self._on_idle)
        self.batch = BatchOp(writer, self)
        self.batch.changed.connect(self.changed)
        self.batch.finished.connect(self._on_batch_finished)
        self.batch.failed.connect(self.failed)
        self.prewarming = tasks.Background(self)  # the demo's keyframe walk
        self._demo_query = LatestQuery(self._on_demo_jobs, self)
        self._demo_query.failed.connect(self.failed)
        self._case_check = LatestQuery(self._on_case_checked, self)
        self._case_check.failed.connect(self._on_case_refused)
        self._after_check: Callable[[], object] | None = None  # a grade asked for mid-check

    def _initial_case(self) -> Path | None:
        for item in self.recent_cases.items():
            if Path(item).is_file():
                return Path(item)
        return self.demo_case if self.demo_case.is_file() else None

    @Slot()
    def choose_case(self) -> None:
        path = choose_case_file(self.window, self.dialog_folder)
        if path is not None:
            self.open_case(path)

    def open_case(self, path: Path) -> None:
        """Check `path` (a case.toml or its folder) off the GUI thread and, when it holds up,
        make it the case submissions are graded against; otherwise every problem it has is
        shown at once and the case open before stays open."""
        self._case_check.request(load_case, path)

    def _on_case_checked(self, case: CaseManifest) -> None:
        self.case_path = case.path
        self.recent_cases.add(case.path)
        self.message.emit(
            f"Case {case.label} ({case.path}) is open: Grade submission… (Ctrl+G) grades a "
            "submission against it.",
            "info",
        )
        then, self._after_check = self._after_check, None
        if then is not None:
            then()

    def _when_checked(self, then: Callable[[], object]) -> bool:
        """While a case is being checked, keep `then` for when it is open (True): a grade asked
        for right after opening a case grades against that case, not the one before."""
        if not self._case_check.busy:
            return False
        self._after_check = then
        return True

    @Slot(str, str)
    def _on_case_refused(self, message: str, details: str) -> None:
        self._after_check = None  # what was asked for would grade against the wrong case
        if details:  # not the manifest's fault: a bug, shown with its traceback
            self.failed.emit(message, details)
        else:
            self.message.emit(f"Cannot open this case: {message}", "error")

    @property
    def busy(self) -> bool:
        """A grade runs or the demo's jobs are being worked out."""
        return self.queue.running or self._demo_query.busy

    @Slot()
    def grade_submission(self, folder: Path | None = None) -> None:
        """Grade a submission folder (asked for when not given) against the open case,
        asking first when it would run build commands."""
        if self.queue.running:
            self.message.emit("Grading is already running — wait or Cancel it.", "warning")
            return
        if not isinstance(folder, Path):
            folder = choose_submission_folder(self.window, self.dialog_folder)
            if folder is None:
                return
        try:
            submission = load_submission(folder)
        except UserError as exc:
            self.message.emit(f"Cannot grade this submission: {exc}", "error")
            return
        if self._when_checked(partial(self.grade_submission, submission.folder)):
            return
        case_path = self.case_path
        if case_path is None:
            self.message.emit(
                "Open a case first (Open case…, Ctrl+O): the case to grade this submission against.", "error"
            )
            return
        try:  # checked when it was opened; read again (its digests are kept) in case it changed since
            load_case(case_path)
        except UserError as exc:
            self.message.emit(f"Cannot grade against this case: {exc}", "error")
            return
        job = self._job(case_path, submission) if submission.commands else GradeJob(case_path, submission)
        if job is not None:
            self.start_grading([job])

    def _job(self, case_path: Path, submission) -> GradeJob | None:
        """The job for a submission with build commands, as the user chose (None: cancelled)."""
        dialog = BuildConfirmDialog(submission, self.window)
        dialog.exec()
        if dialog.choice is BuildChoice.CANCEL:
            return None
        job = (
            GradeJob(case_path, submission, allow_build=True)
            if dialog.choice is BuildChoice.BUILD
            else shipped_module_job(case_path, submission)
        )
        jail = isolation() if job.allow_build else None
        if jail is not None and not jail.available:
            second = UnisolatedBuildDialog(jail.reason, self.window)
            second.exec()
            if not second.allowed:
                return None
            job = replace(job, allow_unisolated=True)
        return job

    def start_grading(self, jobs: list[GradeJob], *, open_result: bool = True) -> None:
        self._open_after_grade = open_result
        self.queue.enqueue(jobs)

    @Slot()
    def grade_demo(self, *, then_prewarm: bool = False) -> None:
        """Grade the bundled demo's samples; `then_prewarm`: walk its scenarios afterwards."""
        if self.busy:
            return
        if not self.demo_case.is_file():
            self.message.emit(
                f"The bundled demo case is missing ({self.demo_case}). Open a case instead (Ctrl+O).",
                "warning",
            )
            return
        self._prewarm_pending = self._prewarm_pending or then_prewarm
        self._demo_query.request(demo_jobs, self.demo_case)

    def _on_demo_jobs(self, jobs: list[GradeJob]) -> None:
        if not jobs:
            self.message.emit("The demo case has no sample submissions to grade.", "warning")
            return
        self.start_grading(jobs, open_result=False)

    @Slot()
    def grade_many(self, folder: Path | None = None) -> Path | None:
        """Grade a folder of submission folders against the open case on a local cluster;
        returns the folder, or None when it cannot start (a batch runs, no case is open, no
        folder chosen)."""
        folder = folder if isinstance(folder, Path) else None
        if folder is not None and self._when_checked(partial(self.grade_many, folder)):
            return folder
        case_path = self.case_path
        if self.batch.running or case_path is None:
            self.message.emit(
                "A batch is already running."
                if self.batch.running
                else "Open a case first (Open case…, Ctrl+O).",
                "warning",
            )
            return None
        folder = folder or choose_submissions_folder(self.window, self.dialog_folder)
        if folder is not None:
            self.batch.start(case_path, folder)
        return folder

    @Slot(object)
    def _on_batch_finished(self, result: BatchResult) -> None:
        self.changed.emit(Changed.RUNS)  # what landed was said as it landed
        self.message.emit(outcome_text(result), "warning" if result.problems else "info")

    @Slot(object)
    def _on_graded(self, stored: StoredGrade) -> None:
        if self._open_after_grade:  # the user's own grade, not the demo's samples
            self.recent_submissions.add(stored.report.submission.folder)
        self.graded.emit(stored, self._open_after_grade)

    @Slot(str, str)
    def _on_failed(self, message: str, details: str) -> None:
        if details:
            self.failed.emit(message, details)
        else:
            self.message.emit(f"Cannot grade: {message}", "error")

    @Slot()
    def _on_cancelled(self) -> None:
        self.message.emit("Grading cancelled — the run is kept as cancelled, with no results.", "info")

    @Slot()
    def _on_idle(self) -> None:
        if self._prewarm_pending:
            self._prewarm_pending = False
            self._start_prewarm()

    def _start_prewarm(self) -> None:
        """After the demo is graded: walk its stress scenarios in the background so the
        Factory tab can show any tick of them at once (keyframes are kept on disk)."""
        task = tasks.Task(prewarm, self.demo_case, work=True)
        task.signals.failed.connect(self.failed)
        self.prewarming.start(task)
