"""`lattice-desktop open FILE.lat …`, File › Open scenario… and drops: scenario files shown in
the Factory tab with the reference engine, playable, stepping through their checksums, and
nothing graded."""

from __future__ import annotations

import struct

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from lattice_desktop.lattice.generator import generate
from lattice_desktop.lattice.playback import reference_engine
from lattice_desktop.ui.window.tabs import FACTORY, RESULTS

from .conftest import drain


@pytest.fixture
def scenarios(tmp_path):
    paths = []
    for seed, size in ((5, 20), (6, 28)):
        path = tmp_path / f"s{seed}.lat"
        path.write_text(generate(seed, width=size, height=size, ticks=80, snapshot=10))
        paths.append(path)
    return paths


def wait_opened(qtbot, tab, path):
    data = path.read_bytes()
    qtbot.waitUntil(
        lambda: (
            tab.snapshots is not None
            and tab.playback is not None
            and tab.playback.data == data
            and not tab.loader.busy
            and tab.settled  # a file's checksums come after its first frame
        ),
        timeout=30_000,
    )


def test_several_scenario_files_are_listed_and_replayed_without_grading(qtbot, window, scenarios):
    window.open_paths(scenarios)
    tab = window.factory_tab
    assert window.tabs.currentIndex() == FACTORY
    assert [tab.case_box.itemText(i) for i in range(tab.case_box.count())] == ["s5.lat", "s6.lat"]
    assert tab.case_box.currentText() == "s6.lat"  # the last one named is shown
    wait_opened(qtbot, tab, scenarios[1])
    assert tab.playback.scenario.width == 28
    truth = reference_engine().run(scenarios[1].read_bytes())
    assert [int(v) for v in tab.snapshots.expected] == truth
    assert tab.model.rowCount() == 8 and tab.model.index(0, 4).data() == "·"  # nothing to compare
    assert "wasm reference" in tab.engine_label.text()
    assert "nothing is graded" in window.header.subtitle.text()
    qtbot.waitUntil(lambda: tab.census.census is not None, timeout=30_000)  # what its run exercises

    tab.step_snapshot(+1)
    qtbot.waitUntil(lambda: tab.tick == 10 and not tab.loader.busy, timeout=10_000)
    assert tab.table.currentIndex().row() == 0
    tab.step_snapshot(+1)
    qtbot.waitUntil(lambda: tab.tick == 20 and not tab.loader.busy, timeout=10_000)
    tab.toggle_play()
    qtbot.waitUntil(lambda: tab.tick > 25, timeout=10_000)
    tab.toggle_play()
    assert not tab.timer.isActive()

    tab.case_box.setCurrentIndex(0)
    tab.case_box.activated.emit(0)
    wait_opened(qtbot, tab, scenarios[0])
    assert tab.playback.scenario.width == 20

    window.refresh_runs()
    qtbot.waitUntil(lambda: not window._runs_query.busy)
    assert window.runs_panel.model.summaries == []  # nothing was graded


def test_opening_more_files_adds_to_the_list(qtbot, window, scenarios):
    window.open_paths(scenarios[:1])
    window.open_paths(scenarios[1:])
    assert window.factory_tab.scenario_files == [p.resolve() for p in scenarios]


def test_stored_answers_show_where_they_differ_and_d_jumps_there(qtbot, window, scenarios):
    path = scenarios[0]
    sums = reference_engine().run(path.read_bytes())
    sums[4] ^= 0xFF
    path.with_suffix(".u64").write_bytes(struct.pack(f"<{len(sums)}Q", *sums))
    window.open_paths([path])
    tab = window.factory_tab
    wait_opened(qtbot, tab, path)
    assert tab.model.first_divergence == 4
    assert "expected from s5.u64" in tab.engine_label.text()
    with qtbot.waitActive(window):
        window.show()
        window.activateWindow()
    window.tabs.setCurrentIndex(RESULTS)
    qtbot.keyClick(window, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)  # the tab takes the focus
    assert window.tabs.currentIndex() == FACTORY
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_D)
    qtbot.waitUntil(lambda: tab.tick == 50 and not tab.loader.busy, timeout=10_000)
    assert tab.table.currentIndex().row() == 4


def test_a_bad_scenario_file_says_what_is_wrong_and_where(qtbot, window, tmp_path):
    bad = tmp_path / "broken.lat"
    bad.write_text("lattice 1\nsize 4 four\n")
    window.open_paths([bad, tmp_path / "absent.lat"])
    assert "No such scenario file" in window.message_bar.message()
    tab = window.factory_tab
    qtbot.waitUntil(lambda: tab.engine_label.text().startswith("⚠"), timeout=10_000)
    assert f"{bad}:2" in tab.engine_label.text()


def test_a_run_opened_afterwards_replaces_the_files(qtbot, window, graded, scenarios):
    window.refresh_runs()
    qtbot.waitUntil(lambda: len(window.runs_panel.model.summaries) == 3)
    window.runs_panel.select_run(graded["echo"])
    qtbot.waitUntil(lambda: window.page is not None, timeout=10_000)
    window.open_paths(scenarios)
    assert window.page is None and window.runs_panel.selected_run() is None
    assert window.results_tab.page is None and window.fuel_tab.run is None
    window.open_run(graded["echo"])
    qtbot.waitUntil(lambda: window.page is not None, timeout=10_000)
    assert window.factory_tab.scenario_files == []


def test_the_first_start_grades_the_demo_without_taking_the_files_away(qtbot, make_window, scenarios):
    window = make_window(auto_demo=True)
    window.open_paths(scenarios)
    qtbot.waitUntil(
        lambda: len(window.runs_panel.model.summaries) == 3 and not window.grading.running, timeout=60_000
    )
    drain()  # past the idle signal that would open the newest run, and any page it asked for
    assert window.page is None
    assert window.factory_tab.scenario_files == [p.resolve() for p in scenarios]
    assert window.tabs.currentIndex() == FACTORY
