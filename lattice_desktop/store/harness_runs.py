"""Storing scored harness runs with their inputs verbatim, and checking they reproduce."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from lattice_desktop.harness import Box, HarnessResult, parse_box, parse_trace, score
from lattice_desktop.harness.box import MAX_BOX_BYTES
from lattice_desktop.harness.ranking import Ranked, leaderboard, unranked_runs
from lattice_desktop.harness.result import verify
from lattice_desktop.harness.trace_file import MAX_TRACE_BYTES
from lattice_desktop.store.harness_tables import HarnessRun
from lattice_desktop.store.stored_values import stored_time
from lattice_desktop.textfile import read_text


@dataclass(frozen=True)
class StoredHarnessRun:
    id: int
    imported: datetime | None  # None: the stored time could not be read
    result: HarnessResult
    box_source: str
    trace_source: str

    @property
    def group(self) -> str:
        """The runs list's top-level group: the box and its stage."""
        return f"{self.result.box} · {self.result.stage}"


@dataclass(frozen=True)
class ScoredRun:
    """One run scored on a worker, with its inputs verbatim, ready to insert."""

    box_source: str
    box_text: str
    trace_source: str
    trace_text: str
    result: HarnessResult


def score_text(box: Box, box_text: str, trace_source: str, trace_text: str) -> ScoredRun:
    """Score one run's trace text against an already parsed box (pure: call on a worker).
    A run converted from another format (an Inspect AI log's sample) is stored as the trace
    it became, so `verify` recomputes it like any other."""
    result = score(box, parse_trace(trace_text, source=trace_source))
    return ScoredRun(box.source, box_text, trace_source, trace_text, result)


def insert_runs(runs: list[ScoredRun]) -> list[int]:
    """Insert already scored runs (call on the writer: one transaction, no scoring in it)."""
    now = datetime.now(UTC)
    ids = []
    for run in runs:
        result = run.result
        row = HarnessRun.create(
            box=result.box,
            stage=result.stage,
            harness=result.harness,
            model=result.model,
            score=result.metrics["score"].value,
            execution=result.execution.value,
            last_capture=result.last_capture_elapsed_s,
            box_source=run.box_source,
            box_text=run.box_text,
            trace_source=run.trace_source,
            trace_text=run.trace_text,
            result_json=result.to_json(),
            imported=now,
        )
        ids.append(row.id)
    return ids


def import_run(box_path: str | Path, trace_path: str | Path) -> int:
    """Score and store one run trace in one call (for scripts and tests: the app and the CLI
    score on a worker and only insert on the writer, `services.harness_import`)."""
    box_text = read_text(box_path, limit=MAX_BOX_BYTES, what="box file")
    trace_text = read_text(trace_path, limit=MAX_TRACE_BYTES, what="trace")
    box = parse_box(box_text, source=str(box_path))
    return insert_runs([score_text(box, box_text, str(trace_path), trace_text)])[0]


def _stored(row: HarnessRun) -> StoredHarnessRun:
    return StoredHarnessRun(
        row.id,
        stored_time(row.imported),
        HarnessResult.from_json(row.result_json),
        row.box_source,
        row.trace_source,
    )


def list_harness_runs(box: str | None = None) -> list[StoredHarnessRun]:
    """Newest first, without the stored box and trace texts (they can be large)."""
    query = HarnessRun.select(
        HarnessRun.id,
        HarnessRun.imported,
        HarnessRun.result_json,
        HarnessRun.box_source,
        HarnessRun.trace_source,
    ).order_by(HarnessRun.id.desc())
    if box:
        query = query.where(HarnessRun.box == box)
    return [_stored(r) for r in query]


def load_harness_run(run_id: int) -> StoredHarnessRun | None:
    row = HarnessRun.get_or_none(HarnessRun.id == run_id)
    return None if row is None else _stored(row)


def verify_stored() -> list[tuple[int, list[str]]]:
    """Recompute every stored run from its stored inputs; list what does not reproduce."""
    problems = []
    for row in HarnessRun.select().order_by(HarnessRun.id):
        stored = HarnessResult.from_json(row.result_json)
        box = parse_box(row.box_text, source=row.box_source)
        trace = parse_trace(row.trace_text, source=row.trace_source)
        found = verify(box, trace, stored)
        if found:
            problems.append((row.id, found))
    return problems


def harness_leaderboards(box: str | None = None) -> dict[tuple[str, str], list[Ranked]]:
    """Per (stage, box): each agent by its best stored ranked run."""
    return leaderboard([s.result for s in list_harness_runs(box)])


def harness_unranked(box: str | None = None) -> dict[tuple[str, str], list[HarnessResult]]:
    """Per (stage, box): the stored runs kept out of the ranking, with their reasons."""
    return unranked_runs([s.result for s in list_harness_runs(box)])
