"""Shared fixtures: every test gets its own database and compiled-module cache; `pg_url`
gives a test a PostgreSQL database of its own."""

from __future__ import annotations

import os
import uuid

import pytest

from lattice_desktop.store.base import db_proxy

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(autouse=True)
def _isolated_storage(tmp_path_factory, monkeypatch):
    cache = tmp_path_factory.getbasetemp() / "module-cache"
    monkeypatch.setenv("LATTICE_DESKTOP_CACHE", str(cache))
    monkeypatch.setenv("LATTICE_DESKTOP_DB", str(tmp_path_factory.mktemp("db") / "lattice.db"))


SERVER = os.environ.get("LATTICE_TEST_POSTGRES_URL")


@pytest.fixture
def pg_url():
    """A new database on the server LATTICE_TEST_POSTGRES_URL names (skipped without one)."""
    if not SERVER:
        pytest.skip("set LATTICE_TEST_POSTGRES_URL to a PostgreSQL server")
    import psycopg2

    name = f"lattice_test_{uuid.uuid4().hex[:10]}"
    admin = psycopg2.connect(SERVER)
    admin.autocommit = True
    admin.cursor().execute(f"CREATE DATABASE {name}")
    url = SERVER.rsplit("/", 1)[0] + "/" + name
    yield url
    db = db_proxy.obj
    if db is not None and not db.is_closed():
        db.close()
    admin.cursor().execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    admin.close()
