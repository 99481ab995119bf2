"""Opening a standalone scenario file for the Factory tab (on a worker thread): the core's
`open_scenario_file`, shaped as the tab's other openings are."""

from __future__ import annotations

from pathlib import Path

from lattice_desktop.lattice.scenario_file import open_scenario_file
from lattice_desktop.ui.factory.snapshots import Snapshots


def load_scenario_file(path: Path):
    opened = open_scenario_file(path)
    snapshots = Snapshots.from_bytes(opened.playback.scenario.snapshot, opened.expected, opened.got)
    return str(path), opened.playback, snapshots, [], False, opened.expected_source
