"""The census: what a scenario's run exercises, counted with the reference rules."""

from __future__ import annotations

import json

import pytest

from lattice_desktop.cli.main import main
from lattice_desktop.lattice import census as census_module
from lattice_desktop.lattice.census import CENSUS_FILE, census, census_of, stored_census
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.resources import CASES

SMOKE = CASES / "lattice" / "smoke"

CHAIN = """\
lattice 1
size 4 1
ticks 5
snapshot 5
recipe 1 20 1 1:1
recipe 2 30 1 20:1
source 0 0 E 1 1
assembler 1 0 E 1
assembler 2 0 E 2
grid
SAAK
"""


def smoke(name: str):
    return census(parse_scenario((SMOKE / f"{name}.lat").read_bytes()))


def test_a_chain_of_two_assemblers_counted_tick_by_tick():
    # t1, t2: the source feeds A1; A1's first craft ends at t2. t3: A1 hands its product to
    # A2 while the source feeds A1. t4: both crafts end. t5: A2's product goes into the
    # sink, A1 hands on another, and the source is refused (A1's buffer is full).
    c = census(parse_scenario(CHAIN))
    assert (c.crafts, c.handed_on, c.absorbed, c.moves) == (3, 2, 1, 7)
    assert (c.assemblers, c.sources, c.active_sources, c.sinks, c.belts) == (2, 1, 1, 1, 0)
    assert c.moves_per_tick == pytest.approx(7 / 5)


def test_rings_rotating_and_jammed():
    rotating = smoke("ring_rotation")
    assert (rotating.rings, rotating.rotating_rings, rotating.jammed_rings) == (1, 1, 0)
    jammed = smoke("jammed_ring")
    assert (jammed.rings, jammed.rotating_rings, jammed.jammed_rings) == (1, 0, 1)


def test_side_loads_and_turns():
    side = smoke("side_load_priority")
    assert side.junctions >= 1 and side.contested >= 1
    turn = smoke("turn")
    assert (turn.turns, turn.junctions, turn.contested) == (1, 0, 0)
    straight = smoke("straight_belt")
    assert straight.turns == 0 and straight.rings == 0


def test_a_stored_census_is_read_back_and_a_damaged_one_recounted(tmp_path, monkeypatch):
    monkeypatch.setenv("LATTICE_DESKTOP_CACHE", str(tmp_path / "cache"))
    data = CHAIN.encode()
    assert stored_census(data) is None
    counted = census_of(data, parse_scenario(data))
    assert stored_census(data) == counted  # cached on disk
    (cached,) = (tmp_path / "cache" / "census").glob("*.json")
    cached.write_text("{not json")
    assert stored_census(data) is None
    monkeypatch.setattr(census_module, "census", lambda scenario, work=None: pytest.fail("recounted"))
    case_dir = tmp_path / "case"
    case_dir.mkdir()
    entry = {"name": "chain", **counted.__dict__}
    (case_dir / CENSUS_FILE).write_text(
        json.dumps({"format": 1, "scenarios": {census_module.scenario_digest(data): entry}})
    )
    assert census_of(data, parse_scenario(data), case_dir=case_dir) == counted  # the case's own


def test_the_bundled_case_ships_the_census_of_every_scenario_and_it_is_right():
    shipped = json.loads((CASES / "lattice" / CENSUS_FILE).read_text())["scenarios"]
    assert len(shipped) == 19
    for path in (
        SMOKE / "ring_rotation.lat",
        SMOKE / "crafting_timing.lat",
        CASES / "lattice" / "stress" / "stress-64.lat",
    ):
        data = path.read_bytes()
        assert stored_census(data, case_dir=CASES / "lattice") == census(parse_scenario(data))
    # every stress case exercises every rule
    for entry in (e for e in shipped.values() if e["name"].startswith("stress")):
        assert entry["contested"] > 0 and entry["rotating_rings"] > 0 and entry["jammed_rings"] > 0
        assert entry["crafts"] > 0 and entry["handed_on"] > 0 and entry["absorbed"] > 0
        assert entry["active_sources"] == entry["sources"]


def test_scenario_stats_and_case_stats_print_the_census(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("LATTICE_DESKTOP_CACHE", str(tmp_path))
    path = tmp_path / "chain.lat"
    path.write_text(CHAIN)
    assert main(["scenario", "stats", str(path)]) == 0
    out = capsys.readouterr().out
    assert "4x1, 5 ticks" in out
    assert "2, 3 crafts completed" in out and "assembler to assembler   2 items passed" in out
    assert main(["case", "stats", "lattice", "--only", "ring_rotation", "stress-512"]) == 0
    out = capsys.readouterr().out
    assert "ring_rotation (smoke)" in out and "stress-512 (stress)  512x512, 300 ticks" in out
    assert "1 rotating, 0 jammed" in out
    assert main(["case", "stats", "lattice", "--only", "nope"]) == 2
    assert "no case named nope" in capsys.readouterr().err
