"""Grade and store: the one path by which a run reaches the database, for CLI and app."""

from __future__ import annotations

from dataclasses import dataclass

from lattice_desktop.cancel import CancelToken
from lattice_desktop.errors import Cancelled, UserError
from lattice_desktop.grading.grader import GradeReport, ProgressCallback, grade
from lattice_desktop.grading.outcomes import Verdict
from lattice_desktop.manifest.case import CaseManifest
from lattice_desktop.manifest.submission import Submission
from lattice_desktop.store import runs
from lattice_desktop.store.writer import Writer


@dataclass(frozen=True)
class StoredGrade:
    run_id: int
    report: GradeReport


def grade_and_store(
    case: CaseManifest,
    submission: Submission,
    *,
    writer: Writer,
    allow_build: bool = False,
    workers: int = 2,
    progress: ProgressCallback | None = None,
    cancel: CancelToken | None = None,
) -> StoredGrade:
    """Record the run as running, grade it, then store every result with the verdict at once.

    A cancelled run is kept as `cancelled` with no results; a run whose process dies stays
    `running` until the next start marks it interrupted. Neither ever shows half a result.
    """
    run_id = writer.call(runs.begin_run, case, submission)
    try:
        report = grade(case, submission, allow_build=allow_build, workers=workers,
                       progress=progress, cancel=cancel)
    except Cancelled:
        writer.call(runs.end_run_without_results, run_id, Verdict.CANCELLED)
        raise
    except UserError:
        writer.call(runs.delete_run, run_id)
        raise
    except BaseException:
        writer.call(runs.end_run_without_results, run_id, Verdict.INTERNAL_ERROR)
        raise
    writer.call(runs.finish_run, run_id, report)
    return StoredGrade(run_id, report)
