"""The batch itself: build each submission here, send its module and the case inputs to the
workers once, run its smoke jobs, and only when they all pass its stress jobs (largest first);
assemble each submission's results into the same report `grade` gives and store it whole.
"""

from __future__ import annotations

import hashlib
import time
import traceback
import uuid
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from lattice_desktop.batch.backend import Backend
from lattice_desktop.batch.field import Problem
from lattice_desktop.batch.stored import StoredRun, graded_modules, store_reports
from lattice_desktop.batch.worker import JobResult, result_from_data
from lattice_desktop.errors import Cancelled, UserError
from lattice_desktop.grading.grader import all_failed, skipped_after_smoke, unrun
from lattice_desktop.grading.report import CaseResult, GradeReport, verdict_of
from lattice_desktop.manifest.case import CaseEntry, CaseManifest
from lattice_desktop.manifest.submission import Submission
from lattice_desktop.outcomes import Outcome
from lattice_desktop.sandbox.build import BuildResult, answer_folders, build_submission
from lattice_desktop.store.writer import Writer
from lattice_desktop.work import Work

FLUSH_RUNS = 16  # finished runs stored per transaction at most
FLUSH_SECONDS = 0.5  # and none waits longer than this to be stored


@dataclass(frozen=True)
class FinishedRun:
    report: GradeReport
    run_id: int | None  # None when the batch does not store


@dataclass(frozen=True)
class BatchProgress:
    """Where the batch stands; `landed` holds the runs stored since the last report."""

    jobs_done: int
    jobs_total: int
    runs_done: int
    runs_total: int
    elapsed: float
    landed: tuple[FinishedRun, ...] = ()
    problem: Problem | None = None
    # The stress jobs' cost, a job's being its case's size: they are the batch's time, and
    # they vary by the size of their input; the smoke tests finish first and cost next to
    # nothing (counted by jobs, the estimate promised the end once they were done).
    cost_done: int = 0  # the sizes of the stress jobs answered
    cost_total: int = 0  # ... of every stress job sent or still to come
    costing: float = 0.0  # seconds since the first stress job was sent

    @property
    def remaining(self) -> float | None:
        """Seconds left at the pace of the stress jobs so far, weighed by size (by jobs when
        the case has no stress cases); None until a stress job has finished."""
        if self.cost_total:
            if not self.cost_done:
                return None
            return self.costing / self.cost_done * max(0, self.cost_total - self.cost_done)
        if not self.jobs_done:
            return None
        return self.elapsed / self.jobs_done * max(0, self.jobs_total - self.jobs_done)


@dataclass
class BatchResult:
    runs: list[FinishedRun] = field(default_factory=list)
    skipped: list[tuple[Submission, StoredRun]] = field(default_factory=list)  # already stored
    problems: list[Problem] = field(default_factory=list)


@dataclass
class _Pending:
    """One submission on its way through the batch."""

    submission: Submission
    build: BuildResult
    digest: str
    module: object
    started: datetime
    results: dict[str, CaseResult] = field(default_factory=dict)
    outstanding: int = 0  # jobs sent and not yet answered
    failure: tuple[Outcome, str] | None = None
    from_cache: bool = False
    stress_sent: bool = False
    cost_left: int = 0  # the sizes of its stress jobs sent and not yet answered


def grade_batch(
    case: CaseManifest,
    submissions: list[Submission],
    *,
    backend: Backend,
    writer: Writer | None = None,
    allow_build: bool = False,
    allow_unisolated: bool = False,
    regrade: bool = False,
    work: Work | None = None,
    started: float | None = None,
) -> BatchResult:
    """Grade every submission on `backend`; store each run whole through `writer` (if any).
    Each change is reported on `work` with a `BatchProgress`; cancelling it raises `Cancelled`.
    `started` (a `time.monotonic()`) is when the batch began for the user, if earlier than
    now: a cluster started for it counts in its elapsed time."""
    batch = _Batch(
        case, backend, writer, work or Work(), allow_build=allow_build, allow_unisolated=allow_unisolated
    )
    if started is not None:
        batch.started = min(batch.started, started)
    return batch.run(submissions, regrade=regrade)


