"""The app's menus on an environment missing a module: File › Grade many… without dask and
File › Import harness run… of an Inspect AI log without inspect_ai each say what to install,
inline, instead of the "a bug" dialog with a ModuleNotFoundError."""

from __future__ import annotations

import sys

from .conftest import HARNESS_EXAMPLES, make_toy_case

BATCH_TIMEOUT = 120_000


def without(monkeypatch, *modules: str) -> None:
    """Make `import` of each module (and of our modules that import them) fail as if absent."""
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "lattice_desktop.batch.dask_backend", raising=False)


def test_grade_many_without_dask_says_what_to_install(qtbot, window, tmp_path, monkeypatch):
    without(monkeypatch, "distributed")
    toy = make_toy_case(tmp_path / "echo-case")
    window.open_case(toy.case_path)
    with qtbot.waitSignal(window.batch.failed, timeout=BATCH_TIMEOUT) as failed:
        window.grade_many(toy.samples)
    message, details = failed.args
    assert details == ""  # a user error: no traceback, no bug dialog
    assert "pip install 'dask[distributed]" in message
    assert not window.error_dialogs
    assert "pip install 'dask[distributed]" in window.message_bar.text.text()
    assert window.batch_status.isHidden() and not window.batch.running


def test_importing_an_inspect_log_without_inspect_ai_says_what_to_install(qtbot, window, monkeypatch):
    without(monkeypatch, "inspect_ai", "inspect_ai.log")
    box = HARNESS_EXAMPLES / "inspect" / "webshop_ctf.box.toml"
    log = HARNESS_EXAMPLES / "inspect" / "webshop_ctf.eval"
    with qtbot.waitSignal(window.harness.imported, timeout=60_000) as imported:
        window.harness.import_runs(box, [log])
    outcome = imported.args[0]
    assert outcome.stored == []
    assert any("pip install 'lattice-desktop[inspect]'" in error for error in outcome.errors)
    assert not window.error_dialogs
    assert "pip install 'lattice-desktop[inspect]'" in window.message_bar.text.text()
