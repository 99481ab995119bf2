"""Shared fixtures: every test gets its own database and compiled-module cache; `pg_url`
gives a test a PostgreSQL database of its own. The run writes nothing outside pytest's
temp folder (the user's caches, data folders and TMPDIR point into it; tests/leak_check.py
fails the session on anything new in the real temp root or the home folder), and under pytest-xdist
each worker has its own, with the tests that share an expensive fixture kept on one
worker and the slow ones handed out first."""

from __future__ import annotations

import json
import os
import signal
import uuid
from pathlib import Path

import pytest

from lattice_desktop.store.base import db_proxy
from tests import leak_check

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

# Where the user's tools keep their files, pointed into this process's temp folder (a worker's
# own under xdist): the compiled-module cache and the default database, zig's caches (the
# bundled engines build with `python -m ziglang cc`), and what platformdirs names for
# anything else (inspect_ai's traces, the unstored reports, Qt's settings). Subprocesses
# inherit them; a test that needs other values still sets its own.
USER_FOLDERS = {
    "XDG_CACHE_HOME": "cache",
    "XDG_DATA_HOME": "data",
    "XDG_CONFIG_HOME": "config",
    "XDG_STATE_HOME": "state",
    "ZIG_GLOBAL_CACHE_DIR": "cache/zig",
    "ZIG_LOCAL_CACHE_DIR": "cache/zig-local",
    "LATTICE_DESKTOP_CACHE": "cache/lattice-desktop",
    "LATTICE_DESKTOP_DB": "data/lattice-desktop/lattice.db",
}


@pytest.hookimpl(trylast=True)  # after pytest's own configure has made its temp folder factory
def pytest_configure(config: pytest.Config) -> None:
    # Here rather than in a fixture: collecting the tests imports modules (inspect_ai) that
    # write into the user's data folder as they load, and module-scoped fixtures (a dask
    # cluster) start processes before any function-scoped fixture has run.
    basetemp = config._tmp_path_factory.getbasetemp()
    home = basetemp / "user-folders"
    for name, relative in USER_FOLDERS.items():
        os.environ[name] = str(home / relative)
    _keep_bytecode(basetemp)
    leak_check.install(config)  # TMPDIR into the temp folder; the session fails on a leak
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_GroupedScheduling(), "lattice-xdist-groups")


def _keep_bytecode(basetemp: Path) -> None:
    """The Python children the tests start (the CLI, the app, its census and compile children,
    build jails) keep their compiled modules in one folder of the session's temp folder, shared
    by the xdist workers. Where PYTHONDONTWRITEBYTECODE is set and the packages were installed
    without bytecode (`pip install --no-compile`, as the README's command does), each start
    compiled some 680 modules from source again: about a second of its 2.3 s of imports. The
    installed packages and the checkout stay unwritten; the code run is the same."""
    shared = basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(shared / "pycache")


# Session fixtures that take minutes to build: every test that uses one runs on the same
# xdist worker, which builds it once.
EXPENSIVE_SESSION_FIXTURES = {"unpacked": "pyinstaller-bundle"}


def _group(item: pytest.Item) -> str | None:
    """The xdist group of a test: that of an expensive session fixture it uses, else its
    module's when it uses a module- or class-scoped fixture (built once per worker that runs
    one of the module's tests), else none (any worker)."""
    for fixture, group in EXPENSIVE_SESSION_FIXTURES.items():
        if fixture in item.fixturenames:
            return group
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    for name in item.fixturenames:
        definitions = info.name2fixturedefs.get(name) or ()
        if any(d.scope in ("module", "class") for d in definitions):
            return item.nodeid.split("::", 1)[0]
    return None


def _groups_folder(basetemp: Path) -> Path:
    return basetemp / "xdist-groups"


class _GroupedScheduling:
    """`--dist loadgroup` with the groups the workers found. xdist 3.8 names a test by its
    group by rewriting `item._nodeid`, which pytest 9 no longer reads, so each worker writes
    its tests' groups into the session's temp folder as it collects them and the scheduler
    (in the controller, which collects nothing) reads them there."""

    @staticmethod
    def pytest_xdist_make_scheduler(config: pytest.Config, log):
        if config.getvalue("dist") != "loadgroup":
            return None
        from xdist.scheduler import LoadGroupScheduling

        class Scheduling(LoadGroupScheduling):
            def __init__(self, config: pytest.Config, log=None) -> None:
                super().__init__(config, log)
                self.groups: dict[str, str] = {}

            def schedule(self) -> None:  # called once every worker has collected
                folder = _groups_folder(config._tmp_path_factory.getbasetemp())
                for path in sorted(folder.glob("*.json")):
                    self.groups.update(json.loads(path.read_text()))
                super().schedule()

            def _split_scope(self, nodeid: str) -> str:
                return self.groups.get(nodeid) or super()._split_scope(nodeid)

        return Scheduling(config, log)


@pytest.hookimpl(tryfirst=True)  # before xdist's own, which looks for xdist_group marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.pluginmanager.hasplugin("xdist"):  # -p no:xdist: one process, nothing to group
        return
    groups = {item: _group(item) for item in items}
    for item, group in groups.items():
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    if hasattr(config, "workerinput"):
        folder = _groups_folder(config._tmp_path_factory.getbasetemp().parent)
        folder.mkdir(exist_ok=True)
        written = folder / f"{config.workerinput['workerid']}.json.part"
        written.write_text(json.dumps({i.nodeid: g for i, g in groups.items() if g is not None}))
        written.replace(written.with_suffix(""))

        # Longest first: the expensive groups, then the slow tests (those that say how long
        # they take, `slow(seconds=N)`, longest first), then the rest, so that no worker is
        # left with a minutes-long test while the other has run out of work (the scheduler
        # hands out work in this order: addopts has --no-loadscope-reorder). A group goes
        # where its most expensive test goes, its tests kept together.
        def cost(item: pytest.Item) -> tuple[int, float]:
            if groups[item] in EXPENSIVE_SESSION_FIXTURES.values():
                return 0, 0.0
            slow = item.get_closest_marker("slow")
            return (1, -float(slow.kwargs.get("seconds", 0))) if slow else (2, 0.0)

        group_cost: dict[str, tuple[int, float]] = {}
        for item, group in groups.items():
            if group is not None:
                group_cost[group] = min(group_cost.get(group, (2, 0.0)), cost(item))
        items.sort(key=lambda item: group_cost[groups[item]] if groups[item] is not None else cost(item))


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
