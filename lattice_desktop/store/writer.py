"""One writer thread: every database write in the process goes through it.

SQLite allows one writer at a time, and many writer threads end in "database is
locked"; funnelling writes through a single thread keeps them ordered and safe. Each
call is one `write_transaction`, so writers in other processes wait their turn too.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from peewee import Database, DatabaseError

from lattice_desktop.errors import Location, StorageError
from lattice_desktop.store.base import db_proxy, write_transaction

T = TypeVar("T")


class Writer:
    """The writer of one database: its thread stays bound to `db`, whichever database the
    process opens later."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._executor = ThreadPoolExecutor(1, "db-writer", initializer=db_proxy.bind_thread, initargs=(db,))

    def submit(self, fn: Callable[..., T], *args: object) -> Future[T]:
        """Run `fn(*args)` on the writer thread inside one transaction."""
        return self._executor.submit(self._in_transaction, fn, *args)

    def call(self, fn: Callable[..., T], *args: object) -> T:
        return self.submit(fn, *args).result()

    def _in_transaction(self, fn: Callable[..., T], *args: object) -> T:
        from lattice_desktop.store.database import explain

        try:
            with write_transaction(self.db):
                return fn(*args)
        except DatabaseError as exc:  # locked, read-only, disk full: the user can act on it
            raise StorageError(explain(exc, str(self.db.database)), Location(str(self.db.database))) from None

    def close(self) -> None:
        self._executor.shutdown(wait=True)
