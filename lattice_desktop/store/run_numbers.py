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


def free_run_id(run_id: int) -> None:
    """Give back the id of a run that was never stored (a grade stopped by a usage error
    before it graded anything): an id names only a run that was stored, so `show` must not
    call it deleted, and the next run may take it."""
    RunNumber.delete().where(RunNumber.id == run_id).execute()


def stored_kind(run_id: int) -> str | None:
    """GRADED or HARNESS for a run stored now; None when no run has this id."""
    if Run.select(Run.id).where(Run.id == run_id).exists():
        return GRADED
    if HarnessRun.select(HarnessRun.id).where(HarnessRun.id == run_id).exists():
        return HARNESS
    return None


_CAN_DO = {
    GRADED: "show, export, profile, compare, hide or delete it",
    HARNESS: "show, export, hide or delete it",
}


def no_such_run(run_id: int, *, command: str, takes: str | None = None) -> str:
    """Why `command` cannot act on run `run_id`, saying what the id is: a run of another
    kind than the command `takes` (and what can be done with it), a deleted run, or an id
    never given (with the largest one given)."""
    kind = stored_kind(run_id)
    if kind is not None and takes is not None and kind != takes:
        return (
            f"run {run_id} is a {kind} run; {command} takes {takes} runs "
            f"(you can {_CAN_DO[kind]}: `show {run_id}`; see `runs` for the {takes} runs)"
        )
    if run_kind(run_id) is not None:
        return f"run {run_id} was deleted: its id is not given again (see `runs --all`)"
    largest = max(
        RunNumber.select(fn.MAX(RunNumber.id)).scalar() or 0,
        Run.select(fn.MAX(Run.id)).scalar() or 0,
        HarnessRun.select(fn.MAX(HarnessRun.id)).scalar() or 0,
    )
    if not largest:
        return f"there is no run {run_id}: no run is stored yet"
    return f"there is no run {run_id}: the largest run id is {largest} (see `runs --all`)"
