"""Read-only queries shaped for the app's pages (no Qt): one run with its standing and
case, the leaderboard scopes, the harness runs and one harness run's page, checking the
stored harness runs reproduce. Each runs on a worker thread."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime

from peewee import fn

from lattice_desktop.errors import UserError
from lattice_desktop.harness import HarnessResult, parse_trace
from lattice_desktop.harness import leaderboard as rank_boards
from lattice_desktop.harness.ranking import agent_of, unranked_runs
from lattice_desktop.harness.trace import ToolCall
from lattice_desktop.manifest.case import CaseManifest, load_case
from lattice_desktop.outcomes import Verdict
from lattice_desktop.store.base import tuples
from lattice_desktop.store.field import Standing, standing, unregistered_note
from lattice_desktop.store.harness_runs import (
    StoredHarnessRun,
    list_harness_runs,
    load_harness_run,
    run_name,
    verify_stored,
)
from lattice_desktop.store.harness_tables import HarnessRun
from lattice_desktop.store.hidden_runs import visible
from lattice_desktop.store.queries import RunSummary, StoredRun, list_runs, load_run
from lattice_desktop.store.schema import Run


@dataclass(frozen=True)
class RunPage:
    """Everything the run header and the tabs show for one run."""

    run: StoredRun
    standing: Standing | None
    case: CaseManifest | None
    case_problem: str = ""  # why the case manifest could not be read again
    apart: str | None = None  # its case content is not the registered one of its name: why


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
    s = run.summary
    apart = unregistered_note(s.case_name, s.case_version, s.case_variant, run.manifest_hash)
    return RunPage(run, standing(run_id), case, problem, apart)


@dataclass(frozen=True)
class BoardScope:
    """One leaderboard: a case at a version and variant, measured by one wasmtime."""

    case_name: str
    version: int
    variant: str
    wasmtime_version: str
    runs: int
    latest: int  # the newest run id, to pick the scope most recently used
    content: str | None = None  # the case content: each content is a board of its own


def board_scopes() -> list[BoardScope]:
    """Every (case, version, variant, wasmtime, content) that has finished runs, newest first."""
    rows = tuples(
        Run.select(
            Run.case_name,
            Run.case_version,
            Run.case_variant,
            Run.wasmtime_version,
            fn.COUNT(Run.id),
            fn.MAX(Run.id),
            Run.case_hash,
        )
        .where((Run.verdict != Verdict.RUNNING.value) & visible())
        .group_by(Run.case_name, Run.case_version, Run.case_variant, Run.wasmtime_version, Run.case_hash)
    )
    scopes = [BoardScope(*row) for row in rows]
    return sorted(scopes, key=lambda s: -s.latest)


@dataclass(frozen=True)
class RunsListing:
    """What the runs list shows: performance runs and harness runs, each newest first."""

    runs: list[RunSummary]
    harness: list[StoredHarnessRun]


def runs_listing(include_hidden: bool = False) -> RunsListing:
    runs = list_runs(include_hidden=include_hidden)
    return RunsListing(runs, list_harness_runs(include_hidden=include_hidden))


@dataclass(frozen=True)
class HarnessPage:
    """Everything the run header and the harness Results view show for one harness run."""

    id: int
    imported: datetime | None
    result: HarnessResult
    box_source: str
    trace_source: str
    position: int | None  # on its box's board; None when another run of its agent (harness,
    board_size: int  # model and recorded agent) ranks in its place
    best_id: int | None  # the stored run that ranks for this agent
    loop_calls: tuple[tuple[str, ...], ...]  # per loop: the repeated calls, as recorded


def load_harness_page(stored_id: int) -> HarnessPage | None:
    stored = load_harness_run(stored_id)
    if stored is None:
        return None
    result = stored.result
    board = harness_boards().get((result.stage, result.box), [])
    mine = next((row for row in board if row.stored_id == stored_id), None)
    best = next((row.stored_id for row in board if agent_of(row.result) == agent_of(result)), None)
    return HarnessPage(
        stored.id,
        stored.imported,
        result,
        stored.box_source,
        stored.trace_source,
        None if mine is None else mine.position,
        len(board),
        best,
        _loop_calls(stored_id, result),
    )


def _loop_calls(stored_id: int, result: HarnessResult) -> tuple[tuple[str, ...], ...]:
    """The calls each loop repeats (tool and arguments as recorded), read from the stored
    trace; just the tool names when the trace cannot be read again."""
    if not result.loops:
        return ()
    row = HarnessRun.get_by_id(stored_id)
    try:
        calls = {c.line: c for c in parse_trace(row.trace_text, source=row.trace_source).of(ToolCall)}
    except UserError:
        calls = {}
    shown = []
    for loop in result.loops:
        ordered = sorted(line for line in calls if loop.first_line <= line <= loop.last_line)
        cycle = [calls[line] for line in ordered[: len(loop.tools)]]
        if len(cycle) == len(loop.tools) and all(c.tool == t for c, t in zip(cycle, loop.tools, strict=True)):
            shown.append(tuple(f"{c.tool} {json.dumps(c.arguments, ensure_ascii=False)}" for c in cycle))
        else:
            shown.append(tuple(loop.tools))
    return tuple(shown)


@dataclass(frozen=True)
class HarnessCheck:
    """`verify_stored` over every stored harness run: how many reproduce, and what does not."""

    count: int
    problems: list[tuple[int, list[str]]]  # (stored id, what did not reproduce)

    @property
    def reproduced(self) -> int:
        return self.count - len(self.problems)


def check_harness_runs() -> HarnessCheck:
    return HarnessCheck(HarnessRun.select().count(), verify_stored())


@dataclass(frozen=True)
class HarnessRunRef:
    """A stored harness run as a board names it: its id and its published result."""

    stored_id: int
    result: HarnessResult

    @property
    def ranked(self) -> bool:
        """False for a run that is placed by its Score but not ranked (`result.unranked`)."""
        return self.result.unranked is None

    @property
    def label(self) -> str:
        """The run as the app names it everywhere: "#7 · clean-001"."""
        return f"#{self.stored_id} · {run_name(self.result)}"


@dataclass(frozen=True)
class HarnessBoardRow(HarnessRunRef):
    """One board row: its place (shared by exact ties) and the agent's best run, ranked or
    not (`ranked`); the CLI's `harness leaderboard` prints the same rows."""

    position: int = 0


