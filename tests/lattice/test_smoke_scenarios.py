"""Each smoke scenario isolates one rule; each test checks that rule on the engine's state,
with the expected values worked out by hand from the spec (see the scenario's comments)."""

from __future__ import annotations

from math import ceil
from pathlib import Path

import pytest

from lattice_desktop.lattice.checksum import checksum_from_records
from lattice_desktop.lattice.rules import Factory, simulate
from lattice_desktop.lattice.scenario import format_scenario, parse_scenario

SMOKE = Path(__file__).resolve().parents[2] / "resources" / "cases" / "lattice" / "smoke"
NAMES = [
    "straight_belt",
    "straight_belt_into_a_queue",
    "turn",
    "compression_behind_blocked_exit",
    "chained_movement",
    "chained_movement_with_gaps",
    "side_load_priority",
    "side_load_priority_all_sides",
    "opposite_belt_refused",
    "ring_rotation",
    "jammed_ring",
    "source_period_and_full_buffer",
    "sink_counting",
    "sink_counting_many_sinks",
    "assembler_capacity",
    "assembler_capacity_several_assemblers",
    "assembler_priority",
    "assembler_priority_west_last",
    "crafting_timing",
    "crafting_timing_in_a_row",
    "grid_edge",
    "grid_edge_corners",
    "assembler_refuses_unneeded_type",
    "assembler_refuses_unneeded_type_two_inputs",
]


def factory(name: str) -> Factory:
    path = SMOKE / f"{name}.lat"
    return Factory(parse_scenario(path.read_bytes(), source=str(path)))


def ticks(f: Factory):
    """Step through the whole scenario, yielding each tick number after it has run."""
    while f.tick < f.scenario.ticks:
        f.step()
        yield f.tick


def line(f: Factory, cells: list[int]) -> list[int]:
    """The slots of consecutive belts, in the order items flow through them."""
    return [item for c in cells for item in f.belt(c)]


@pytest.mark.parametrize("name", NAMES)
def test_smoke_scenario_is_well_formed(name: str) -> None:
    text = (SMOKE / f"{name}.lat").read_text()
    assert text.startswith("# ")
    scenario = parse_scenario(text)
    assert scenario.behaviour.endswith(".")
    assert 2 <= scenario.snapshots <= 12
    assert parse_scenario(format_scenario(scenario)) == scenario
    assert len(simulate(scenario)) == scenario.snapshots
    f = Factory(scenario)
    for t in ticks(f):
        assert checksum_from_records(f.records(), t) == f.checksum()


def test_all_smoke_files_are_tested() -> None:
    assert sorted(p.stem for p in SMOKE.glob("*.lat")) == sorted(NAMES)


def test_straight_belt() -> None:
    f = factory("straight_belt")  # S>>K: belts at cells 1 and 2, sink at 3
    for t in ticks(f):
        expected = [0] * 8
        if t <= 8:
            expected[t - 1] = 1
        assert line(f, [1, 2]) == expected, t
        assert f.sink_counts(3) == ({1: 1} if t >= 9 else {}), t


def test_straight_belt_into_a_queue() -> None:
    f = factory("straight_belt_into_a_queue")  # S>>>#: a period-2 source, belts 1, 2, 3
    for t in ticks(f):
        # item k (made at tick 2k - 1) advances until it stops at index 12 - k of the 12 slots
        occupied = {min(t - (2 * k - 1), 12 - k) for k in range(1, 13) if 2 * k - 1 <= t}
        assert line(f, [1, 2, 3]) == [int(i in occupied) for i in range(12)], t


def test_turn() -> None:
    f = factory("turn")  # (1, 0) > side-loads (2, 0) v, which exits into the sink at (2, 1)
    for t in ticks(f):
        expected = [0] * 8
        if t <= 8:
            expected[t - 1] = 1
        assert line(f, [1, 2]) == expected, t
        assert f.sink_counts(5) == ({1: 1} if t >= 9 else {}), t


