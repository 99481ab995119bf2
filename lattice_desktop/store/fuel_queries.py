"""Fuel across the field, per case: the best any model did, and runs to compare with.

The field is the run's case name, version, variant and wasmtime version (fuel is only
comparable within one wasmtime version). A case's best counts correct answers only —
passes and over-ceiling answers alike, since both are right and both burned fuel.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from peewee import fn

from lattice_desktop.outcomes import Outcome, Verdict
from lattice_desktop.store.base import tuples
from lattice_desktop.store.field import same_field
from lattice_desktop.store.schema import CaseResultRow, Run, SubmissionRecord
from lattice_desktop.store.stored_values import stored_fuel, stored_time

CORRECT = (Outcome.PASS.value, Outcome.OVER_CEILING.value)


@dataclass(frozen=True)
class CaseBest:
    case: str
    fuel: int
    run_id: int
    model: str


@dataclass(frozen=True)
class Comparable:
    """A finished run of the same field, for the compare picker."""

    run_id: int
    model: str
    submission: str
    verdict: Verdict
    score: int | None
    started: datetime | None

    def describe(self) -> str:
        return f"#{self.run_id} {self.model} · {self.submission} · {self.verdict.look.text}"


def field_best_per_case(run_id: int) -> dict[str, CaseBest]:
    """Per case name, the lowest fuel of a correct answer in the run's field."""
    run = Run.get_or_none(Run.id == run_id)
    if run is None:
        return {}
    minima: dict[str, int] = dict(
        tuples(
            CaseResultRow.select(CaseResultRow.name, fn.MIN(CaseResultRow.fuel))
            .join(Run)
            .where(same_field(run) & CaseResultRow.outcome.in_(CORRECT) & CaseResultRow.fuel.is_null(False))
            .group_by(CaseResultRow.name)
        )
    )
    out: dict[str, CaseBest] = {}
    if not minima:
        return out
    holders = (
        CaseResultRow.select(CaseResultRow.name, CaseResultRow.fuel, Run.id, Run.model)
        .join(Run)
        .where(same_field(run) & CaseResultRow.outcome.in_(CORRECT) & CaseResultRow.name.in_(list(minima)))
        .order_by(Run.id)
    )
    for row in holders:
        if row.fuel == minima[row.name] and row.name not in out:
            out[row.name] = CaseBest(row.name, minima[row.name], row.run.id, row.run.model)
    return out


def comparable_runs(run_id: int, *, limit: int = 500) -> list[Comparable]:
    """Other finished runs of the same field, the best-scoring first."""
    run = Run.get_or_none(Run.id == run_id)
    if run is None:
        return []
    finished = [Verdict.CORRECT.value, Verdict.OVER_CEILING.value, Verdict.INCORRECT.value]
    query = (
        Run.select(Run, SubmissionRecord)
        .join(SubmissionRecord)
        .where(same_field(run) & (Run.id != run_id) & Run.verdict.in_(finished))
        .order_by(Run.score.is_null(), Run.score, Run.stress_fuel, Run.id.desc())
        .limit(limit)
    )
    return [
        Comparable(
            r.id,
            r.model,
            r.submission.name,
            Verdict.stored(r.verdict),
            stored_fuel(r.score),
            stored_time(r.started),
        )
        for r in query
    ]
