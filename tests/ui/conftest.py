"""Fixtures for the app's tests: a toy case built from WAT text in a temp folder, a real
SQLite database there, and the main window on it (offscreen).

Every test ends settled: its windows' work cancelled, the pool idle, the signals its
workers sent delivered, the Qt objects it let go deleted and its garbage collected on the
GUI thread — so nothing of one test is freed during another (see ui/common/collector.py)."""

from __future__ import annotations

import gc
import json
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
import wasmtime

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ALLOC = '(func (export "alloc") (param i32) (result i32) i32.const 1024)'
RESULT = "(i64.or (i64.shl (i64.extend_i32_u {ptr}) (i64.const 32)) (i64.extend_i32_u {len}))"
MODULES = {
    # Correct and cheap: hands the input back where it lies.
    "echo": f"""(module (memory (export "memory") 1) {ALLOC}
      (func (export "run") (param i32 i32) (result i64)
        {RESULT.format(ptr="(local.get 0)", len="(local.get 1)")}))""",
    # Correct but copies byte by byte: over the ceiling on the stress case's runway.
    "bytewise": f"""(module (memory (export "memory") 1) {ALLOC}
      (func (export "run") (param $p i32) (param $n i32) (result i64) (local $i i32)
        (block $done (loop $next
          (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
          (i32.store8 (i32.add (i32.const 8192) (local.get $i))
                      (i32.load8_u (i32.add (local.get $p) (local.get $i))))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $next)))
        {RESULT.format(ptr="(i32.const 8192)", len="(local.get $n)")}))""",
    # Drops the last byte: fails the smoke test.
    "wrong": f"""(module (memory (export "memory") 1) {ALLOC}
      (func (export "run") (param i32 i32) (result i64)
        {RESULT.format(ptr="(local.get 0)", len="(i32.sub (local.get 1) (i32.const 1))")}))""",
    # Never returns: only Cancel (or the wall clock) stops it.
    "spin": f"""(module (memory (export "memory") 1) {ALLOC}
      (func (export "run") (param i32 i32) (result i64) (loop $l (br $l)) (i64.const 0)))""",
}

CASE = """[meta]
name = "echo"
version = 1
variant = "standard"

[contract]
abi = "bytes"
entry = "run"

[sandbox]
fuel_limit = {fuel_limit}
wall_clock_s = {wall_clock}

[[case]]
name = "hello"
kind = "smoke"
behaviour = "echoes a short input"
input = "hello"
expected = "hello"

[[case]]
name = "big"
kind = "stress"
input = "a much longer input, long enough to cost fuel"
expected = "a much longer input, long enough to cost fuel"
fuel_runway = 20
"""


@dataclass(frozen=True)
class ToyCase:
    root: Path
    case_path: Path
    samples: Path

    def submission(self, name: str) -> Path:
        for folder in (self.samples / name, self.root / "other" / name):
            if folder.is_dir():
                return folder
        raise KeyError(name)


def write_submission(
    folder: Path, module: str, *, model: str, commands: list[str] | None = None, ship: bool = True
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "m.wat").write_text(MODULES[module])
    if ship:
        (folder / "m.wasm").write_bytes(wasmtime.wat2wasm(MODULES[module]))
    build = ""
    if commands:
        build = f"commands = {json.dumps(commands)}\n"
    (folder / "submission.toml").write_text(
        f'[submission]\nmodel = "{model}"\n[build]\n{build}module = "m.wasm"\n'
    )
    return folder


def make_toy_case(root: Path, *, fuel_limit: int = 300, wall_clock: float = 5.0) -> ToyCase:
    root.mkdir(parents=True, exist_ok=True)
    case_path = root / "case.toml"
    case_path.write_text(CASE.format(fuel_limit=fuel_limit, wall_clock=wall_clock))
    samples = root / "submissions"
    write_submission(samples / "echo", "echo", model="model-a")
    write_submission(samples / "bytewise", "bytewise", model="model-b")
    write_submission(samples / "wrong", "wrong", model="model-c")
    return ToyCase(root, case_path, samples)


BUILD_COMMAND = (
    "python -c \"import wasmtime; open('m.wasm','wb').write(wasmtime.wat2wasm(open('m.wat').read()))\""
)


def drain(timeout_ms: int = 60_000) -> None:
    """A barrier for negative assertions: every task has finished and every signal its
    worker sent has been delivered (and so has whatever those slots started)."""
    from PySide6.QtCore import QCoreApplication

    from lattice_desktop.ui.common import tasks

    for _ in range(20):
        assert tasks.pool().waitForDone(timeout_ms), "background work did not finish"
        QCoreApplication.sendPostedEvents()
        if tasks.pool().activeThreadCount() == 0:
            return
    raise AssertionError("background work kept starting more work")


