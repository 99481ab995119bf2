"""Open the database: SQLite in the user data folder by default, or a URL (PostgreSQL)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import platformdirs
from peewee import Database, DatabaseError, SqliteDatabase
from playhouse.db_url import connect

from lattice_desktop.errors import Location, StorageError
from lattice_desktop.store.base import db_proxy
from lattice_desktop.store.migrations import migrate

ENV_VAR = "LATTICE_DESKTOP_DB"


def default_location() -> str:
    return os.environ.get(ENV_VAR) or str(
        Path(platformdirs.user_data_dir("lattice-desktop")) / "lattice.db"
    )


def describe(target: str) -> str:
    """How the database is named to the user (no password)."""
    if "://" in target:
        scheme, rest = target.split("://", 1)
        return f"{scheme}://{rest.split('@')[-1]}"
    return target


def open_database(
    target: str | Path | None = None, *, recover: bool = True, busy_timeout: float = 10.0
) -> Database:
    """Open (creating and migrating as needed); threads not bound to a database (see
    store/base.py) use this one from now on."""
    target = str(target or default_location())
    try:
        if "://" in target:
            db = connect(target)
        elif target.startswith("file:"):  # an SQLite URI, e.g. file:runs.db?mode=ro
            db = SqliteDatabase(target, uri=True, timeout=busy_timeout,
                                pragmas={"foreign_keys": 1})
        else:
            path = Path(target)
            if path.exists() and path.is_dir():
                raise StorageError("is a folder, not a database file", Location(target))
            read_only = read_only_reason(path)
            if read_only:
                raise StorageError(read_only, Location(target))
            path.parent.mkdir(parents=True, exist_ok=True)
            db = SqliteDatabase(
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
    except StorageError:
        raise
    except (DatabaseError, sqlite3.Error, OSError) as exc:
        raise StorageError(explain(exc), Location(describe(target))) from None
    return db


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


def explain(exc: BaseException) -> str:
    text = str(exc)
    lowered = text.lower()
    if "locked" in lowered or "busy" in lowered:
        return "the database is locked by another program; close it and try again"
    if "readonly" in lowered or "read-only" in lowered or "permission" in lowered:
        return "the database is read-only; choose a writable file with --db"
    if "not a database" in lowered or "malformed" in lowered:
        return "this file is not a Lattice Desktop database (or it is damaged)"
    if "unable to open" in lowered:
        return "the database file cannot be opened (missing folder or no permission)"
    return f"database error: {text}"
