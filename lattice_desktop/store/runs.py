"""Writing runs: begin (verdict running), finish (results and verdict in one transaction),
and recovery of runs whose process died."""

from __future__ import annotations

import os
import socket
from datetime import UTC, datetime

from lattice_desktop.errors import UserError
from lattice_desktop.grading.report import GradeReport
from lattice_desktop.manifest.case import CaseManifest
from lattice_desktop.manifest.submission import Submission
from lattice_desktop.outcomes import Verdict
from lattice_desktop.sandbox.engine import FUEL_SETTINGS, WASMTIME_VERSION
from lattice_desktop.store.base import tuples, write_transaction
from lattice_desktop.store.harness_tables import HarnessRun
from lattice_desktop.store.hidden_runs import HiddenRun, stored_ids
from lattice_desktop.store.run_numbers import GRADED, allocate_run_id, free_run_id
from lattice_desktop.store.schema import BuildLog, CaseRecord, CaseResultRow, Run, SubmissionRecord
from lattice_desktop.store.transcripts import delete_transcripts


def case_record(case: CaseManifest) -> CaseRecord:
    record: CaseRecord
    record, _ = CaseRecord.get_or_create(
        name=case.name,
        version=case.version,
        variant=case.variant,
        manifest_hash=case.manifest_hash,
        defaults={
            "manifest_path": str(case.path),
            "family": case.family,
            "fuel_limit": case.sandbox.fuel_limit,
        },
    )
    if record.manifest_path != str(case.path):
        record.manifest_path = str(case.path)
        record.save()
    return record


def begin_run(case: CaseManifest, submission: Submission) -> int:
    """Create the run as `running`; it gets results only when it finishes."""
    sub, _ = SubmissionRecord.get_or_create(
        model=submission.model,
        path=str(submission.folder),
        module_sha256=None,
        defaults={"name": submission.name},
    )
    run = Run.create(
        id=allocate_run_id(GRADED),
        case=case_record(case),
        submission=sub,
        model=submission.model,
        case_name=case.name,
        case_version=case.version,
        case_variant=case.variant,
        case_hash=case.manifest_hash,
        verdict=Verdict.RUNNING.value,
        fuel_limit=case.sandbox.fuel_limit,
        wasmtime_version=WASMTIME_VERSION,
        fuel_settings=FUEL_SETTINGS,
        started=datetime.now(UTC),
        owner_pid=os.getpid(),
        owner_host=socket.gethostname(),
    )
    return run.id


def finish_run(run_id: int, report: GradeReport) -> None:
    """Write every result and the verdict together (call inside one transaction)."""
    run = Run.get_by_id(run_id)
    if report.module_sha256:
        sub, _ = SubmissionRecord.get_or_create(
            model=report.submission.model,
            path=str(report.submission.folder),
            module_sha256=report.module_sha256,
            defaults={"name": report.submission.name},
        )
        run.submission = sub
    percents = [100.0 * r.overshoot / r.ceiling for r in report.results if r.overshoot is not None]
    run.verdict = report.verdict.value
    run.score = report.score
    run.stress_fuel = report.stress_fuel
    run.overshoot = report.overshoot
    run.max_percent_over = max(percents) if percents else None
    run.module_from_cache = report.module_from_cache
    run.started = report.started
    run.finished = report.finished
    run.owner_pid = None
    run.save()
    rows = []
    for position, r in enumerate(report.results):
        m = r.mismatch
        rows.append(
            {
                "run": run_id,
                "position": position,
                "name": r.name,
                "kind": r.kind,
                "behaviour": r.behaviour,
                "size": r.size,
                "outcome": r.outcome.value,
                "ceiling": r.ceiling,
                "budget": r.budget,
                "fuel": r.fuel,
                "detail": r.detail,
                "trap_code": r.trap_code,
                "frames": "\n".join(r.frames),
                "output_digest": r.output_digest,
                "mismatch_unit": m.unit if m else None,
                "mismatch_index": m.index if m else None,
                "mismatch_tick": m.tick if m else None,
                "mismatch_expected": None if m is None or m.expected is None else str(m.expected),
                "mismatch_got": None if m is None or m.got is None else str(m.got),
                "snapshot_interval": r.snapshot_interval,
                "checksums": r.checksums,
                "wall_time": r.wall_time,
            }
        )
    for start in range(0, len(rows), 200):
        CaseResultRow.insert_many(rows[start : start + 200]).execute()
    if report.build is not None:
        BuildLog.create(
            run=run_id,
            ok=report.build.ok,
            detail=report.build.detail,
            log=report.build.log,
            seconds=report.build.seconds,
        )


def end_run_without_results(run_id: int, verdict: Verdict) -> None:
    """A cancelled or failed run keeps its row but gets no results."""
    Run.update(verdict=verdict.value, finished=datetime.now(UTC), owner_pid=None).where(
        Run.id == run_id
    ).execute()


def recover_interrupted() -> int:
    """Mark runs left `running` by a process that no longer exists as interrupted."""
    host = socket.gethostname()
    stale = []
    for run in Run.select(Run.id, Run.owner_pid, Run.owner_host).where(Run.verdict == Verdict.RUNNING.value):
        if run.owner_host is None or run.owner_pid is None:
            stale.append(run.id)
        elif run.owner_host == host and not _alive(run.owner_pid):
            stale.append(run.id)  # another host's runs are that host's to recover
    if stale:
        with write_transaction(Run._meta.database):
            CaseResultRow.delete().where(CaseResultRow.run.in_(stale)).execute()
            Run.update(verdict=Verdict.INTERRUPTED.value, owner_pid=None).where(Run.id.in_(stale)).execute()
    return len(stale)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def delete_run(run_id: int) -> None:
    """Remove a run that never started grading (the user declined or the input was bad),
    and give its id back: no run was stored under it."""
    Run.delete().where(Run.id == run_id).execute()
    free_run_id(run_id)


def delete_runs(run_ids: list[int]) -> int:
    """Delete finished runs, graded or harness, for good (call through the Writer: one
    transaction), with their results, build logs and hidden marks, and the submission and
    case rows no run uses. Each child table is cleared by hand, so nothing is left behind
    even on a connection that does not enforce foreign keys. A run still grading is
    refused: its grader would write results for a row that is gone. Their ids are never
    given again (`run_numbers`). Returns how many runs were deleted."""
    graded, harness = stored_ids(run_ids)
    ids = sorted(graded)
    rows = tuples(Run.select(Run.id, Run.verdict).where(Run.id.in_(ids)))
    running = [row[0] for row in rows if row[1] == Verdict.RUNNING.value]
    if running:
        raise UserError(
            f"run {', '.join(map(str, running))} is still grading; cancel it first, then delete it"
        )
    if harness:
        delete_transcripts(sorted(harness))
        HarnessRun.delete().where(HarnessRun.id.in_(sorted(harness))).execute()
    if not ids:
        return len(harness)
    for child in (CaseResultRow.run, BuildLog.run, HiddenRun.run):
        child.model.delete().where(child.in_(ids)).execute()
    Run.delete().where(Run.id.in_(ids)).execute()
    # Grading makes a submission row before the module is known and another after, so
    # unused ones may predate this deletion: every submission and case no run uses goes.
    SubmissionRecord.delete().where(SubmissionRecord.id.not_in(Run.select(Run.submission))).execute()
    CaseRecord.delete().where(CaseRecord.id.not_in(Run.select(Run.case))).execute()
    return len(rows) + len(harness)
