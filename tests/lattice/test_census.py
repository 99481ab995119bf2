"""The census: what a scenario's run exercises, counted with the reference rules."""

from __future__ import annotations

import json

import pytest

from lattice_desktop.cli.main import main
from lattice_desktop.lattice import census as census_module
from lattice_desktop.lattice.census import CENSUS_FILE, DECISIVE_FIELDS, census, census_of, stored_census
from lattice_desktop.lattice.decisive import DECISIVE
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


def test_what_makes_each_rule_observable_is_counted_on_its_smoke_test():
    # opposite_belt_refused: ore waits in slot 3 of (2, 0) from tick 9 on; the head-on belt's
    # source holds coal only on its due ticks 11 and 16, and its slot 0 is open otherwise, so
    # the refusal holds an item back on ticks 9, 10, 12, 13, 14 and 15.
    assert smoke("opposite_belt_refused").head_on_refusals == 6
    # jammed_ring: full, with ore and coal, from tick 20; it stands still on ticks 21..32.
    jammed = smoke("jammed_ring")
    assert (jammed.jam_ticks, jammed.rotating_rings) == (12, 0)
    assert smoke("ring_rotation").jam_ticks == 0
    # grid_edge: the east and the west edge belt's slot 3 are each full from tick 8 (held on
    # 9..12).
    assert smoke("grid_edge").edge_exits == 4 + 4
    assert smoke("sink_counting").multi_side_sink_ticks == 12  # N and W feed it every tick
    assert smoke("side_load_priority").multi_side_sink_ticks == 0  # one side only
    assert smoke("assembler_refuses_unneeded_type").unneeded_offers == 12  # the coal, every tick
    # top row: the productions due at ticks 9 and 23 are skipped and the buffer is empty at
    # ticks 10 and 24, not due; bottom row: the one due at 19 is, and the buffer empty at 20
    assert smoke("source_period_and_full_buffer").skipped_productions == 2 + 1
    assert smoke("compression_behind_blocked_exit").skipped_productions == 0  # never empties again


@pytest.mark.parametrize("rule", sorted(DECISIVE))
def test_every_rule_is_decisive_on_its_own_smoke_test(rule):
    assert getattr(smoke(rule.split("/")[0]), DECISIVE[rule]) > 0


def test_decisive_events_counted_tick_by_tick_on_a_train():
    # chained_movement: at the start of tick t the eight slots hold min(t - 1, 8) items, in
    # slots 0.. up. Every item moves; those whose slot ahead was full are the source's (from
    # tick 2) and each item but the front one, which steps into an empty slot until tick 8
    # and into the sink after: min(t - 1, 8) a tick. Of those, the source's entry and the
    # crossing from slot 3 of the first belt into slot 0 of the second (slot 4 is full at the
    # start of tick t from t = 6) go from one cell to another.
    c = smoke("chained_movement")
    assert c.chain_moves == sum(min(t - 1, 8) for t in range(1, 13))
    assert c.chain_crossings == len(range(2, 13)) + len(range(6, 13))
    assert (c.left_right, c.short_room, c.wrapped_exits, c.compressions) == (0, 0, 0, 0)


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
        json.dumps(
            {"format": census_module._FORMAT, "scenarios": {census_module.scenario_digest(data): entry}}
        )
    )
    assert census_of(data, parse_scenario(data), case_dir=case_dir) == counted  # the case's own


def test_the_bundled_case_ships_the_census_of_every_scenario_and_it_is_right():
    shipped = json.loads((CASES / "lattice" / CENSUS_FILE).read_text())["scenarios"]
    assert len(shipped) == 31  # 24 smoke tests and 7 stress cases
    for path in (
        SMOKE / "ring_rotation.lat",
        SMOKE / "crafting_timing.lat",
        CASES / "lattice" / "stress" / "stress-64.lat",
    ):
        data = path.read_bytes()
        assert stored_census(data, case_dir=CASES / "lattice") == census(parse_scenario(data))
    # every rule is decisive in every stress case (version 3: the intake order in three of
    # six, the east/west edges in three)
    stress = [e for e in shipped.values() if e["name"].startswith("stress")]
    assert len(stress) == 7
    assert [(e["name"], w) for e in stress for w in DECISIVE_FIELDS if e[w] == 0] == []
    for entry in stress:
        assert entry["crafts"] > 0 and entry["absorbed"] > 0 and entry["jammed_rings"] > 0
        # the only sources whose items never leave offer a chain a type it does not use
        assert entry["sources"] - entry["active_sources"] <= max(1, entry["sources"] // 20)


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
    assert "decisive in the" not in out  # one stress case: no coverage to show
    assert main(["case", "stats", "lattice", "--only", "stress-64", "stress-128", "stress-512"]) == 0
    out = capsys.readouterr().out
    assert "decisive in the 3 stress cases (each rule wanted in all):" in out
    assert len([line for line in out.splitlines() if line.startswith("  ok  ")]) == len(DECISIVE)
    assert "FEW" not in out and "assembler_priority" in out and "grid_edge" in out
    assert "head-on refusals" in out and "room short" in out
    assert main(["case", "stats", "lattice", "--only", "nope"]) == 2
    assert "no case named nope" in capsys.readouterr().err