def test_compression_behind_blocked_exit() -> None:
    f = factory("compression_behind_blocked_exit")
    for t in ticks(f):
        # item k is made at tick 2k - 1 and advances until it stops at index 8 - k
        occupied = {min(t - (2 * k - 1), 8 - k) for k in range(1, 9) if 2 * k - 1 <= t}
        assert line(f, [1, 2]) == [int(i in occupied) for i in range(8)], t
        assert f.source_buffer(0) == (1 if t >= 17 else 0), t


def test_chained_movement() -> None:
    f = factory("chained_movement")  # S>>K, a new item every tick
    for t in ticks(f):
        # the train is unbroken: the first min(t, 8) slots are full, the source's buffer empty
        assert line(f, [1, 2]) == [1] * min(t, 8) + [0] * (8 - min(t, 8)), t
        assert f.source_buffer(0) == 0, t
        assert f.sink_counts(3) == ({1: t - 8} if t > 8 else {}), t


def test_chained_movement_with_gaps() -> None:
    f = factory("chained_movement_with_gaps")  # 7 wide: cell = 7y + x
    a, b = 50, 51  # row 7: a period-1 train runs east into a belt whose exit is a wall
    for t in ticks(f):
        # row 4: a period-1 train west into the sink at (2, 4): belts 32 then 31
        assert line(f, [32, 31]) == [1] * min(t, 8) + [0] * (8 - min(t, 8)), t
        assert f.sink_counts(30) == ({1: t - 8} if t > 8 else {}), t
        assert f.sink_counts(28) == {2: ceil(t / 2)}, t  # a source straight into a sink
        if t == 5:  # b's slot 0 took ore behind the coal side-loaded at ticks 1 and 3
            assert f.belt(a) == (1, 1, 1, 1) and f.belt(b) == (1, 0, 2, 2)
        if t == 6:  # b's ore moved into the empty slot 1, so its slot 0 was open to the train
            assert f.belt(b) == (1, 1, 2, 2)
        # rows 0-1: from tick 10 the gear train at the wall is full and the gear waits
        if t >= 10:
            assert 0 not in f.belt(11) + f.belt(12) and f.assembler(10)[1] == 5, t
    assert f.source_buffer(44) == 2  # the side-loading source of row 6 waits: b is full


def test_side_load_priority() -> None:
    f = factory("side_load_priority")  # belt at cell 4, sink at 5
    # behind (type 1, p=4) > left (type 2, p=2) > right (type 3, p=1); slot 0 is always open
    pattern = [1, 2, 2, 3]
    for t in ticks(f):
        assert f.belt(4)[0] == pattern[(t - 1) % 4], t
    # items that entered slot 0 at ticks 1..8 have reached the sink by tick 12
    assert f.sink_counts(5) == {1: 2, 2: 4, 3: 2}


def test_side_load_priority_all_sides() -> None:
    f = factory("side_load_priority_all_sides")  # 8 wide: cell = 8y + x
    pattern = [1, 2, 2, 3]  # once the belt behind (2, 2) carries items (from tick 5)
    for t in ticks(f):
        first = f.belt(18)[0]
        if t >= 5:
            assert first == pattern[(t - 5) % 4], t
        else:  # no item behind yet: left (period 2) on odd ticks, right otherwise
            assert first == (2 if t % 2 else 3), t
        assert f.belt(46)[0] == 3, t  # (6, 5): the source on its right hands it one every tick
        assert 2 not in f.belt(46) + f.belt(45), t  # the coal passing on its left never turns in
        assert f.source_buffer(0) == 4, t  # the corner source points off the grid
    assert f.sink_counts(44) == {3: 4} and f.sink_counts(55) == {2: 8}


def test_opposite_belt_refused() -> None:
    f = factory("opposite_belt_refused")  # S><S: belts at cells 1, 2 (east) and 3 (west)
    for t in ticks(f):
        assert 2 not in line(f, [1, 2]) and 1 not in f.belt(3), t
        ore = min(t, 8)  # one ore a tick until (2, 0) is full: slot 3 of (2, 0) is never left
        assert line(f, [1, 2]) == [1] * ore + [0] * (8 - ore), t
        coal = sum(1 for made in (1, 6, 11, 16) if made <= t)  # period 5, never blocked
        assert sum(1 for item in f.belt(3) if item) == coal, t
        assert f.belt(3)[3] == (2 if t >= 4 else 0), t
        # the west belt is often empty while the ore waits head-on beside it
        if 9 <= t <= 10:
            assert f.belt(3)[0] == 0 and f.belt(2)[3] == 1, t


