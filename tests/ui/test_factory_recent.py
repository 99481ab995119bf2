"""File › Recent keeps the scenario files that opened (not those that failed to), and
choosing one opens it again in the Factory tab."""

from __future__ import annotations

from lattice_desktop.lattice.generator import generate


def test_recent_keeps_scenario_files_that_opened(qtbot, window, tmp_path):
    good, bad = tmp_path / "good.lat", tmp_path / "bad.lat"
    good.write_text(generate(4, width=12, height=12, ticks=20, snapshot=5))
    bad.write_text("lattice 1\nticks many\n")
    tab = window.factory_tab
    window.open_scenarios([bad])
    qtbot.waitUntil(lambda: not tab.open_error.isHidden(), timeout=20000)
    window.open_scenarios([good])
    qtbot.waitUntil(lambda: tab.settled, timeout=20000)
    assert window.recent_scenarios.items() == [str(good.resolve())]
    menu = window.recent_menu
    menu.aboutToShow.emit()
    entries = [a for a in menu.actions() if a.text() == str(good.resolve())]
    assert len(entries) == 1 and "Scenarios" in [a.text() for a in menu.actions() if a.isSeparator()]
    tab.show_run(None, None)
    entries[0].trigger()
    qtbot.waitUntil(lambda: tab.settled and tab.scenario_files == [good.resolve()], timeout=20000)
