"""Opening a standalone scenario file to look at: its checksums from the reference engine,
compared with a stored NAME.u64 when there is one, and clear errors for bad files."""

from __future__ import annotations

import struct

import pytest

from lattice_desktop.errors import UserError
from lattice_desktop.lattice.generator import generate
from lattice_desktop.lattice.playback import reference_engine
from lattice_desktop.lattice.rules import simulate
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.scenario_file import open_scenario_file


@pytest.fixture
def scenario_path(tmp_path):
    path = tmp_path / "seed-3.lat"
    path.write_text(generate(3, width=24, height=16, ticks=60, snapshot=10))
    return path


def u64s(data: bytes) -> list[int]:
    return list(struct.unpack(f"<{len(data) // 8}Q", data))


def test_checksums_come_from_the_reference_engine(scenario_path):
    opened = open_scenario_file(scenario_path)
    engine = reference_engine()
    assert engine is not None
    assert u64s(opened.expected) == engine.run(scenario_path.read_bytes())
    assert u64s(opened.expected) == simulate(parse_scenario(scenario_path.read_bytes()))  # the rules agree
    assert len(u64s(opened.expected)) == 6 and opened.got is None
    assert opened.playback.ticks == 60 and opened.name == "seed-3.lat"
    assert "wasm reference" in opened.expected_source


def test_stored_answers_beside_the_file_are_compared_with_the_reference(scenario_path):
    truth = reference_engine().run(scenario_path.read_bytes())
    tampered = list(truth)
    tampered[3] ^= 1
    scenario_path.with_suffix(".u64").write_bytes(struct.pack("<6Q", *tampered))
    opened = open_scenario_file(scenario_path)
    assert u64s(opened.expected) == tampered and u64s(opened.got) == truth
    assert opened.expected_source == "expected from seed-3.u64"


def test_python_rules_stand_in_without_the_wasm_reference(scenario_path, monkeypatch):
    from lattice_desktop.lattice import scenario_file

    monkeypatch.setattr(scenario_file, "reference_engine", lambda: None)  # as in a checkout without wasm
    opened = open_scenario_file(scenario_path)
    assert opened.playback.engine_name == "Python reference"
    assert u64s(opened.expected) == simulate(parse_scenario(scenario_path.read_bytes()))


def test_a_bad_scenario_file_names_the_file_and_line(tmp_path):
    bad = tmp_path / "bad.lat"
    bad.write_text("lattice 1\nsize 4 four\n")
    with pytest.raises(UserError) as caught:
        open_scenario_file(bad)
    assert str(bad) in str(caught.value) and ":2" in str(caught.value)
    with pytest.raises(UserError, match="no such scenario file"):
        open_scenario_file(tmp_path / "missing.lat")
    with pytest.raises(UserError, match="no such scenario file"):
        open_scenario_file(tmp_path)
