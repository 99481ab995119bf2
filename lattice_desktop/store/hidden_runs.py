"""Runs a user hid: kept in the database, left out of the runs list, the field, the
leaderboard and the percentiles until shown again.

Hiding a graded run is a row in its own table rather than a column on `run`: the field's
covering index then still answers the leaderboard alone (every SQLite index carries the row
id, which is all `visible` needs), and hiding never rewrites a run. A harness run (one id
sequence with graded runs, `run_numbers`) is hidden by its own `hidden` column.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from peewee import SQL, DateTimeField, ForeignKeyField, ModelAlias, Node

from lattice_desktop.errors import UserError
from lattice_desktop.store.base import BaseModel, tuples
from lattice_desktop.store.harness_tables import HarnessRun
from lattice_desktop.store.run_numbers import no_such_run
from lattice_desktop.store.schema import Run


class HiddenRun(BaseModel):
    run = ForeignKeyField(Run, primary_key=True, backref="hidden", on_delete="CASCADE")
    hidden = DateTimeField()

    class Meta:
        table_name = "hidden_run"


def visible(table: type[Run] | ModelAlias[Run] = Run) -> Node:
    """`table`'s runs that are not hidden. While no run is hidden (the usual case) this is no
    filter at all, so the field's queries cost what they did before hiding existed; with
    hidden runs, each run in scope costs one lookup by row id."""
    if not HiddenRun.select().exists():
        return SQL("1 = 1")
    return table.id.not_in(HiddenRun.select(HiddenRun.run))


def hide_runs(run_ids: Iterable[int]) -> int:
    """Hide the runs, graded or harness (call through the Writer); return how many were
    newly hidden."""
    graded, harness = stored_ids(run_ids)
    wanted = graded - set(hidden_ids())
    if wanted:
        now = datetime.now(UTC)
        HiddenRun.insert_many([{"run": run_id, "hidden": now} for run_id in sorted(wanted)]).execute()
    newly = 0
    if harness:
        hiding = HarnessRun.id.in_(sorted(harness)) & HarnessRun.hidden.is_null()
        newly = HarnessRun.update(hidden=datetime.now(UTC)).where(hiding).execute()
    return len(wanted) + newly


def unhide_runs(run_ids: Iterable[int]) -> int:
    """Show hidden runs again (call through the Writer); return how many were hidden."""
    graded, harness = stored_ids(run_ids)
    shown = HiddenRun.delete().where(HiddenRun.run.in_(sorted(graded))).execute() if graded else 0
    if harness:
        hidden = HarnessRun.id.in_(sorted(harness)) & HarnessRun.hidden.is_null(False)
        shown += HarnessRun.update(hidden=None).where(hidden).execute()
    return shown


def stored_ids(run_ids: Iterable[int]) -> tuple[set[int], set[int]]:
    """The ids split into graded runs and harness runs; an id that is neither is the user's
    mistake, named."""
    wanted = sorted(set(run_ids))
    graded = {row.id for row in Run.select(Run.id).where(Run.id.in_(wanted))}
    harness = {row.id for row in HarnessRun.select(HarnessRun.id).where(HarnessRun.id.in_(wanted))}
    missing = set(wanted) - graded - harness
    if missing:
        raise UserError("; ".join(no_such_run(run_id, command="") for run_id in sorted(missing)))
    return graded, harness


def hidden_ids() -> list[int]:
    return [run_id for (run_id,) in tuples(HiddenRun.select(HiddenRun.run).order_by(HiddenRun.run))]
