"""The batch and the store: which modules a case has already graded (so a rerun skips
them), and storing finished runs many to a transaction through the one writer."""

from __future__ import annotations

from dataclasses import dataclass

from lattice_desktop.grading.report import GradeReport
from lattice_desktop.manifest.case import CaseManifest
from lattice_desktop.outcomes import Verdict
from lattice_desktop.sandbox.engine import WASMTIME_VERSION
from lattice_desktop.store import runs
from lattice_desktop.store.base import tuples
from lattice_desktop.store.schema import Run, SubmissionRecord

# Verdicts a rerun keeps; an internal error, a cancelled or interrupted run is graded again.
SETTLED = (Verdict.CORRECT.value, Verdict.OVER_CEILING.value, Verdict.INCORRECT.value)


@dataclass(frozen=True)
class StoredRun:
    run_id: int
    verdict: Verdict


def graded_modules(case: CaseManifest) -> dict[str, StoredRun]:
    """Module hash -> its newest settled run on this case content and wasmtime version."""
    query = (
        Run.select(Run.id, Run.verdict, SubmissionRecord.module_sha256)
        .join(SubmissionRecord, on=(Run.submission == SubmissionRecord.id))
        .where(
            (Run.case_hash == case.manifest_hash)  # the case's content: manifest, inputs, answers
            & (Run.wasmtime_version == WASMTIME_VERSION)
            & (Run.verdict.in_(SETTLED))
            & SubmissionRecord.module_sha256.is_null(False)
        )
        .order_by(Run.id)
    )
    return {module: StoredRun(run_id, Verdict(verdict)) for run_id, verdict, module in tuples(query)}


def store_reports(reports: list[GradeReport]) -> list[int]:
    """Store whole runs (call inside one transaction): each appears finished or not at all."""
    ids = []
    for report in reports:
        run_id = runs.begin_run(report.case, report.submission)
        runs.finish_run(run_id, report)
        ids.append(run_id)
    return ids
