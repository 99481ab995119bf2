"""Storing scored harness runs with their inputs verbatim, and checking they reproduce."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from lattice_desktop.harness import HarnessResult, parse_box, parse_trace, score
from lattice_desktop.harness.box import MAX_BOX_BYTES
from lattice_desktop.harness.ranking import Ranked, leaderboard
from lattice_desktop.harness.result import verify
from lattice_desktop.harness.trace import MAX_TRACE_BYTES
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


def score_files(box_path: str | Path, trace_path: str | Path) -> tuple[str, str, HarnessResult]:
    box_text = read_text(box_path, limit=MAX_BOX_BYTES, what="box file")
    trace_text = read_text(trace_path, limit=MAX_TRACE_BYTES, what="trace")
    result = score(parse_box(box_text, source=str(box_path)), parse_trace(trace_text, source=str(trace_path)))
    return box_text, trace_text, result


def store_run(box_source: str, box_text: str, trace_source: str, trace_text: str) -> int:
    """Score one run from its texts and store it with them verbatim (call on the writer
    thread). A run converted from another format (an Inspect AI log's sample) is stored
    as the trace it became, so `verify` recomputes it like any other."""
    result = score(parse_box(box_text, source=box_source), parse_trace(trace_text, source=trace_source))
    row = HarnessRun.create(
        box=result.box,
        stage=result.stage,
        harness=result.harness,
        model=result.model,
        score=result.metrics["score"].value,
        execution=result.execution.value,
        last_capture=result.last_capture_elapsed_s,
        box_source=box_source,
        box_text=box_text,
        trace_source=trace_source,
        trace_text=trace_text,
        result_json=result.to_json(),
        imported=datetime.now(UTC),
    )
    return row.id


def import_run(box_path: str | Path, trace_path: str | Path) -> int:
    """Score and store one run trace (call on the writer thread)."""
    box_text = read_text(box_path, limit=MAX_BOX_BYTES, what="box file")
    trace_text = read_text(trace_path, limit=MAX_TRACE_BYTES, what="trace")
    return store_run(str(box_path), box_text, str(trace_path), trace_text)


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
    """Per (stage, box): each harness and model by its best stored run."""
    return leaderboard([s.result for s in list_harness_runs(box)])
