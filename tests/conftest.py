"""Shared fixtures: every test gets its own database and compiled-module cache; `pg_url`
gives a test a PostgreSQL database of its own."""

from __future__ import annotations

import os
import signal
import uuid

import pytest

from lattice_desktop.store.base import db_proxy

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# A run started in the background by a non-interactive shell (`nohup … &`, a CI runner's
# `cmd &`) inherits SIGINT ignored, and so would every process the tests start and then
# Ctrl+C (a grade, a batch, .ci/run): they would rightly ignore it. Taking SIGINT back here
# gives those children the default again (exec resets a handled signal, not an ignored one).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _patient_qtbot() -> None:
    """pytest-qt gives up on a wait after 5 s, a wall-clock limit a loaded machine passes
    (a query or a grade in a worker can take longer there). A wait that is not met in a
    minute is a hang; anything shorter says only how busy the machine was. A test that
    wants another bound still passes its own `timeout=`."""
    try:
        from pytestqt.qtbot import QtBot
    except ImportError:  # the core's tests run without Qt
        return
    for name in ("waitUntil", "waitSignal", "waitSignals", "waitCallback", "waitExposed", "waitActive"):
        defaults = getattr(QtBot, name).__kwdefaults__
        if defaults and defaults.get("timeout") == 5000:
            defaults["timeout"] = 60_000


_patient_qtbot()


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
