"""A PostgreSQL database of its own for each test that asks for `pg_url`."""

from __future__ import annotations

import os
import uuid

import pytest

from lattice_desktop.store.schema import Run

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
    db = Run._meta.database
    if not db.is_closed():
        db.close()
    admin.cursor().execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    admin.close()
