"""The database handle every table binds to.

Which database a table means is chosen per thread: a thread bound to a database (each
`Writer`'s thread is bound to its own) always uses that one; any other thread uses the
database opened last. So two databases open in one process stay apart.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from peewee import Database, DatabaseProxy, Model


class ThreadBoundProxy(DatabaseProxy):
    """A `DatabaseProxy` that resolves to the current thread's database, if it has one."""

    __slots__ = ("_default", "_local")

    def __init__(self) -> None:
        object.__setattr__(self, "_local", threading.local())
        object.__setattr__(self, "_default", None)
        super().__init__()

    def __setattr__(self, attr: str, value: object) -> None:
        object.__setattr__(self, attr, value)

    def initialize(self, obj: Database | None) -> None:
        """Make `obj` the database of every thread not bound to one."""
        object.__setattr__(self, "_default", obj)
        for callback in self._callbacks:
            callback(obj)

    @property
    def obj(self) -> Database | None:  # type: ignore[override]
        return getattr(self._local, "db", None) or self._default

    def bind_thread(self, db: Database | None) -> None:
        """From now on this thread uses `db` (None: the database opened last)."""
        self._local.db = db

    @contextmanager
    def bound(self, db: Database) -> Iterator[Database]:
        """This thread uses `db` inside the block."""
        previous = getattr(self._local, "db", None)
        self._local.db = db
        try:
            yield db
        finally:
            self._local.db = previous


db_proxy = ThreadBoundProxy()


class BaseModel(Model):
    class Meta:
        database = db_proxy
        legacy_table_names = False
