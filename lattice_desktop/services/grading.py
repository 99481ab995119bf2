"""Grade and store: the one path by which a run reaches the database, for CLI and app."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from lattice_desktop.errors import Cancelled, StorageError, UserError
from lattice_desktop.grading.grader import grade
from lattice_desktop.grading.report import GradeReport
from lattice_desktop.grading.report_json import report_to_dict
from lattice_desktop.manifest.case import CaseManifest
from lattice_desktop.manifest.submission import Submission
from lattice_desktop.outcomes import Verdict
from lattice_desktop.store import runs
from lattice_desktop.store.writer import Writer
from lattice_desktop.work import Work


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
    allow_unisolated: bool = False,
    workers: int = 2,
    work: Work | None = None,
) -> StoredGrade:
    """Record the run as running, grade it, then store every result with the verdict at once.

    A cancelled run is kept as `cancelled` with no results; a run whose process dies stays
    `running` until the next start marks it interrupted. Neither ever shows half a result.
    """
    run_id = writer.call(runs.begin_run, case, submission)
    try:
        report = grade(
            case,
            submission,
            allow_build=allow_build,
            allow_unisolated=allow_unisolated,
            workers=workers,
            work=work,
        )
    except (Cancelled, KeyboardInterrupt):  # Cancel in the app, Ctrl+C in a terminal
        writer.call(runs.end_run_without_results, run_id, Verdict.CANCELLED)
        raise
    except UserError:
        writer.call(runs.delete_run, run_id)
        raise
    except BaseException:
        writer.call(runs.end_run_without_results, run_id, Verdict.INTERNAL_ERROR)
        raise
    try:
        writer.call(runs.finish_run, run_id, report)
    except StorageError as exc:
        kept = keep_unstored_report(run_id, report)
        raise StorageError(
            f"{exc.message}; the graded report was kept in {kept} so the work is not lost",
            exc.location,
        ) from None
    return StoredGrade(run_id, report)


def unstored_reports_dir() -> Path:
    return Path(platformdirs.user_data_dir("lattice-desktop")) / "unstored-reports"


def keep_unstored_report(run_id: int, report: GradeReport) -> Path:
    """Write a report the database refused to a JSON file beside it, and say where."""
    folder = unstored_reports_dir()
    folder.mkdir(parents=True, exist_ok=True)
    stamp = report.finished.strftime("%Y%m%dT%H%M%S")
    # The model name is the submission's text: keep only characters safe in one file name.
    model = re.sub(r"[^A-Za-z0-9._-]+", "_", report.submission.model)[:64] or "model"
    path = folder / f"run-{run_id}-{model}-{stamp}.json"
    data = report_to_dict(report)
    data["run_id"] = run_id
    path.write_text(json.dumps(data, indent=2))
    return path
