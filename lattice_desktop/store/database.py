"""Open the database: SQLite in the user data folder by default, or a URL (PostgreSQL).

`describe` (from `database_url`) names it to the user without its password."""

from __future__ import annotations

import errno
import importlib
import os
import sqlite3
from contextlib import closing
from pathlib import Path

import platformdirs
from peewee import Database, DatabaseError, SqliteDatabase

from lattice_desktop.errors import Location, StorageError
from lattice_desktop.store.base import db_proxy
from lattice_desktop.store.database_url import connect_url, describe, scrub
from lattice_desktop.store.migrations import migrate
from lattice_desktop.store.stored_values import stored_text

ENV_VAR = "LATTICE_DESKTOP_DB"


def default_location() -> str:
    return os.environ.get(ENV_VAR) or str(Path(platformdirs.user_data_dir("lattice-desktop")) / "lattice.db")


class LenientSqliteDatabase(SqliteDatabase):
    """SQLite whose connections read text that is not UTF-8 (written by another program)
    with replacement characters, so such a row is shown damaged instead of failing a query."""

    def _connect(self) -> sqlite3.Connection:
        conn: sqlite3.Connection = super()._connect()  # type: ignore[misc]  # not in peewee's stubs
        conn.text_factory = stored_text
        return conn


def open_database(
    target: str | Path | None = None, *, recover: bool = True, busy_timeout: float = 10.0
) -> Database:
    """Open (creating and migrating as needed); threads not bound to a database (see
    store/base.py) use this one from now on."""
    target = str(target or default_location())
    db: Database
    try:
        if "://" in target:
            require_driver(target)
            db = connect_url(target)
        elif target.startswith("file:"):  # an SQLite URI, e.g. file:runs.db?mode=ro
            db = LenientSqliteDatabase(target, uri=True, timeout=busy_timeout, pragmas={"foreign_keys": 1})
        else:
            path = Path(target)
            if path.exists() and path.is_dir():
                raise StorageError("is a folder, not a database file", Location(target))
            read_only = read_only_reason(path)
            if read_only:
                raise StorageError(read_only, Location(target))
            foreign = foreign_tables(path)
            if foreign:
                raise StorageError(
                    f"this SQLite file belongs to another program (tables {', '.join(foreign[:5])}"
                    f"{'…' if len(foreign) > 5 else ''}); it was left unchanged — choose another "
                    "file with --db",
                    Location(target),
                )
            path.parent.mkdir(parents=True, exist_ok=True)
            db = LenientSqliteDatabase(
                str(path),
                timeout=busy_timeout,
                pragmas={"journal_mode": "wal", "foreign_keys": 1, "synchronous": "normal"},
            )
        db_proxy.initialize(db)
        db.connect(reuse_if_open=True)
        with db_proxy.bound(db):
            migrate(db)
            if recover:
                from lattice_desktop.store.runs import recover_interrupted

                recover_interrupted()
    except StorageError as exc:
        if exc.location.file is None:
            raise StorageError(exc.message, Location(describe(target))) from None
        raise
    except (DatabaseError, sqlite3.Error, OSError) as exc:
        raise StorageError(scrub(explain(exc, target), target), Location(describe(target))) from None
    return db


POSTGRES_HINT = "a PostgreSQL database needs the postgres extra: pip install 'lattice-desktop[postgres]'"


def require_driver(url: str) -> None:
    """Refuse a postgresql:// URL up front when psycopg2 (the `postgres` extra) is missing,
    naming what to install; peewee would only fail at the first query, with a traceback."""
    if not url.split("://", 1)[0].startswith("postgres"):
        return
    try:
        importlib.import_module("psycopg2")
    except ImportError:
        raise StorageError(POSTGRES_HINT, Location(describe(url))) from None


def read_only_reason(path: Path) -> str | None:
    """Why a database at `path` could not be written, found before SQLite half-opens it.

    Checks the mount (root ignores file modes but not a read-only file system), then the
    file and its folder: WAL mode writes `-wal` and `-shm` files next to the database.
    """
    existing = path if path.exists() else next((p for p in path.parents if p.exists()), None)
    if existing is None:
        return None
    try:
        if os.statvfs(existing).f_flag & os.ST_RDONLY:
            return "the database is on a read-only file system; choose a writable file with --db"
    except OSError:
        return None
    if path.exists() and not os.access(path, os.W_OK):
        return "the database file is read-only; make it writable or choose another file with --db"
    folder = path.parent if path.parent.exists() else existing
    if not os.access(folder, os.W_OK | os.X_OK):
        return (
            f"the folder {folder} is read-only (the database needs to write files next to "
            "itself); choose a writable place with --db"
        )
    return None


def foreign_tables(path: Path) -> list[str]:
    """The tables of an existing SQLite file that holds tables but is not one of ours (no
    schema_version), read without writing a byte: opening it as ours would add our tables and
    switch it to WAL."""
    if not path.is_file() or path.stat().st_size == 0:
        return []
    try:
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            names = [
                row[0]
                for row in db.execute(
                    "select name from sqlite_master where type = 'table' and name not like 'sqlite_%'"
                )
            ]
    except sqlite3.Error:
        return []  # not a database, or locked: opening it says which
    return [] if not names or "schema_version" in names else sorted(names)


def disk_full(exc: BaseException, target: str | None = None) -> bool:
    """Whether a database error (or one it masks, like a failed rollback) means the disk is full."""
    seen: BaseException | None = exc
    while seen is not None:
        if "full" in str(seen).lower() or getattr(seen, "errno", None) == errno.ENOSPC:
            return True
        seen = seen.__cause__ or seen.__context__
    text = str(exc).lower()
    if target and "://" not in target and ("disk i/o" in text or "cannot rollback" in text):
        folder = Path(target.removeprefix("file:").split("?")[0]).resolve().parent
        try:
            space = os.statvfs(folder)
        except OSError:
            return False
        return space.f_bavail * space.f_frsize < 1024 * 1024
    return False


def explain(exc: BaseException, target: str | None = None) -> str:
    text = str(exc)
    lowered = text.lower()
    if disk_full(exc, target):
        return "the disk holding the database is full; free some space and try again"
    if "locked" in lowered or "busy" in lowered:
        return "the database is locked by another program; close it and try again"
    if "readonly" in lowered or "read-only" in lowered or "permission" in lowered:
        return "the database is read-only; choose a writable file with --db"
    if "not a database" in lowered or "malformed" in lowered:
        return "this file is not a Lattice Desktop database (or it is damaged)"
    if "unable to open" in lowered:
        return "the database file cannot be opened (missing folder or no permission)"
    return f"database error: {text}"
