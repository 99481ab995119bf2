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
    """Open (creating and migrating as needed) and bind every table to it."""
    target = str(target or default_location())
    try:
        if "://" in target:
            db = connect(target)
        else:
            path = Path(target)
            if path.exists() and path.is_dir():
                raise StorageError("is a folder, not a database file", Location(target))
            path.parent.mkdir(parents=True, exist_ok=True)
            db = SqliteDatabase(
                str(path),
                timeout=busy_timeout,
                pragmas={"journal_mode": "wal", "foreign_keys": 1, "synchronous": "normal"},
            )
        db_proxy.initialize(db)
        db.connect(reuse_if_open=True)
        migrate(db)
    except StorageError:
        raise
    except (DatabaseError, sqlite3.Error, OSError) as exc:
        raise StorageError(explain(exc), Location(describe(target))) from None
    if recover:
        from lattice_desktop.store.runs import recover_interrupted

        recover_interrupted()
    return db


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
