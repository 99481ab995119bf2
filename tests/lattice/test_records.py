"""Records (spec §8): they recompute the checksum, decode strictly, diff cell by cell and
lay out as a drawable state."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lattice_desktop.errors import UserError
from lattice_desktop.lattice.checksum import (
    assembler_key,
    belt_item_key,
    checksum_from_records,
    key_cell,
    mix,
    sink_count_key,
    source_item_key,
    term,
)
from lattice_desktop.lattice.records import (
    RecordDiff,
    RecordsError,
    as_pairs,
    cell_counts,
    decode_pairs,
    decode_records,
    diff_pairs,
    diff_records,
    key_cells,
)
from lattice_desktop.lattice.rules import Factory, simulate
from lattice_desktop.lattice.scenario import (
    Assembler,
    Dir,
    Entity,
    Recipe,
    Scenario,
    Source,
    parse_scenario,
)
from lattice_desktop.lattice.simulators import checked_state
from lattice_desktop.lattice.view import NO_DIR, check_placement, describe_cell
from tests.lattice.slow_state import slow_state, state_of


@st.composite
def factories(draw: st.DrawFn, *, max_side: int = 7) -> Scenario:
    """Small random factories, dense with belts, sources, sinks and assemblers."""
    w = draw(st.integers(1, max_side))
    h = draw(st.integers(1, max_side))
    recipes = {
        rid: Recipe(
            product=draw(st.integers(1, 4)),
            time=draw(st.integers(1, 4)),
            inputs=tuple(
                draw(
                    st.lists(
                        st.tuples(st.integers(1, 4), st.integers(1, 3)),
                        min_size=1,
                        max_size=3,
                        unique_by=lambda p: p[0],
                    )
                )
            ),
        )
        for rid in (1, 2)
    }
    weights = "^>v<^>v<^>v<SSKA.#"
    grid = draw(st.lists(st.sampled_from(weights), min_size=w * h, max_size=w * h))
    directions = st.sampled_from(list(Dir))
    sources = {
        c: Source(draw(directions), draw(st.integers(1, 4)), draw(st.integers(1, 4)))
        for c, ch in enumerate(grid)
        if ch == "S"
    }
    assemblers = {
        c: Assembler(draw(directions), draw(st.sampled_from([1, 2])))
        for c, ch in enumerate(grid)
        if ch == "A"
    }
    ticks = draw(st.integers(1, 40))
    return Scenario(
        width=w,
        height=h,
        ticks=ticks,
        snapshot=draw(st.integers(1, ticks)),
        grid="".join(grid).encode(),
        recipes=recipes,
        sources=sources,
        assemblers=assemblers,
    )


@settings(max_examples=150, deadline=None)
@given(factories())
def test_records_recompute_the_checksum(scenario: Scenario) -> None:
    f = Factory(scenario)
    snapshots = []
    while f.tick < scenario.ticks:
        f.step()
        records = f.records()
        assert checksum_from_records(records, f.tick) == f.checksum()
        assert decode_records(_encoded(records)) == records
        state = state_of(f)
        assert int(state.slots.astype(bool).sum()) == sum(k >> 56 == 1 for k in records)
        if f.tick % scenario.snapshot == 0:
            snapshots.append(f.checksum())
    assert simulate(scenario) == snapshots


def test_hundreds_of_small_random_scenarios_simulate() -> None:
    rng = np.random.default_rng(7)
    chars = list("^>v<^>v<SK.")
    for _ in range(300):
        w, h = (int(v) for v in rng.integers(3, 9, size=2))
        grid = "".join(rng.choice(chars, size=w * h))
        sources = {c: Source(Dir(int(rng.integers(4))), 1, 2) for c, ch in enumerate(grid) if ch == "S"}
        scenario = Scenario(w, h, 100, 10, grid.encode(), sources=sources)
        assert len(simulate(scenario)) == 10


# --- checksum terms ----------------------------------------------------------------------


def test_mix_known_values() -> None:
    # splitmix64 finaliser: mix(0) is the first output of splitmix64 seeded with 0
    assert mix(0) == 0xE220A8397B1DCDAF
    assert mix(2**64 - 0x9E3779B97F4A7C15) == 0  # the first addition wraps to 0
    assert all(0 <= mix(z) < 2**64 for z in (1, 2**63, 2**64 - 1))


def test_terms() -> None:
    key = sink_count_key(5, 2)
    assert term(key, 3) == mix((mix(key) + 3) % 2**64)
    assert term(belt_item_key(1, 3, 4), 1) == mix(belt_item_key(1, 3, 4))
    assert belt_item_key(1, 3, 4) == 1 << 56 | 1 << 16 | 3 << 8 | 4
    with pytest.raises(ValueError, match="needs value 1"):
        term(source_item_key(0, 1), 2)


# --- decoding ----------------------------------------------------------------------------


def pairs(*kv: tuple[int, int]) -> bytes:
    return b"".join(struct.pack("<QQ", k, v) for k, v in kv)


def test_decode_records() -> None:
    data = pairs((belt_item_key(3, 1, 2), 1), (sink_count_key(4, 1), 7))
    assert decode_records(data) == {belt_item_key(3, 1, 2): 1, sink_count_key(4, 1): 7}
    assert decode_records(b"") == {}


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"\0" * 15, "15 bytes is not a whole number of 16-byte"),
        (pairs((belt_item_key(0, 0, 1), 1)) + b"\0" * 8, "24 bytes"),
        (pairs((belt_item_key(0, 0, 1), 1), (belt_item_key(0, 0, 1), 1)), "duplicate key"),
        (pairs((7 << 56, 1)), "unknown record kind 7"),
        (pairs((0, 1)), "unknown record kind 0"),
        (pairs((sink_count_key(0, 1), 0)), "value above 0"),
        (pairs((assembler_key(0, 3), 2)), "must have value 1, got 2"),
    ],
)
def test_decode_records_refuses(data: bytes, reason: str) -> None:
    with pytest.raises(RecordsError) as caught:
        decode_records(data, source="engine.wasm")
    assert isinstance(caught.value, UserError)
    assert reason in caught.value.message
    assert caught.value.location.file == "engine.wasm"


# --- diffs and the drawable state --------------------------------------------------------

SCENARIO = """\
lattice 1
size 4 2
ticks 20
snapshot 5
item 1 ore
item 2 plate
recipe 3 2 4 1:2
source 0 0 E 1 1
assembler 2 0 E 3
grid
S>AK
.#vK
"""


def test_diff_records_marks_differing_cells() -> None:
    f = Factory(parse_scenario(SCENARIO))
    f.run_to(6)
    expected = f.records()
    got = dict(expected)
    moved = belt_item_key(1, 3, 1)
    assert moved in expected
    del got[moved]
    got[sink_count_key(3, 2)] = 5
    diffs = diff_records(expected, got)
    assert [(d.key, d.expected, d.got) for d in diffs] == [
        (moved, 1, None),
        (sink_count_key(3, 2), None, 5),
    ]
    assert [d.kind for d in diffs] == [1, 3]
    assert {d.cell for d in diffs} == {1, 3}
    assert diff_records(expected, expected) == []


def test_factory_state_arrays() -> None:
    f = Factory(parse_scenario(SCENARIO))
    f.run_to(6)
    state = state_of(f)
    assert state.tick == 6
    assert state.entity.dtype == np.uint8 and state.entity.shape == (2, 4)
    assert state.entity.tolist() == [
        [Entity.SOURCE, Entity.BELT, Entity.ASSEMBLER, Entity.SINK],
        [Entity.EMPTY, Entity.WALL, Entity.BELT, Entity.SINK],
    ]
    assert state.direction.tolist() == [[Dir.E, Dir.E, Dir.E, NO_DIR], [NO_DIR, NO_DIR, Dir.S, NO_DIR]]
    assert state.slots.shape == (2, 4, 4) and state.source_buffer.shape == (2, 4)
    assert state.slots[0, 1].tolist() == list(f.belt(1))
    assert state.source_buffer[0, 0] == f.source_buffer(0)
    remaining, output, buffer = f.assembler(2)
    assert state.assemblers[2] == (remaining, output, {k: b for k, b in buffer.items() if b})
    assert state.sink_counts == {c: f.sink_counts(c) for c in (3, 7) if f.sink_counts(c)}


def test_factory_state_refuses_records_that_do_not_fit() -> None:
    scenario = parse_scenario(SCENARIO)
    with pytest.raises(RecordsError, match=r"cell \(1, 1\), which is wall"):
        slow_state(scenario, {belt_item_key(5, 0, 1): 1}, tick=1)
    with pytest.raises(RecordsError, match="off the grid"):
        slow_state(scenario, {source_item_key(99, 1): 1}, tick=1)
    with pytest.raises(RecordsError, match=r"cell \(1, 1\), which is wall"):
        checked_state(scenario, {belt_item_key(5, 0, 1): 1}, tick=1)
    with pytest.raises(RecordsError, match="off the grid"):
        checked_state(scenario, {source_item_key(99, 1): 1}, tick=1)


def _encoded(records: dict[int, int]) -> bytes:
    """The bytes an engine's `lattice_records` returns for these records (sorted by key)."""
    return b"".join(struct.pack("<QQ", k, v) for k, v in sorted(records.items()))


