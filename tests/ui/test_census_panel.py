"""The census beside the Factory tab's snapshots: shipped for the bundled case at once,
counted in the background (and cached) for any other scenario."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QThreadPool

from lattice_desktop.lattice.census import census, stored_census
from lattice_desktop.lattice.generator import generate
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.manifest.case import load_case
from lattice_desktop.manifest.submission import load_submission
from lattice_desktop.resources import CASES
from lattice_desktop.services.grading import grade_and_store
from lattice_desktop.store.database import open_database
from lattice_desktop.store.queries import load_run
from lattice_desktop.store.writer import Writer
from lattice_desktop.ui.factory.census_panel import CensusPanel
from lattice_desktop.ui.factory.tab import FactoryTab

from .conftest import drain

LATTICE = CASES / "lattice"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LATTICE_DESKTOP_CACHE", str(tmp_path / "cache"))
    yield tmp_path / "cache"
    QThreadPool.globalInstance().waitForDone(60000)


def test_a_bundled_scenario_shows_its_shipped_census_at_once(qtbot, cache):
    panel = CensusPanel()
    qtbot.addWidget(panel)
    data = (LATTICE / "smoke" / "ring_rotation.lat").read_bytes()
    panel.show_scenario(data, parse_scenario(data), LATTICE)
    assert panel.census == census(parse_scenario(data))
    assert "1 rotating, 0 jammed" in panel.text() and "Census" in panel.text()


def test_another_scenario_is_counted_in_the_background_and_cached(qtbot, cache):
    panel = CensusPanel()
    qtbot.addWidget(panel)
    data = generate(3, width=40, height=30, ticks=60, density=1.0).encode()
    scenario = parse_scenario(data)
    panel.show_scenario(data, scenario, None)
    assert panel.census is None and "counting" in panel.text()
    qtbot.waitUntil(lambda: panel.census is not None, timeout=60000)
    assert panel.census == census(scenario)
    assert "items moved per tick" in panel.text()
    assert stored_census(data) == panel.census  # the next open is instant


def test_switching_scenarios_mid_count_shows_the_last_one(qtbot, cache):
    panel = CensusPanel()
    qtbot.addWidget(panel)
    big = generate(1, width=160, height=160, ticks=400, density=1.0).encode()
    small = generate(2, width=20, height=20, ticks=30, density=1.0).encode()
    panel.show_scenario(big, parse_scenario(big), None)
    panel.show_scenario(small, parse_scenario(small), None)
    qtbot.waitUntil(lambda: panel.census is not None, timeout=60000)
    drain()  # a late result of the big one, if any, has arrived
    assert panel.census == census(parse_scenario(small))
    assert stored_census(big) is None  # the big count stopped once it was not wanted


def test_the_factory_tab_shows_the_census_of_the_open_scenario(qtbot, tmp_path, cache):
    writer = Writer(open_database(tmp_path / "runs.db"))
    case = load_case(LATTICE / "case.toml")
    stored = grade_and_store(case, load_submission(LATTICE / "submissions" / "buggy"), writer=writer)
    writer.close()
    run = load_run(stored.run_id)
    tab = FactoryTab()
    qtbot.addWidget(tab)
    tab.resize(1100, 700)
    tab.show()
    tab.show_run(run, case)
    qtbot.waitUntil(lambda: tab.census.census is not None, timeout=20000)
    name = tab.case_box.currentData()
    assert tab.census.census == stored_census(case.entry(name).input_bytes(), case_dir=LATTICE)
    assert tab.census.isVisible()
    tab.shutdown()
