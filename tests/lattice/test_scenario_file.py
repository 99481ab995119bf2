"""Opening a standalone scenario file to look at, as the Factory tab does (the map first,
then the checksums): its checksums from the reference engine, compared with a stored
NAME.u64 when there is one, and clear errors for bad files."""

from __future__ import annotations

import struct

import pytest

from lattice_desktop.errors import UserError
from lattice_desktop.lattice.generator import generate
from lattice_desktop.lattice.playback import reference_engine
from lattice_desktop.lattice.rules import simulate
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.services.factory_opening import FileChecksums, file_checksums, open_scenario_view


@pytest.fixture
def scenario_path(tmp_path):
    path = tmp_path / "seed-3.lat"
    path.write_text(generate(3, width=24, height=16, ticks=60, snapshot=10))
    return path


def u64s(data) -> list[int]:
    return [int(v) for v in data]


def open_file(path, **kwargs) -> tuple[object, FileChecksums]:
    opened = open_scenario_view(path, **kwargs)
    assert opened.pending and len(opened.snapshots) == 0  # the map shows before the checksums
    return opened, file_checksums(path, opened.playback, **kwargs)


def test_checksums_come_from_the_reference_engine(scenario_path):
    opened, sums = open_file(scenario_path)
    engine = reference_engine()
    assert engine is not None
    assert u64s(sums.snapshots.expected) == engine.run(scenario_path.read_bytes())
    expected = simulate(parse_scenario(scenario_path.read_bytes()))
    assert u64s(sums.snapshots.expected) == expected  # the rules agree
    assert len(sums.snapshots) == 6 and sums.snapshots.got is None
    assert opened.playback.ticks == 60 and opened.name == str(scenario_path)
    assert "wasm reference" in sums.source


def test_stored_answers_beside_the_file_are_compared_with_the_reference(scenario_path):
    truth = reference_engine().run(scenario_path.read_bytes())
    tampered = list(truth)
    tampered[3] ^= 1
    scenario_path.with_suffix(".u64").write_bytes(struct.pack("<6Q", *tampered))
    _, sums = open_file(scenario_path)
    assert u64s(sums.snapshots.expected) == tampered and u64s(sums.snapshots.got) == truth
    assert sums.source == "expected from seed-3.u64"


def test_python_rules_stand_in_without_the_wasm_reference(scenario_path, monkeypatch):
    from lattice_desktop.services import factory_opening

    monkeypatch.setattr(factory_opening, "reference_engine", lambda: None)  # a checkout without wasm
    opened, sums = open_file(scenario_path)
    assert opened.playback.engine_name == "Python reference"
    assert u64s(sums.snapshots.expected) == simulate(parse_scenario(scenario_path.read_bytes()))


def test_a_bad_scenario_file_names_the_file_and_line(tmp_path):
    bad = tmp_path / "bad.lat"
    bad.write_text("lattice 1\nsize 4 four\n")
    with pytest.raises(UserError) as caught:
        open_scenario_view(bad)
    assert str(bad) in str(caught.value) and ":2" in str(caught.value)
    with pytest.raises(UserError, match="no such scenario file"):
        open_scenario_view(tmp_path / "missing.lat")
    with pytest.raises(UserError, match="no such scenario file"):
        open_scenario_view(tmp_path)