def _error_of(build) -> str | None:
    try:
        build()
    except RecordsError as exc:
        return str(exc)
    return None


@settings(max_examples=300, deadline=None)
@given(
    st.integers(0, 40),
    st.lists(
        st.tuples(st.integers(0, 7), st.integers(0, 12), st.integers(0, 0xFFFF), st.integers(0, 5)),
        max_size=6,
    ),
)
def test_the_vectorised_check_refuses_exactly_what_the_loop_refuses(ticks, extra) -> None:
    """Untrusted records drawn with numpy: the same state, or the same first error."""
    f = Factory(parse_scenario(SCENARIO))
    f.run_to(ticks)
    records = dict(f.records())
    for kind, cell, low, value in extra:  # wrong kinds, cells off the grid or on walls, repeats
        records[(kind << 56) | (cell << 16) | low] = value
    slow = _error_of(lambda: slow_state(f.scenario, records, tick=ticks))
    fast = _error_of(lambda: checked_state(f.scenario, records, tick=ticks))
    assert fast == slow
    if slow is None:
        a = slow_state(f.scenario, records, tick=ticks)
        b = checked_state(f.scenario, records, tick=ticks)
        assert np.array_equal(a.slots, b.slots) and np.array_equal(a.source_buffer, b.source_buffer)
        assert a.sink_counts == b.sink_counts and a.assemblers == b.assemblers


