"""Fixtures of the batch tests: a real local dask cluster shared by a module's tests, and
a store on SQLite or on the PostgreSQL server (when LATTICE_TEST_POSTGRES_URL names one)."""

from __future__ import annotations

import os
import uuid

import pytest

from lattice_desktop.store.database import open_database
from lattice_desktop.store.schema import Run
from lattice_desktop.store.writer import Writer

SERVER = os.environ.get("LATTICE_TEST_POSTGRES_URL")


@pytest.fixture(scope="module")
def client():
    from lattice_desktop.batch.dask_backend import open_cluster

    with open_cluster(workers=2) as client:
        yield client


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        yield str(tmp_path / "batch.db")
        return
    if not SERVER:
        pytest.skip("set LATTICE_TEST_POSTGRES_URL to a PostgreSQL server")
    import psycopg2

    name = f"lattice_batch_{uuid.uuid4().hex[:10]}"
    admin = psycopg2.connect(SERVER)
    admin.autocommit = True
    admin.cursor().execute(f"CREATE DATABASE {name}")
    yield SERVER.rsplit("/", 1)[0] + "/" + name
    db = Run._meta.database
    if not db.is_closed():
        db.close()
    admin.cursor().execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    admin.close()


@pytest.fixture
def writer(db_url):
    w = Writer(open_database(db_url))
    yield w
    w.close()