def test_ring_rotation() -> None:
    f = factory("ring_rotation")
    ring = [4, 5, 8, 7, 6, 3]  # the ring's belts in flow order, (1, 1) first
    # Source A fills index 0 and source B index 12 every tick until the ring is full at
    # tick 12: A's items then fill indices 0..11, B's 12..23. After that it rotates.
    full = [1] * 12 + [2] * 12
    for t in ticks(f):
        if t >= 12:
            m = t - 12
            assert line(f, ring) == [full[(i - m) % 24] for i in range(24)], t
        waiting = t >= 13
        assert (f.source_buffer(1), f.source_buffer(10)) == ((1, 2) if waiting else (0, 0)), t


def test_jammed_ring() -> None:
    f = factory("jammed_ring")
    ring = [5, 6, 7, 11, 10, 9]  # (1, 1) first: the belt the ore source feeds from behind
    jammed = [1] * 20 + [2] * 4  # coal entered the ring only at (2, 1), and reached (1, 2)
    for t in ticks(f):
        assert f.belt(9)[3] == (2 if t >= 20 else 0), t  # this item never moves on
        if t >= 20:
            assert line(f, ring) == jammed, t
            assert f.source_buffer(4) == (1 if t >= 21 else 0) and f.source_buffer(2) == 2, t


def test_source_period_and_full_buffer() -> None:
    f = factory("source_period_and_full_buffer")
    # worked out tick by tick. Top row (period 2, assembler capacity 2, craft time 6): made
    # at 7, the item waits for room until 9; at 9 the due production is skipped, so the
    # buffer is empty at 9 and 10 and full again at 11 (the next due tick).
    top = [0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0]
    # Bottom row (period 3, due 1, 4, 7, ...; craft time 5): made at 13, the item waits one
    # tick; made at 16, it waits until 20, so the production due at 19 is skipped and the
    # buffer stays empty at 20 and 21 until the next due tick, 22. A clock that stopped on
    # the four full ticks 16..19 would make the next item at 21 instead.
    bottom = [0] * 12 + [1, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1]
    for t in ticks(f):
        assert f.source_buffer(0) == top[t - 1] and f.source_buffer(3) == bottom[t - 1], t
        made = sum(t >= d for d in (8, 15, 22))
        assert f.sink_counts(2) == ({9: made} if made else {}), t
        made = sum(t >= d for d in (7, 13, 19))
        assert f.sink_counts(5) == ({9: made} if made else {}), t


def test_sink_counting() -> None:
    f = factory("sink_counting")
    for t in ticks(f):
        assert f.sink_counts(4) == {1: t + ceil(t / 3), 2: ceil(t / 2), 3: t}, t


def test_sink_counting_many_sinks() -> None:
    f = factory("sink_counting_many_sinks")  # 70 sinks in row 1, fed from N and S
    for t in ticks(f):
        for x in range(70):
            north, south = 1 + x % 3, 1 + x % 2  # the sources' periods
            expected = {1 + x % 5: ceil(t / north), 6 + x % 4: ceil(t / south)}
            assert f.sink_counts(70 + x) == expected, (t, x)


def test_assembler_capacity() -> None:
    f = factory("assembler_capacity")
    n, e, s, w = 1, 5, 7, 3
    f.step()
    assert f.assembler(4) == (10, 0, {1: 2})
    assert [f.source_buffer(c) for c in (n, e, s, w)] == [0, 0, 0, 0]
    f.step()
    assert f.assembler(4) == (9, 0, {1: 4})
    assert [f.source_buffer(c) for c in (n, e, s, w)] == [0, 0, 1, 1]
    for t in ticks(f):
        expected = (11 - t, 0, {1: 4}) if t <= 10 else (0, 5, {1: 4})
        assert f.assembler(4) == expected, t
        assert [f.source_buffer(c) for c in (n, e, s, w)] == [1, 1, 1, 1], t