def test_a_second_timer_record_for_one_assembler_is_refused_by_both() -> None:
    scenario = parse_scenario(SCENARIO)
    records = {assembler_key(2, 3): 1, assembler_key(2, 4): 1}
    message = "two remaining-time records for one assembler"
    with pytest.raises(RecordsError, match=message):
        slow_state(scenario, records, tick=1)
    with pytest.raises(RecordsError, match=message):
        checked_state(scenario, records, tick=1)


def test_describe_cell() -> None:
    f = Factory(parse_scenario(SCENARIO))
    f.run_to(12)
    state = state_of(f)
    belt = describe_cell(f.scenario, state, 1, 0)
    assert belt.startswith("(1, 0) cell 1: belt facing E")
    assert "slots 0: ore (1)" in belt
    source = describe_cell(f.scenario, state, 0, 0)
    assert "makes ore (1) every 1 ticks" in source
    assembler = describe_cell(f.scenario, state, 2, 0)
    assert assembler.splitlines()[1:] == [
        "recipe 3: plate (2) in 4 ticks",
        "buffer ore (1): 3 (2 per craft)",
        "crafting, 3 of 4 ticks left; output: -",
    ]
    assert describe_cell(f.scenario, state, 3, 0).endswith("received plate (2): 1")
    assert describe_cell(f.scenario, state, 1, 1) == "(1, 1) cell 5: wall"
    assert describe_cell(f.scenario, state, 9, 9) == "(9, 9): outside the grid"


# --- the vectorised forms used on big factories ---------------------------------------------


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"\0" * 15, "15 bytes is not a whole number of 16-byte"),
        (pairs((belt_item_key(0, 0, 1), 1), (belt_item_key(0, 0, 1), 1)), "duplicate key"),
        (pairs((7 << 56, 1)), "unknown record kind"),
        (pairs((0, 1)), "unknown record kind"),
        (pairs((sink_count_key(0, 1), 0)), "value above 0"),
        (pairs((assembler_key(0, 3), 2)), "must have value 1"),
    ],
)
def test_decode_pairs_refuses_what_decode_records_refuses(data: bytes, reason: str) -> None:
    with pytest.raises(RecordsError) as caught:
        decode_pairs(data, source="engine.wasm")
    assert reason in caught.value.message and caught.value.location.file == "engine.wasm"


@given(st.integers(0, 2**32), st.integers(1, 30))
@settings(max_examples=40, deadline=None)
def test_pairs_agree_with_the_dict_forms(seed: int, tick: int) -> None:
    from lattice_desktop.lattice.generator import generate

    scenario = parse_scenario(
        generate(seed, width=12, height=9, ticks=40, snapshot=5, density=1.0, noise=0.1)
    )
    f = Factory(scenario)
    f.run_to(tick)
    expected = f.records()
    f.run_to(tick + 1)
    got = f.records()
    decoded = decode_pairs(_encoded(got))
    assert dict(zip(decoded[:, 0].tolist(), decoded[:, 1].tolist(), strict=True)) == got
    assert decoded[:, 0].tolist() == sorted(got)
    assert diff_pairs(expected, decoded) == diff_records(expected, got)
    assert diff_pairs(as_pairs(got), got) == []
    check_placement(scenario, decoded)


def test_check_placement_refuses_records_that_do_not_fit() -> None:
    scenario = parse_scenario(SCENARIO)
    with pytest.raises(RecordsError, match=r"cell \(1, 1\), which is wall"):
        check_placement(scenario, as_pairs({belt_item_key(5, 0, 1): 1}))
    with pytest.raises(RecordsError, match="off the grid"):
        check_placement(scenario, as_pairs({source_item_key(99, 1): 1}))
    with pytest.raises(RecordsError, match="two remaining-time records"):
        check_placement(scenario, as_pairs({assembler_key(2, 3): 1, assembler_key(2, 4): 1}))


def test_cell_counts_counts_differing_records_per_cell_in_grid_order() -> None:
    def key(kind: int, cell: int, low: int = 0) -> int:
        return kind << 56 | cell << 16 | low

    diffs = [RecordDiff(key(1, 9, 1), 1, None), RecordDiff(key(1, 3), None, 1), RecordDiff(key(3, 9), 2, 1)]
    assert list(cell_counts(diffs).items()) == [(3, 1), (9, 2)]
    assert cell_counts([]) == {}


def test_key_cells_is_key_cell_for_every_key() -> None:
    keys = [1 << 56 | 0xFF_FFFF << 16 | 0x0203, 3 << 56 | 7 << 16 | 5, 0]
    assert key_cells(np.array(keys, np.uint64)).tolist() == [key_cell(k) for k in keys]
