"""Storing scored harness runs with their inputs verbatim, and checking they reproduce."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from lattice_desktop.harness import Box, HarnessResult, parse_box, parse_trace, score
from lattice_desktop.harness.ranking import Ranked, leaderboard, unranked_runs
from lattice_desktop.harness.result import verify
from lattice_desktop.harness.transcript import transcript_rows
from lattice_desktop.store.harness_tables import HarnessRun
from lattice_desktop.store.run_numbers import HARNESS, allocate_run_id
from lattice_desktop.store.stored_values import stored_time
from lattice_desktop.store.transcripts import PackedTranscript, pack, store_transcript


@dataclass(frozen=True)
class StoredHarnessRun:
    id: int
    imported: datetime | None  # None: the stored time could not be read
    result: HarnessResult
    box_source: str
    trace_source: str
    hidden: bool = False  # left out of the runs list and the boards until shown again

    @property
    def name(self) -> str:
        """What the run is called in lists: an Inspect AI sample by its task, sample and epoch
        (its eval id is a random string no one recognises), any other run by its trace's id."""
        return run_name(self.result)

    @property
    def group(self) -> str:
        """The runs list's top-level group: the box and its stage."""
        return f"{self.result.box} · {self.result.stage}"


def run_name(result: HarnessResult) -> str:
    origin = result.origin or {}
    if origin.get("format") == "inspect_ai" and origin.get("sample_id") is not None:
        task = origin.get("task") or "inspect"
        return f"{task} · sample {origin['sample_id']} · epoch {origin.get('epoch', 1)}"
    return result.run_id


@dataclass(frozen=True)
class ScoredRun:
    """One run scored on a worker, with its inputs verbatim, ready to insert."""

    box_source: str
    box_text: str
    trace_source: str
    trace_text: str
    result: HarnessResult
    transcript: PackedTranscript | None = None


def score_text(
    box: Box, box_text: str, trace_source: str, trace_text: str, messages: Sequence[dict[str, Any]] = ()
) -> ScoredRun:
    """Score one run's trace text against an already parsed box, and make its transcript
    (pure: call on a worker). A run converted from another format (an Inspect AI log's
    sample) is stored as the trace it became, so `verify` recomputes it like any other;
    `messages` are what that format holds beyond the trace, kept for the transcript."""
    trace = parse_trace(trace_text, source=trace_source)
    result = score(box, trace)
    transcript = pack(transcript_rows(trace_text, trace, result, box, messages))
    return ScoredRun(box.source, box_text, trace_source, trace_text, result, transcript)


def insert_runs(runs: list[ScoredRun]) -> list[int]:
    """Insert already scored runs (call on the writer: one transaction, no scoring in it)."""
    now = datetime.now(UTC)
    ids = []
    for run in runs:
        result = run.result
        row = HarnessRun.create(
            id=allocate_run_id(HARNESS),
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
        if run.transcript is not None:
            store_transcript(row.id, run.transcript)
        ids.append(row.id)
    return ids


def _stored(row: HarnessRun) -> StoredHarnessRun:
    return StoredHarnessRun(
        row.id,
        stored_time(row.imported),
        HarnessResult.from_json(row.result_json),
        row.box_source,
        row.trace_source,
        row.hidden is not None,
    )


def list_harness_runs(box: str | None = None, *, include_hidden: bool = False) -> list[StoredHarnessRun]:
    """Newest first, without the stored box and trace texts (they can be large); hidden
    runs only with `include_hidden`."""
    query = HarnessRun.select(
        HarnessRun.id,
        HarnessRun.imported,
        HarnessRun.result_json,
        HarnessRun.box_source,
        HarnessRun.trace_source,
        HarnessRun.hidden,
    ).order_by(HarnessRun.id.desc())
    if box:
        query = query.where(HarnessRun.box == box)
    if not include_hidden:
        query = query.where(HarnessRun.hidden.is_null())
    return [_stored(r) for r in query]


def harness_box_names() -> list[str]:
    """The boxes that have shown (not hidden) harness runs, sorted."""
    query = HarnessRun.select(HarnessRun.box).where(HarnessRun.hidden.is_null()).distinct()
    return sorted(r.box for r in query)


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


@dataclass(frozen=True)
class StoredRanked:
    """A board's row: its place, the stored run's id (one sequence with graded runs) and
    its published result."""

    position: int
    run_id: int
    result: HarnessResult


def harness_leaderboards(box: str | None = None) -> dict[tuple[str, str], list[StoredRanked]]:
    """Per (stage, box): each agent by its best stored ranked run, each row naming its run."""
    stored = list_harness_runs(box)
    ids = {id(s.result): s.id for s in stored}
    boards: dict[tuple[str, str], list[Ranked]] = leaderboard([s.result for s in stored])
    return {
        key: [StoredRanked(r.position, ids[id(r.result)], r.result) for r in ranked]
        for key, ranked in boards.items()
    }


def harness_unranked(box: str | None = None) -> dict[tuple[str, str], list[tuple[int, HarnessResult]]]:
    """Per (stage, box): the stored runs kept out of the ranking (their ids and results,
    with the reasons inside)."""
    stored = list_harness_runs(box)
    ids = {id(s.result): s.id for s in stored}
    return {
        key: [(ids[id(r)], r) for r in results]
        for key, results in unranked_runs([s.result for s in stored]).items()
    }
