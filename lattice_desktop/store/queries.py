"""Reading runs back: the runs list with filters, and one run with all its results."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from peewee import Field

from lattice_desktop.grading.compare import Mismatch
from lattice_desktop.grading.report import CaseResult
from lattice_desktop.manifest.case_identity import CaseIdentity, identify
from lattice_desktop.outcomes import Outcome, Verdict
from lattice_desktop.store.base import tuples
from lattice_desktop.store.harness_runs import StoredHarnessRun, list_harness_runs
from lattice_desktop.store.hidden_runs import HiddenRun, hidden_ids, visible
from lattice_desktop.store.schema import BuildLog, CaseRecord, CaseResultRow, Run, SubmissionRecord
from lattice_desktop.store.stored_values import stored_bytes, stored_fuel, stored_number, stored_time


@dataclass(frozen=True)
class RunSummary:
    id: int
    case_name: str
    case_version: int
    case_variant: str
    model: str
    submission: str
    verdict: Verdict
    score: int | None
    stress_fuel: int | None
    max_percent_over: float | None
    started: datetime | None  # None: the stored time could not be read
    finished: datetime | None
    hidden: bool = False  # left out of the runs list, the field and the leaderboard
    case_hash: str | None = None  # the case content it was graded on

    @property
    def case_label(self) -> str:
        """ "lattice 3/standard", whatever the content: see `labelled_case` for showing it."""
        return f"{self.case_name} {self.case_version}/{self.case_variant}"

    @property
    def identity(self) -> CaseIdentity:
        return identify(self.case_name, self.case_version, self.case_variant, self.case_hash)

    @property
    def labelled_case(self) -> str:
        """The case as every output names it: unregistered content says so."""
        return self.identity.label


@dataclass(frozen=True)
class StoredRun:
    summary: RunSummary
    manifest_path: str
    manifest_hash: str  # of the case files as they were graded
    submission_path: str
    module_sha256: str | None
    fuel_limit: int
    wasmtime_version: str
    fuel_settings: str
    results: list[CaseResult]
    build_ok: bool | None
    build_detail: str
    build_log: str

    @property
    def id(self) -> int:
        return self.summary.id


def _summary(run: Run, submission_name: str, *, hidden: bool = False) -> RunSummary:
    return RunSummary(
        id=run.id,
        case_name=run.case_name,
        case_version=run.case_version,
        case_variant=run.case_variant,
        model=run.model,
        submission=submission_name,
        verdict=Verdict.stored(run.verdict),
        score=stored_fuel(run.score),
        stress_fuel=stored_fuel(run.stress_fuel),
        max_percent_over=stored_number(run.max_percent_over),
        started=stored_time(run.started),
        finished=stored_time(run.finished),
        hidden=hidden,
        case_hash=run.case_hash,
    )


def list_runs(
    *,
    case: str | None = None,
    model: str | None = None,
    verdict: str | None = None,
    text: str | None = None,
    limit: int = 5000,
    include_hidden: bool = False,
) -> list[RunSummary]:
    """Newest first; `text` matches case, model or submission name; hidden runs only with
    `include_hidden`."""
    query = (
        Run.select(
            Run.id,
            Run.case_name,
            Run.case_version,
            Run.case_variant,
            Run.model,
            SubmissionRecord.name,
            Run.verdict,
            Run.score,
            Run.stress_fuel,
            Run.max_percent_over,
            Run.started,
            Run.finished,
            Run.case_hash,
        )
        .join(SubmissionRecord)
        .order_by(Run.id.desc())
        .limit(limit)
    )
    hidden = set(hidden_ids()) if include_hidden else set()
    if not include_hidden:
        query = query.where(visible())
    if case:
        query = query.where(Run.case_name == case)
    if model:
        query = query.where(Run.model == model)
    if verdict:
        query = query.where(Run.verdict == verdict)
    if text:
        like = f"%{text}%"
        query = query.where(Run.case_name**like | Run.model**like | SubmissionRecord.name**like)
    read_time = _time_reader(Run.started)
    return [
        RunSummary(
            id=row[0],
            case_name=row[1],
            case_version=row[2],
            case_variant=row[3],
            model=row[4],
            submission=row[5],
            verdict=Verdict.stored(row[6]),
            score=stored_fuel(row[7]),
            stress_fuel=stored_fuel(row[8]),
            max_percent_over=stored_number(row[9]),
            started=read_time(row[10]),
            finished=read_time(row[11]),
            hidden=row[0] in hidden,
            case_hash=row[12],
        )
        for row in tuples(query)
    ]


ListedRun = RunSummary | StoredHarnessRun


def list_every_run(
    *,
    case: str | None = None,
    model: str | None = None,
    verdict: str | None = None,
    limit: int = 5000,
    include_hidden: bool = False,
) -> list[ListedRun]:
    """Graded and harness runs together, newest (largest id: one sequence) first. `case`
    also names a harness box; a harness run has no verdict, so `verdict` leaves them out."""
    graded: list[ListedRun] = list(
        list_runs(case=case, model=model, verdict=verdict, limit=limit, include_hidden=include_hidden)
    )
    harness: list[ListedRun] = []
    if not verdict:
        harness = [
            h
            for h in list_harness_runs(case, include_hidden=include_hidden)
            if model is None or h.result.model == model
        ]
    return sorted(graded + harness, key=lambda r: r.id, reverse=True)[:limit]


def _time_reader(field: Field) -> Callable[[object], datetime | None]:
    return lambda value: stored_time(field.python_value(value))


def load_run(run_id: int) -> StoredRun | None:
    run = (
        Run.select(Run, SubmissionRecord, CaseRecord)
        .join(SubmissionRecord)
        .switch(Run)
        .join(CaseRecord)
        .where(Run.id == run_id)
        .first()
    )
    if run is None:
        return None
    log = BuildLog.get_or_none(BuildLog.run == run_id)
    rows = CaseResultRow.select().where(CaseResultRow.run == run_id).order_by(CaseResultRow.position)
    return StoredRun(
        summary=_summary(
            run, run.submission.name, hidden=HiddenRun.get_or_none(HiddenRun.run == run_id) is not None
        ),
        manifest_path=run.case.manifest_path,
        manifest_hash=run.case.manifest_hash,
        submission_path=run.submission.path,
        module_sha256=run.submission.module_sha256,
        fuel_limit=run.fuel_limit,
        wasmtime_version=run.wasmtime_version,
        fuel_settings=run.fuel_settings,
        results=[_result(r) for r in rows],
        build_ok=log.ok if log else None,
        build_detail=log.detail if log else "",
        build_log=log.log if log else "",
    )


def _result(row: CaseResultRow) -> CaseResult:
    mismatch = None
    if row.mismatch_index is not None:
        mismatch = Mismatch(
            index=row.mismatch_index,
            expected=None if row.mismatch_expected is None else int(row.mismatch_expected),
            got=None if row.mismatch_got is None else int(row.mismatch_got),
            tick=row.mismatch_tick,
            unit=row.mismatch_unit or "byte",
        )
    return CaseResult(
        name=row.name,
        kind=row.kind,
        behaviour=row.behaviour,
        size=row.size,
        outcome=Outcome.stored(row.outcome),
        ceiling=row.ceiling,
        budget=row.budget,
        fuel=stored_fuel(row.fuel),
        detail=row.detail,
        trap_code=row.trap_code,
        frames=tuple(f for f in row.frames.split("\n") if f),
        output_digest=row.output_digest,
        checksums=stored_bytes(row.checksums),
        mismatch=mismatch,
        snapshot_interval=row.snapshot_interval,
        wall_time=row.wall_time,
    )


def distinct_values(field: str) -> list[str]:
    column = getattr(Run, field)
    return [r[0] for r in tuples(Run.select(column).distinct().order_by(column))]


def settled_modules(case_hash: str, wasmtime_version: str) -> set[str]:
    """The module hashes with a finished verdict (correct, over the ceiling or incorrect) on
    this case content and wasmtime version, hidden runs included: what needs no grading again."""
    settled = [Verdict.CORRECT.value, Verdict.OVER_CEILING.value, Verdict.INCORRECT.value]
    query = (
        Run.select(SubmissionRecord.module_sha256)
        .join(SubmissionRecord)
        .where(
            (Run.case_hash == case_hash)
            & (Run.wasmtime_version == wasmtime_version)
            & Run.verdict.in_(settled)
            & SubmissionRecord.module_sha256.is_null(False)
        )
        .distinct()
    )
    return {digest for (digest,) in tuples(query)}