def test_assembler_capacity_several_assemblers() -> None:
    f = factory("assembler_capacity_several_assemblers")  # 7 wide: assemblers at 1, 15 and 19
    held = {15: (8, 14, 22), 19: (12, 20, 26)}  # N, the side across, S

    def buffers(a: int) -> list[int]:
        return [f.source_buffer(c) for c in held[a]]

    f.step()  # the left (1 ore, room 2) takes N and S, not W; the right (ore and coal) all three
    assert f.assembler(15) == (6, 0, {1: 1}) and f.assembler(19) == (6, 0, {1: 0, 2: 1})
    assert buffers(15) == [0, 1, 0] and buffers(19) == [0, 0, 0]
    f.step()  # the left: N alone; the right: N and E (coal 1 + 1 taken this tick is not below 2)
    assert f.assembler(15) == (5, 0, {1: 2}) and f.assembler(19) == (5, 0, {1: 1, 2: 2})
    assert buffers(15) == [0, 1, 1] and buffers(19) == [0, 0, 2]
    f.step()  # the right: N (ore 1 < 2); its coal is full
    assert f.assembler(19) == (4, 0, {1: 2, 2: 2}) and buffers(19) == [0, 2, 2]
    for t in ticks(f):
        if t <= 7:
            done = (7 - t, 0) if t < 7 else (0, 5)
            assert f.assembler(15)[:2] == f.assembler(19)[:2] == done and buffers(15) == [1, 1, 1], t
        if t == 8:  # the gears left; the next crafts took their inputs
            assert f.sink_counts(16) == f.sink_counts(18) == {5: 1}
            assert f.assembler(15) == (6, 0, {1: 1}) and f.assembler(19) == (6, 0, {1: 1, 2: 1})
    # the top row's assembler took the corner's ore at ticks 1, 2, 3, then at 9 (after a craft)
    assert f.assembler(1) == (2, 0, {1: 2}) and f.sink_counts(2) == {5: 1} and f.source_buffer(0) == 1


def test_assembler_priority() -> None:
    f = factory("assembler_priority")
    left = {"a": 7, "n": 1, "e": 8, "s": 13, "w": 6}
    right = {"a": 10, "n": 4, "e": 11, "s": 16, "w": 9}

    def held(side: dict[str, int]) -> list[int]:
        return [f.source_buffer(side[k]) for k in "nesw"]

    f.step()  # room for 2: N and E, not S and W
    assert held(left) == [0, 0, 1, 1] and held(right) == [0, 0, 1, 1]
    assert f.assembler(7) == f.assembler(10) == (100, 0, {1: 1})
    f.step()  # room for 1: left takes N over E; right (N, E empty) takes S over W
    assert held(left) == [0, 1, 1, 1]
    assert held(right) == [0, 0, 0, 1]
    assert f.assembler(7) == f.assembler(10) == (99, 0, {1: 2})


def test_assembler_priority_west_last() -> None:
    f = factory("assembler_priority_west_last")  # W source at 3, S source at 7, assembler at 4
    f.step()  # room for 2: S, then W
    assert f.assembler(4) == (100, 0, {1: 1}) and f.source_buffer(3) == f.source_buffer(7) == 0
    f.step()  # room for 1: S over W
    assert f.assembler(4) == (99, 0, {1: 2}) and (f.source_buffer(3), f.source_buffer(7)) == (1, 0)


