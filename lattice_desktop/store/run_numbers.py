"""One id sequence for every stored run, graded or harness.

A graded run (`run`) and a harness run (`harness_run`) live in tables of their own, but a
user names either by one number: `show 12`, `hide 12`, `export run 12`. So each new run
takes its id here first, and the id is never given again: every id ever handed out keeps
its row in `run_number` (a deleted run's row stays, as a tombstone), and the next id is one
past the largest of this table and both run tables. That is the same rule on SQLite (which
would otherwise reuse the largest rowid after a delete) and on PostgreSQL, and it holds
even for a run row written without asking here (an older script, a test's fixture).
"""

from __future__ import annotations

from peewee import CharField, IntegerField, fn

from lattice_desktop.store.base import BaseModel
from lattice_desktop.store.harness_tables import HarnessRun
from lattice_desktop.store.schema import Run

GRADED = "graded"  # a submission graded against a case (table `run`)
HARNESS = "harness"  # an agent-harness trace scored against a box (table `harness_run`)


class RunNumber(BaseModel):
    id = IntegerField(primary_key=True)
    kind = CharField()  # GRADED or HARNESS: which table the run lives (or lived) in

    class Meta:
        table_name = "run_number"


RUN_NUMBER_TABLES = [RunNumber]


def allocate_run_id(kind: str) -> int:
    """A new run id, recorded as used (call inside the write transaction that stores the run)."""
    largest = max(
        RunNumber.select(fn.MAX(RunNumber.id)).scalar() or 0,
        Run.select(fn.MAX(Run.id)).scalar() or 0,
        HarnessRun.select(fn.MAX(HarnessRun.id)).scalar() or 0,
    )
    RunNumber.insert(id=largest + 1, kind=kind).execute()
    return largest + 1


def run_kind(run_id: int) -> str | None:
    """GRADED or HARNESS for an id ever handed out (the run may since have been deleted)."""
    row = RunNumber.get_or_none(RunNumber.id == run_id)
    return None if row is None else str(row.kind)