def harness_boards(
    stored: list[StoredHarnessRun] | None = None,
) -> dict[tuple[str, str], list[HarnessBoardRow]]:
    """One board per (stage, box): each agent at its best run, ranked or not, in the one order
    of `harness.ranking` (Score first for every run)."""
    stored = list_harness_runs() if stored is None else stored
    ids = {id(s.result): s.id for s in stored}
    boards = rank_boards([s.result for s in stored])
    return {
        key: [HarnessBoardRow(ids[id(r.result)], r.result, r.position) for r in ranked]
        for key, ranked in boards.items()
    }


@dataclass(frozen=True)
class BoardChoices:
    scopes: list[BoardScope]
    harness: dict[tuple[str, str], list[HarnessBoardRow]]
    # Per (stage, box): every run that is not ranked (errored, cancelled, Cost unknown), each
    # with its `unranked` reason; its agent's best is still placed on the board by its Score.
    harness_unranked: dict[tuple[str, str], list[HarnessRunRef]] = field(default_factory=dict)

    def harness_keys(self) -> set[tuple[str, str]]:
        return {*self.harness, *self.harness_unranked}


def board_choices() -> BoardChoices:
    stored = list_harness_runs()
    ids = {id(s.result): s.id for s in stored}
    unranked = {
        key: [HarnessRunRef(ids[id(r)], r) for r in results]
        for key, results in unranked_runs([s.result for s in stored]).items()
    }
    return BoardChoices(board_scopes(), harness_boards(stored), unranked)
