"""What an export holds, as tables of plain values: a run's case results, the runs list,
a leaderboard. CSV writes the values as they are; HTML formats them for reading."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction

from lattice_desktop.manifest.case_identity import CaseIdentity
from lattice_desktop.services.run_report import detail_text
from lattice_desktop.store.field import BoardEntry, Leaderboard
from lattice_desktop.store.harness_runs import StoredHarnessRun
from lattice_desktop.store.queries import ListedRun, StoredRun
from lattice_desktop.store.run_numbers import GRADED, HARNESS

Cell = str | int | float | None


@dataclass(frozen=True)
class Table:
    title: str
    headers: tuple[str, ...]
    rows: list[tuple[Cell, ...]]


# Every table that names a case says which content it is and whether that is registered.
IDENTITY_HEADERS = ("case_content", "registered", "unregistered")


def identity_cells(identity: CaseIdentity) -> tuple[Cell, ...]:
    return (identity.content or None, "yes" if identity.registered else "no", identity.note or None)


RESULT_HEADERS = (
    "run",
    "case",
    *IDENTITY_HEADERS,
    "model",
    "submission",
    "verdict",
    "kind",
    "name",
    "behaviour",
    "size",
    "outcome",
    "fuel",
    "ceiling",
    "runway_end",
    "percent_of_ceiling",
    "overshoot",
    "detail",
)


def result_table(run: StoredRun) -> Table:
    """One row per case result, smoke tests first, each carrying its run's identity so the
    rows of several exported runs can be put together."""
    s = run.summary
    ordered = [r for r in run.results if r.is_smoke] + [r for r in run.results if not r.is_smoke]
    rows: list[tuple[Cell, ...]] = [
        (
            s.id,
            s.labelled_case,
            *identity_cells(s.identity),
            s.model,
            s.submission,
            s.verdict.value,
            r.kind,
            r.name,
            r.behaviour,
            r.size,
            r.outcome.value,
            r.fuel,
            r.ceiling,
            r.budget,
            None if r.percent_of_ceiling is None else round(r.percent_of_ceiling, 2),
            r.overshoot,
            detail_text(r, exact=True),
        )
        for r in ordered
    ]
    return Table("Case results", RESULT_HEADERS, rows)


RUN_HEADERS = (
    "run",
    "case",
    "version",
    "variant",
    *IDENTITY_HEADERS,
    "model",
    "submission",
    "verdict",
    "score",
    "stress_fuel",
    "max_percent_over",
    "started",
    "finished",
    "hidden",
    "kind",  # graded or harness: a harness run's Score and Execution are in the next two
    "harness_score",
    "execution",
)


def runs_table(runs: Sequence[ListedRun]) -> Table:
    """Graded and harness runs in one table: a harness run's box and stage stand where a
    case and variant would, its name where a submission would, its 0..1 Score and
    Execution in columns of their own (never in the fuel score)."""
    return Table("Runs", RUN_HEADERS, [_run_row(r) for r in runs])


def metric_value(value: float | Fraction | None) -> float | None:
    """A harness metric's stored value as a plain float (None: missing, never 0)."""
    return None if value is None else float(value)


def _run_row(r: ListedRun) -> tuple[Cell, ...]:
    if isinstance(r, StoredHarnessRun):
        h = r.result
        return (
            r.id,
            h.box,
            None,
            h.stage,
            None,
            None,
            None,
            f"{h.harness} / {h.model}",
            r.name,
            "harness",
            None,
            None,
            None,
            _when(r.imported),
            _when(r.imported),
            "yes" if r.hidden else "no",
            HARNESS,
            metric_value(h.metrics["score"].value),
            metric_value(h.execution.value),
        )
    return (
        r.id,
        r.case_name,
        r.case_version,
        r.case_variant,
        *identity_cells(r.identity),
        r.model,
        r.submission,
        r.verdict.value,
        r.score,
        r.stress_fuel,
        r.max_percent_over,
        _when(r.started),
        _when(r.finished),
        "yes" if r.hidden else "no",
        GRADED,
        None,
        None,
    )


BOARD_HEADERS = (
    "case",
    *IDENTITY_HEADERS,
    "section",
    "rank",
    "model",
    "run",
    "fuel",
    "times_leader",
    "runs",
    "date",
    "percent_over",
)


def board_table(board: Leaderboard, *, with_case: bool = True) -> Table:
    """The ranked models, then the models whose best answer was over the ceiling (unranked),
    each row naming the board's case and its identity (unless `with_case` is off: a page
    that says it once above the table)."""
    identity = board.identity
    case = (identity.label, *identity_cells(identity)) if with_case else ()

    def row(section: str, e: BoardEntry) -> tuple[Cell, ...]:
        return (
            *case,
            section,
            e.rank or None,
            e.model,
            e.run_id,
            e.fuel,
            round(e.ratio, 4),
            e.runs,
            _when(e.date),
            None if e.percent_over is None else round(e.percent_over, 2),
        )

    rows = [row("ranked", e) for e in board.entries] + [row("over_ceiling", e) for e in board.over_ceiling]
    headers = BOARD_HEADERS if with_case else BOARD_HEADERS[1 + len(IDENTITY_HEADERS) :]
    return Table("Leaderboard", headers, rows)


def board_scope(board: Leaderboard) -> str:
    return (
        f"{board.case_name} {board.version}/{board.variant} · wasmtime {board.wasmtime_version} "
        f"· {board.content_label}"
    )


def _when(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat(timespec="seconds")