@pytest.fixture(autouse=True)
def _settled(qapp):
    """Garbage is collected on the GUI thread only, as in the app; after the test (and
    after pytest-qt closed its widgets) the pool is drained, deferred deletes are run and
    the test's garbage is collected here, not in a later test."""
    from PySide6.QtCore import QCoreApplication, QEvent

    from lattice_desktop.ui.common import collector, tasks

    collector.install()
    yield
    tasks.cancel_all()  # what the test left running stops now rather than runs to its end
    drain()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    gc.collect()


@pytest.fixture(scope="session")
def scenario_folder(tmp_path_factory) -> Path:
    """Where the tests that start the app keep the scenarios they generate: one folder a
    session, so a size two modules open (1024²) is generated once (`stopping_app.scenario`
    makes a file only when it is not there)."""
    return tmp_path_factory.mktemp("scenarios")


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test touches the user's database, compile cache or settings."""
    monkeypatch.setenv("LATTICE_DESKTOP_DB", str(tmp_path / "env-default.db"))
    monkeypatch.setenv("LATTICE_DESKTOP_CACHE", str(tmp_path / "cache"))


@pytest.fixture
def toy_case(tmp_path: Path) -> ToyCase:
    case = make_toy_case(tmp_path / "echo-case")
    write_submission(
        case.root / "other" / "built", "echo", model="model-d", commands=[BUILD_COMMAND], ship=False
    )
    write_submission(
        case.root / "other" / "built-shipped", "echo", model="model-e", commands=[BUILD_COMMAND], ship=True
    )
    return case


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "lattice.db"


@pytest.fixture
def settings(tmp_path: Path):
    from PySide6.QtCore import QSettings

    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


def grade_into(db_path: Path, case_path: Path, *folders: Path) -> list[int]:
    """Grade with the core (no Qt) and store: fills the database the window then reads."""
    from lattice_desktop.manifest import load_case, load_submission
    from lattice_desktop.services.grading import grade_and_store
    from lattice_desktop.store.database import open_database
    from lattice_desktop.store.writer import Writer

    writer = Writer(open_database(db_path))
    try:
        case = load_case(case_path)
        return [grade_and_store(case, load_submission(f), writer=writer).run_id for f in folders]
    finally:
        writer.close()


@pytest.fixture
def graded(db_path: Path, toy_case: ToyCase) -> dict[str, int]:
    """The three samples graded: echo correct, bytewise over the ceiling, wrong incorrect."""
    names = ["echo", "bytewise", "wrong"]
    ids = grade_into(db_path, toy_case.case_path, *(toy_case.submission(n) for n in names))
    return dict(zip(names, ids, strict=True))


@pytest.fixture
def make_window(qtbot, db_path: Path, toy_case: ToyCase, settings):
    from lattice_desktop.ui.window.main_window import MainWindow

    made: list[MainWindow] = []

    def make(*, auto_demo: bool = False, demo: Path | None = None) -> MainWindow:
        window = MainWindow(
            str(db_path), demo=demo or toy_case.case_path, auto_demo=auto_demo, settings=settings
        )
        made.append(window)
        window.resize(1400, 860)
        qtbot.waitUntil(lambda: window.runs_loaded, timeout=10_000)
        return window

    yield make
    # Before the window goes: cancel every op it started and wait for the pool, then
    # close it and delete it now, not at some later test's event loop.
    import shiboken6
    from PySide6.QtCore import QCoreApplication, QEvent

    for window in filter(shiboken6.isValid, made):
        assert window.cancel_all(), "a worker outlived its window's cancel_all"
        window.close()
        window.deleteLater()
    drain()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.fixture
def window(make_window):
    return make_window()


HARNESS_EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "harness"


def import_harness_into(db_path: Path, *traces: str) -> dict[str, int]:
    """Score and store bundled example traces with the core (no Qt): name -> stored id."""
    from lattice_desktop.store.database import open_database
    from lattice_desktop.store.writer import Writer
    from tests.core.harness_import import import_run

    writer = Writer(open_database(db_path))
    box = HARNESS_EXAMPLES / "webshop.box.toml"
    try:
        return {
            name: writer.call(import_run, box, HARNESS_EXAMPLES / "traces" / f"{name}.jsonl")
            for name in traces
        }
    finally:
        writer.close()


@pytest.fixture
def harness_stored(db_path: Path) -> dict[str, int]:
    """Every bundled harness example trace, scored and stored."""
    names = sorted(p.stem for p in (HARNESS_EXAMPLES / "traces").glob("*.jsonl"))
    return import_harness_into(db_path, *names)