def test_crafting_timing() -> None:
    f = factory("crafting_timing")
    expected = {
        1: (0, 0, {1: 1}),
        2: (3, 0, {1: 0}),
        3: (2, 0, {1: 1}),
        4: (1, 0, {1: 2}),
        5: (0, 7, {1: 3}),
        6: (3, 0, {1: 2}),
        7: (2, 0, {1: 3}),
        8: (1, 0, {1: 4}),
        9: (0, 7, {1: 4}),
        10: (3, 0, {1: 2}),
        11: (2, 0, {1: 3}),
        12: (1, 0, {1: 4}),
        13: (0, 7, {1: 4}),
        14: (3, 0, {1: 2}),
        15: (2, 0, {1: 3}),
        16: (1, 0, {1: 4}),
    }
    for t in ticks(f):
        assert f.assembler(1) == expected[t], t
        made = sum(t >= d for d in (6, 10, 14))
        assert f.sink_counts(2) == ({7: made} if made else {}), t


def test_crafting_timing_in_a_row() -> None:
    f = factory("crafting_timing_in_a_row")  # SAK.####S>>>>K over .S..SAK.......
    for t in ticks(f):
        remaining, output, buffer = f.assembler(1)  # ore and coal (every 4 ticks): crafts at 1, 5, 9
        assert (remaining, output) == ((0, 0), (2, 0), (1, 0), (0, 7))[t % 4] and buffer[2] == 0, t
        plates = sum(t >= d for d in (4, 8, 12))  # each plate leaves the tick after it appears
        assert f.sink_counts(2) == ({7: plates} if plates else {}), t
        remaining, output, _ = f.assembler(19)  # ore every 2 ticks, a gear in 1 tick
        assert (remaining, output) == ((1, 0) if t % 2 else (0, 5)), t
        gears = (t - 1) // 2
        assert f.sink_counts(20) == ({5: gears} if gears else {}), t
        assert f.sink_counts(13) == {}, t  # the lane's first item is still on its belts


def test_grid_edge() -> None:
    f = factory("grid_edge")
    for t in ticks(f):
        n = min(t, 8)  # row 0: two east belts, cells 2, 3
        assert line(f, [2, 3]) == [1] * n + [0] * (8 - n), t
        assert line(f, [9, 8]) == [2] * n + [0] * (8 - n), t  # row 2: two west belts, 9 then 8
        assert f.source_buffer(1) == (1 if t >= 9 else 0) and f.source_buffer(10) == (2 if t >= 9 else 0), t
        # nothing wrapped round: not to the next or previous row (4, 7), nor as on a torus (0, 11)
        assert f.sink_counts(0) == f.sink_counts(4) == f.sink_counts(7) == f.sink_counts(11) == {}, t


def test_grid_edge_corners() -> None:
    f = factory("grid_edge_corners")  # K<S^ / ...S: cell 0 is a sink
    for t in ticks(f):
        assert f.sink_counts(0) == ({1: t - 4} if t > 4 else {}), t  # the top-left cell takes
        assert f.belt(3)[3] == (2 if t >= 4 else 0), t  # the belt off the top keeps its coal
    assert f.belt(3) == (2, 2, 2, 2) and f.source_buffer(7) == 2


def test_assembler_refuses_unneeded_type() -> None:
    f = factory("assembler_refuses_unneeded_type")  # coal at cell 1, ore at 5, A at 4, K at 3
    for t in ticks(f):
        assert f.source_buffer(1) == 2, t  # refused every tick, so never made again
        remaining, _, buffer = f.assembler(4)
        assert set(buffer) == {1} and remaining == 2 - (t - 1) % 3, t
        plates = sum(t >= d for d in (4, 7, 10))  # made at 3, 6, 9: each leaves a tick later
        assert f.sink_counts(3) == ({5: plates} if plates else {}), t


def test_assembler_refuses_unneeded_type_two_inputs() -> None:
    f = factory("assembler_refuses_unneeded_type_two_inputs")  # sand at 1, coal at 5, ore at 7
    for t in ticks(f):
        assert f.source_buffer(1) == 3 and f.source_buffer(5) == 0, t  # sand refused; coal taken
        remaining, output, _ = f.assembler(4)
        assert (remaining, output) == ((1, 0) if t % 2 else (0, 5)), t  # a craft at every odd tick
        plates = (t - 1) // 2
        assert f.sink_counts(3) == ({5: plates} if plates else {}), t