class _Batch:
    def __init__(
        self,
        case: CaseManifest,
        backend: Backend,
        writer: Writer | None,
        work: Work,
        *,
        allow_build: bool,
        allow_unisolated: bool,
    ) -> None:
        self.case, self.backend, self.writer, self.work = case, backend, writer, work
        self.allow_build, self.allow_unisolated = allow_build, allow_unisolated
        self.id = uuid.uuid4().hex
        self.result = BatchResult()
        self.pending: dict[int, _Pending] = {}
        self.unstored: list[GradeReport] = []
        self.first_unstored = 0.0
        self.storing: list[tuple[list[GradeReport], Future[list[int]]]] = []  # oldest first
        self.jobs_done = 0
        self.runs_total = 0
        self.started = time.monotonic()
        self.cost_done = 0
        self.stress_started: float | None = None  # when the first stress job was sent
        self.shared_case: object = None
        self.shared_entries: dict[str, object] = {}

    def run(self, submissions: list[Submission], *, regrade: bool) -> BatchResult:
        try:
            self._prepare(submissions, regrade)
            self._loop()
        except (Cancelled, KeyboardInterrupt):
            self.backend.cancel(self.id, self.case.sandbox.wall_clock)
            self._flush(wait=True)  # runs already whole are kept; nothing half-graded is stored
            raise
        self._flush(wait=True)
        return self.result

    def _prepare(self, submissions: list[Submission], regrade: bool) -> None:
        done_before = {} if regrade or self.writer is None else self.writer.call(graded_modules, self.case)
        self.runs_total = len(submissions)
        for index, submission in enumerate(submissions):
            self.work.raise_if_cancelled()
            try:
                build = build_submission(
                    submission,
                    allowed=self.allow_build,
                    allow_unisolated=self.allow_unisolated,
                    timeout=self.case.sandbox.build_timeout,
                    max_module_bytes=self.case.sandbox.max_module_bytes,
                    work=self.work,
                    hidden=answer_folders(self.case),
                )
            except UserError as exc:
                self._problem(Problem(str(submission.folder), str(exc)))
                continue
            except OSError as exc:  # its files cannot be read: that submission's problem alone
                self._problem(Problem(str(submission.folder), f"cannot read the submission: {exc}"))
                continue
            now = datetime.now(UTC)
            if not build.ok or build.module is None:
                failed = all_failed(self.case, Outcome.BUILD_FAILURE, build.detail)
                self._finished(
                    GradeReport(self.case, submission, None, build, failed, verdict_of(failed), now, now)
                )
                continue
            digest = hashlib.sha256(build.module).hexdigest()
            if digest in done_before:
                self.runs_total -= 1
                self.result.skipped.append((submission, done_before[digest]))
                continue
            module = self.backend.share(f"wasm-{digest}", build.module)
            job = _Pending(submission, build, digest, module, now)
            self.pending[index] = job
            if self.case.smoke:
                self._submit(index, job, self.case.smoke)
            else:
                self._send_stress(index, job)
        self._tell()

    def _send_stress(self, index: int, job: _Pending) -> None:
        job.stress_sent = True
        job.cost_left = self._stress_cost
        if self.stress_started is None:
            self.stress_started = time.monotonic()
        for entry in sorted(self.case.stress, key=lambda e: -e.size):
            self._submit(index, job, (entry,))

    def _submit(self, index: int, job: _Pending, entries: tuple[CaseEntry, ...]) -> None:
        """Send jobs as one task: each stress job alone, a submission's smoke jobs together
        (they are small, and the gate waits for all of them anyway)."""
        if self.shared_case is None:
            # The case's rules travel once; each entry travels once, with its bytes inline.
            rules = replace(self.case, cases=())
            self.shared_case = self.backend.share(f"case-{self.case.manifest_hash}", rules)
        for entry in entries:
            if entry.name not in self.shared_entries:
                self.shared_entries[entry.name] = self.backend.share(*_entry_payload(self.case, entry))
        job.outstanding += len(entries)
        self.backend.submit(
            (index, tuple(e.name for e in entries)),
            self.id,
            self.shared_case,
            [self.shared_entries[e.name] for e in entries],
            job.module,
            priority=sum(e.size for e in entries),
        )

    def _loop(self) -> None:
        while self.pending:
            self.work.raise_if_cancelled()
            for (index, names), answer in self.backend.completed(timeout=0.05):
                self._take(index, names, answer)
            self._flush(
                full=len(self.unstored) >= FLUSH_RUNS
                or time.monotonic() - self.first_unstored >= FLUSH_SECONDS
            )

    def _take(self, index: int, names: tuple[str, ...], answer: JobResult | BaseException) -> None:
        job = self.pending[index]
        job.outstanding -= len(names)
        self.jobs_done += len(names)
        cost = sum(self.case.entry(name).size for name in names if not self.case.entry(name).is_smoke)
        job.cost_left -= cost
        self.cost_done += cost
        if isinstance(answer, Cancelled):
            raise answer
        if isinstance(answer, BaseException):
            text = "".join(traceback.format_exception(answer, limit=8)).strip()
            for name in names:
                job.results[name] = unrun(
                    self.case,
                    self.case.entry(name),
                    Outcome.INTERNAL_ERROR,
                    f"the batch worker failed running this case: {text}",
                )
        elif answer.module_failure is not None:
            outcome, detail = answer.module_failure
            job.failure = job.failure or (Outcome(outcome), detail)
        else:
            for name, data in zip(names, answer.results, strict=True):
                job.results[name] = result_from_data(data)
            job.from_cache = job.from_cache or answer.from_cache
        self._advance(index, job)
        self._tell()

    def _advance(self, index: int, job: _Pending) -> None:
        """Release a submission's stress jobs once its smoke tests pass; finish it when done."""
        if job.outstanding:
            return
        if job.failure is not None:
            results = all_failed(self.case, *job.failure)
        elif not job.stress_sent:
            smoke = [job.results[e.name] for e in self.case.smoke]  # every smoke job answered
            if all(r.outcome.correct for r in smoke):
                self._send_stress(index, job)
                return
            results = smoke + skipped_after_smoke(self.case, smoke)
        else:
            results = [job.results[e.name] for e in self.case.smoke + self.case.stress]
        del self.pending[index]
        self.backend.release(job.module)
        self._finished(
            GradeReport(
                self.case,
                job.submission,
                job.digest,
                job.build,
                results,
                verdict_of(results),
                job.started,
                datetime.now(UTC),
                module_from_cache=job.from_cache,
            )
        )

    def _finished(self, report: GradeReport) -> None:
        if not self.unstored:
            self.first_unstored = time.monotonic()
        self.unstored.append(report)

    def _flush(self, *, full: bool = True, wait: bool = False) -> None:
        """Send the finished runs to the writer (when `full`, or `wait`), and report those
        it has stored; the database's latency never holds up the jobs' results."""
        if self.unstored and (full or wait):
            reports, self.unstored = self.unstored, []
            if self.writer is None:
                self._landed(reports, [None] * len(reports))
            else:
                self.storing.append((reports, self.writer.submit(store_reports, reports)))
        while self.storing and (wait or self.storing[0][1].done()):
            reports, stored = self.storing.pop(0)
            self._landed(reports, stored.result())

    def _landed(self, reports: list[GradeReport], ids: list[int] | list[None]) -> None:
        landed = tuple(FinishedRun(r, i) for r, i in zip(reports, ids, strict=True))
        self.result.runs.extend(landed)
        self._tell(landed)

    def _problem(self, problem: Problem) -> None:
        self.runs_total -= 1
        self.result.problems.append(problem)
        self._tell(problem=problem)

    def _tell(self, landed: tuple[FinishedRun, ...] = (), problem: Problem | None = None) -> None:
        total = self.jobs_done + self._jobs_left()
        now = time.monotonic()
        progress = BatchProgress(
            self.jobs_done,
            total,
            len(self.result.runs),
            self.runs_total,
            now - self.started,
            landed,
            problem,
            self.cost_done,
            self.cost_done + self._cost_left(),
            0.0 if self.stress_started is None else now - self.stress_started,
        )
        self.work.report(self.jobs_done / total if total else 0.0, "grading many", progress)

    @property
    def _stress_cost(self) -> int:
        return sum(entry.size for entry in self.case.stress)

    def _cost_left(self) -> int:
        """The sizes of the stress jobs still to answer, those of submissions whose smoke
        tests are still running included (they follow if the smoke tests pass)."""
        return sum(
            job.cost_left if job.stress_sent else self._stress_cost
            for job in self.pending.values()
            if job.stress_sent or job.failure is None
        )

    def _jobs_left(self) -> int:
        left = 0
        for job in self.pending.values():
            if job.stress_sent or job.failure is not None:
                left += job.outstanding
            else:  # smoke still running: its stress jobs will follow if it passes
                left += job.outstanding + len(self.case.stress)
        return left


def _entry_payload(case: CaseManifest, entry: CaseEntry) -> tuple[str, CaseEntry]:
    """A case entry with its input and expected answer inline, keyed by their content."""
    if case.contract.abi != "bytes":
        return f"entry-{hashlib.sha256(repr(entry).encode()).hexdigest()}", entry
    data, expected = entry.input_bytes(), entry.expected_bytes()
    inline = replace(entry, input_path=None, input_inline=data, expected_path=None, expected_inline=expected)
    digest = hashlib.sha256(repr(replace(inline, input_inline=b"", expected_inline=b"")).encode())
    digest.update(hashlib.sha256(data).digest() + hashlib.sha256(expected).digest())
    return f"entry-{digest.hexdigest()}", inline
