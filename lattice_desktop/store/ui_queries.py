"""Read-only queries shaped for the app's pages (no Qt): one run with its standing and
case, the leaderboard scopes, the harness runs. Each runs on a worker thread."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from peewee import fn

from lattice_desktop.errors import UserError
from lattice_desktop.grading.outcomes import Verdict
from lattice_desktop.manifest.case import CaseManifest, load_case
from lattice_desktop.store.field import Standing, standing
from lattice_desktop.store.harness_tables import HarnessRun
from lattice_desktop.store.queries import StoredRun, load_run
from lattice_desktop.store.schema import Run


@dataclass(frozen=True)
class RunPage:
    """Everything the run header and the tabs show for one run."""

    run: StoredRun
    standing: Standing | None
    case: CaseManifest | None
    case_problem: str = ""  # why the case manifest could not be read again


def load_run_page(run_id: int) -> RunPage | None:
    run = load_run(run_id)
    if run is None:
        return None
    case, problem = None, ""
    try:
        case = load_case(run.manifest_path)
    except UserError as exc:
        problem = str(exc)
    except OSError as exc:
        problem = f"{run.manifest_path}: {exc.strerror or exc}"
    return RunPage(run, standing(run_id), case, problem)


@dataclass(frozen=True)
class BoardScope:
    """One leaderboard: a case at a version and variant, measured by one wasmtime."""

    case_name: str
    version: int
    variant: str
    wasmtime_version: str
    runs: int
    latest: int  # the newest run id, to pick the scope most recently used


def board_scopes() -> list[BoardScope]:
    """Every (case, version, variant, wasmtime) that has finished runs, newest first."""
    rows = (
        Run.select(Run.case_name, Run.case_version, Run.case_variant, Run.wasmtime_version,
                   fn.COUNT(Run.id), fn.MAX(Run.id))
        .where(Run.verdict != Verdict.RUNNING.value)
        .group_by(Run.case_name, Run.case_version, Run.case_variant, Run.wasmtime_version)
        .tuples()
    )
    scopes = [BoardScope(*row) for row in rows]
    return sorted(scopes, key=lambda s: -s.latest)


def run_count() -> int:
    return Run.select().count()


@dataclass(frozen=True)
class StoredHarnessRun:
    id: int
    imported: datetime
    result: object  # lattice_desktop.harness.HarnessResult


def harness_runs() -> list[StoredHarnessRun]:
    """Scored agent-harness runs, newest first, their published results decoded."""
    from lattice_desktop.harness import HarnessResult

    rows = HarnessRun.select().order_by(HarnessRun.id.desc())
    return [
        StoredHarnessRun(row.id, row.imported, HarnessResult.from_dict(json.loads(row.result_json)))
        for row in rows
    ]


@dataclass(frozen=True)
class HarnessBoardRow:
    position: int
    stored_id: int
    result: object  # HarnessResult


def harness_boards() -> dict[tuple[str, str], list[HarnessBoardRow]]:
    """One board per (stage, box): each harness and model at its best run."""
    from lattice_desktop.harness import leaderboard as rank_boards

    stored = harness_runs()
    ids = {id(s.result): s.id for s in stored}
    boards = rank_boards([s.result for s in stored])
    return {
        key: [HarnessBoardRow(r.position, ids[id(r.result)], r.result) for r in ranked]
        for key, ranked in boards.items()
    }


@dataclass(frozen=True)
class BoardChoices:
    scopes: list[BoardScope]
    harness: dict[tuple[str, str], list[HarnessBoardRow]]


def board_choices() -> BoardChoices:
    return BoardChoices(board_scopes(), harness_boards())
