"""One graded run as the CI reports (JUnit XML, Markdown) read it, whether it was just
graded (a `GradeReport`) or found already stored by a batch (a `StoredRun`): the same case
results, verdict, score and standing either way."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from lattice_desktop.grading.report import CaseResult, GradeReport
from lattice_desktop.manifest.case_identity import identify_case
from lattice_desktop.outcomes import Verdict
from lattice_desktop.store.field import Standing
from lattice_desktop.store.queries import StoredRun


@dataclass(frozen=True)
class GradedRun:
    model: str
    submission: str  # the submission folder's name
    case_name: str
    case_label: str  # "lattice 3/standard", unregistered content saying so
    fuel_limit: int
    results: tuple[CaseResult, ...]
    verdict: Verdict
    score: int | None
    stress_fuel: int | None
    run_id: int | None
    standing: Standing | None
    module_sha256: str | None
    wasmtime_version: str
    started: datetime | None
    note: str = ""  # "already stored: not graded again", for a batch's skipped runs

    @property
    def title(self) -> str:
        return f"{self.model} · {self.submission}"


def from_report(report: GradeReport, *, run_id: int | None, standing: Standing | None) -> GradedRun:
    case = report.case
    return GradedRun(
        model=report.submission.model,
        submission=report.submission.name,
        case_name=case.name,
        case_label=identify_case(case).label,
        fuel_limit=case.sandbox.fuel_limit,
        results=tuple(report.results),
        verdict=report.verdict,
        score=report.score,
        stress_fuel=report.stress_fuel,
        run_id=run_id,
        standing=standing,
        module_sha256=report.module_sha256,
        wasmtime_version=report.wasmtime_version,
        started=report.started,
    )


def from_stored(run: StoredRun, *, submission: str, standing: Standing | None) -> GradedRun:
    s = run.summary
    return GradedRun(
        model=s.model,
        submission=submission,
        case_name=s.case_name,
        case_label=s.labelled_case,
        fuel_limit=run.fuel_limit,
        results=tuple(run.results),
        verdict=s.verdict,
        score=s.score,
        stress_fuel=s.stress_fuel,
        run_id=run.id,
        standing=standing,
        module_sha256=run.module_sha256,
        wasmtime_version=run.wasmtime_version,
        started=s.started,
        note=f"already stored as run {run.id}: not graded again (--regrade grades it again)",
    )
