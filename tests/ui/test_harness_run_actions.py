"""A harness run is a run in the app: its context menu (copy the trace path, export, hide,
delete), File › Export with it open, a Profile tab that says why it does not apply, and an
Inspect AI sample named by its task, sample and epoch."""

from __future__ import annotations

import csv
import io
import re

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QMessageBox

from lattice_desktop.store.harness_runs import list_harness_runs
from lattice_desktop.ui.harness.side import NO_PROFILE
from lattice_desktop.ui.window.tabs import PROFILE

from .conftest import HARNESS_EXAMPLES, import_harness_into
from .test_harness_views import open_harness
from .test_run_actions import _action, _texts

TIMEOUT = 10_000


def _harness(window, stored_id):
    return next(h for h in window.runs_panel.model.harness if h.id == stored_id)


def _listed(qtbot, window, count):
    qtbot.waitUntil(lambda: len(window.runs_panel.model.harness) == count, timeout=TIMEOUT)


def test_a_harness_run_has_the_context_menu_of_a_run(qtbot, db_path, make_window):
    stored = import_harness_into(db_path, "clean", "looping")
    window = make_window()
    _listed(qtbot, window, 2)
    menu = window.run_actions.menu_for_harness(_harness(window, stored["clean"]))
    assert _texts(menu) == [
        "Copy trace path",
        "Export run as CSV…",
        "Export run as HTML report…",
        "Hide run",
        "Delete run…",
        "Show hidden runs",
    ]
    _action(menu, "Copy trace path").trigger()
    trace = str(HARNESS_EXAMPLES / "traces" / "clean.jsonl")
    qtbot.waitUntil(lambda: QGuiApplication.clipboard().text() == trace, timeout=TIMEOUT)


def test_hiding_and_deleting_a_harness_run(qtbot, db_path, make_window, monkeypatch):
    stored = import_harness_into(db_path, "clean", "looping", "nothing")
    window = make_window()
    _listed(qtbot, window, 3)
    open_harness(qtbot, window, stored["looping"])
    _action(window.run_actions.menu_for_harness(_harness(window, stored["looping"])), "Hide run").trigger()
    _listed(qtbot, window, 2)
    # The open run left the list: its neighbour opens in its place.
    qtbot.waitUntil(lambda: window.harness.page is not None and window.harness.page.id != stored["looping"])
    assert "is hidden" in window.message_bar.message()
    window.run_actions.show_hidden_action.setChecked(True)
    _listed(qtbot, window, 3)
    index = window.runs_panel.model.index_of_harness_run(stored["looping"])
    assert index.data().endswith(" · hidden")
    window.run_actions.show_hidden_action.setChecked(False)
    _listed(qtbot, window, 2)

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    _action(window.run_actions.menu_for_harness(_harness(window, stored["nothing"])), "Delete run…").trigger()
    _listed(qtbot, window, 1)
    left = {h.id for h in list_harness_runs(include_hidden=True)}
    assert left == {stored["clean"], stored["looping"]}


def test_file_export_and_the_profile_tab_with_a_harness_run_open(qtbot, db_path, make_window, tmp_path):
    stored = import_harness_into(db_path, "clean")
    window = make_window()
    _listed(qtbot, window, 1)
    open_harness(qtbot, window, stored["clean"])
    window.run_actions.export_open_run("csv", tmp_path / "run.csv")
    qtbot.waitUntil(lambda: "Exported run" in window.message_bar.message(), timeout=TIMEOUT)
    rows = list(csv.DictReader(io.StringIO((tmp_path / "run.csv").read_text())))
    assert {r["run"] for r in rows} == {str(stored["clean"])}
    window.tabs.setCurrentIndex(PROFILE)
    face = window.tabs.widget(PROFILE).currentWidget()
    assert face is window.harness.no_profile and face.text() == NO_PROFILE


def test_an_inspect_sample_is_named_by_task_sample_and_epoch(qtbot, db_path, make_window):
    from lattice_desktop.services.harness_import import import_traces
    from lattice_desktop.store.database import open_database
    from lattice_desktop.store.writer import Writer

    writer = Writer(open_database(db_path))
    inspect = HARNESS_EXAMPLES / "inspect"
    outcome = import_traces(writer, inspect / "webshop_ctf.box.toml", [inspect / "webshop_ctf.eval"])
    writer.close()
    window = make_window()
    _listed(qtbot, window, len(outcome.stored))
    (stored_id,) = outcome.stored
    label = window.runs_panel.model.index_of_harness_run(stored_id).data()
    assert label == f"webshop_ctf · sample ctf-1 · epoch 1 #{stored_id}"
    page = open_harness(qtbot, window, stored_id)
    assert page.id == stored_id
    summary = window.harness.results.summary.text()
    assert "webshop_ctf · sample ctf-1 · epoch 1" in summary
    # The tie-breakers print as the page's other numbers do, not as a float's full repr.
    assert re.search(r"after \d+\.\d\d s of running time, \$\d+\.\d\d spent", summary)
    assert not re.search(r"\d\.\d{5,}", summary)
    assert "sample ctf-1" in window.header.subtitle.text()
