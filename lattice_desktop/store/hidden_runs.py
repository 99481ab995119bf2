"""Runs a user hid: kept in the database, left out of the runs list, the field, the
leaderboard and the percentiles until shown again.

Hiding is a row in its own table rather than a column on `run`: the field's covering index
then still answers the leaderboard alone (every SQLite index carries the row id, which is
all `visible` needs), and hiding never rewrites a run.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from peewee import SQL, DateTimeField, ForeignKeyField, ModelAlias, Node

from lattice_desktop.errors import UserError
from lattice_desktop.store.base import BaseModel, tuples
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
    """Hide the runs (call through the Writer); return how many were newly hidden."""
    wanted = _stored(run_ids) - set(hidden_ids())
    if wanted:
        now = datetime.now(UTC)
        HiddenRun.insert_many([{"run": run_id, "hidden": now} for run_id in sorted(wanted)]).execute()
    return len(wanted)


def unhide_runs(run_ids: Iterable[int]) -> int:
    """Show hidden runs again (call through the Writer); return how many were hidden."""
    ids = sorted(_stored(run_ids))
    return HiddenRun.delete().where(HiddenRun.run.in_(ids)).execute() if ids else 0


def _stored(run_ids: Iterable[int]) -> set[int]:
    """The ids, each a stored run; an unknown one is the user's mistake, named."""
    wanted = set(run_ids)
    found = {row.id for row in Run.select(Run.id).where(Run.id.in_(sorted(wanted)))}
    if wanted - found:
        missing = ", ".join(map(str, sorted(wanted - found)))
        raise UserError(f"there is no run {missing} (see `lattice-desktop runs --all`)")
    return found


def hidden_ids() -> list[int]:
    return [run_id for (run_id,) in tuples(HiddenRun.select(HiddenRun.run).order_by(HiddenRun.run))]
