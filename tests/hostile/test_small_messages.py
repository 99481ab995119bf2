"""Small things an attacker (or an accident) can put in front of the user: a trap whose offset
wasmtime does not know, a TOML key set twice, a harness name of hundreds of characters."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from lattice_desktop.errors import ManifestError
from lattice_desktop.manifest import load_case
from lattice_desktop.outcomes import Outcome
from tests.core.wat_cases import ECHO_CASES, module_with_run_body, write_case
from tests.hostile.test_modules import grade_wat

ROOT = Path(__file__).resolve().parents[2]


def test_a_trap_at_an_unknown_offset_prints_no_offset(tmp_path):
    wat = module_with_run_body(
        "(drop (call $r (i32.const 0))) (i64.const 0)",
        extra="(func $r (param i32) (result i32) (i32.add (call $r (local.get 0)) (i32.const 1)))",
    )
    result = grade_wat(tmp_path, wat, fuel_limit=10**9).results[0]
    assert result.outcome is Outcome.TRAP and result.trap_code == "stack_overflow"
    assert result.detail == "trap: stack_overflow in r"  # was `in r+0xffffffffffffffff`
    assert all(re.fullmatch(r"r(\+0x[0-9a-f]{1,8})?", frame) for frame in result.frames), result.frames


@pytest.mark.parametrize(
    ("tables", "named"),
    [
        ("[sandbox]\nfuel_limit = 5\nfuel_limit = 6\n", "key 'fuel_limit' in [sandbox] was already set"),
        ('[[case]]\nname = "a"\nname = "b"\n', "key 'name' in [case] was already set"),
        ("[sandbox]\nwall_clock_s = 1\n[sandbox]\n", "table [sandbox] is declared twice"),
    ],
)
def test_a_key_set_twice_is_named(tmp_path, tables, named):
    path = tmp_path / "case.toml"
    path.write_text('[meta]\nname = "echo"\nversion = 1\n' + tables)
    with pytest.raises(ManifestError) as caught:
        load_case(path)
    assert named in str(caught.value)
    assert caught.value.location.line == len(('[meta]\nname = "echo"\nversion = 1\n' + tables).splitlines())


def test_the_first_key_set_twice_in_a_real_manifest_is_named(tmp_path):
    path = write_case(tmp_path / "case", ECHO_CASES + 'input = "again"\n')
    with pytest.raises(ManifestError, match=r"key 'input' in \[case\] was already set; a value cannot"):
        load_case(path)


LONG = "AutonomousPentestHarnessExperimentalBuild" * 24  # 984 characters, nowhere to wrap


def harness_widths(qtbot, tmp_path: Path, harness: str) -> tuple[int, int, int]:
    """The window's minimum and preferred widths and the run summary's, with `harness` open."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings

    from lattice_desktop.store.database import open_database
    from lattice_desktop.store.writer import Writer
    from lattice_desktop.ui.window.main_window import MainWindow
    from tests.core.harness_import import import_run

    tmp_path.mkdir(parents=True)
    examples = ROOT / "resources" / "harness"
    trace = tmp_path / "trace.jsonl"
    trace.write_text(
        (examples / "traces" / "clean.jsonl").read_text().replace('"tidy-agent"', f'"{harness}"')
    )
    db = tmp_path / "app.db"
    writer = Writer(open_database(db))
    stored = writer.call(import_run, examples / "webshop.box.toml", trace)
    writer.close()
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(str(db), auto_demo=False, settings=settings)
    qtbot.addWidget(window)
    qtbot.waitUntil(lambda: window.runs_loaded, timeout=20_000)
    with qtbot.waitSignal(window.harness.page_shown, timeout=20_000):
        window.runs_panel.select_harness_run(stored)
    summary = window.harness.results.summary
    assert "Autonomous" in summary.text()
    widths = (window.minimumSizeHint().width(), window.sizeHint().width(), summary.minimumSizeHint().width())
    window.close()
    return widths


def test_a_long_harness_name_does_not_widen_the_window(qtbot, tmp_path):
    """Past a screen's width, a longer name no longer makes anything wider (it made the run
    summary, which does not wrap a name without spaces, 1,460 px for 492 characters)."""
    half = harness_widths(qtbot, tmp_path / "half", LONG[: len(LONG) // 2])
    assert harness_widths(qtbot, tmp_path / "whole", LONG) == half
