"""The reference rules (spec §3–§4) on small hand-worked factories."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lattice_desktop.lattice.checksum import (
    assembler_buffer_key,
    assembler_key,
    assembler_output_key,
    belt_item_key,
    checksum_from_records,
    mix,
    sink_count_key,
    source_item_key,
)
from lattice_desktop.lattice.rules import Factory, simulate
from lattice_desktop.lattice.scenario import (
    Assembler,
    Dir,
    Recipe,
    Scenario,
    Source,
    parse_scenario,
)


def build(*rows: str, lines: tuple[str, ...] = (), ticks: int = 100, snapshot: int = 1) -> Factory:
    header = [
        "lattice 1",
        f"size {len(rows[0])} {len(rows)}",
        f"ticks {ticks}",
        f"snapshot {snapshot}",
        *lines,
        "grid",
    ]
    return Factory(parse_scenario("\n".join([*header, *rows]) + "\n"))


def cell(f: Factory, x: int, y: int) -> int:
    return y * f.scenario.width + x


def fill(f: Factory, x: int, y: int, items: tuple[int, int, int, int]) -> None:
    for slot, item in enumerate(items):
        f.place(cell(f, x, y), slot, item)


def belt(f: Factory, x: int, y: int) -> tuple[int, ...]:
    return f.belt(cell(f, x, y))


# --- §4c/§4d: belts ----------------------------------------------------------------------


def test_items_advance_one_slot_and_stop_at_a_wall() -> None:
    f = build(">>#")
    fill(f, 0, 0, (1, 0, 2, 0))
    fill(f, 1, 0, (0, 3, 0, 4))
    f.step()
    assert (belt(f, 0, 0), belt(f, 1, 0)) == ((0, 1, 0, 2), (0, 0, 3, 4))
    f.step()
    assert (belt(f, 0, 0), belt(f, 1, 0)) == ((0, 0, 1, 0), (2, 0, 3, 4))
    f.run_to(10)
    assert (belt(f, 0, 0), belt(f, 1, 0)) == ((0, 0, 0, 0), (1, 2, 3, 4))


def test_full_ring_rotates() -> None:
    f = build(">v", "^<")  # clockwise: (0,0) → (1,0) → (1,1) → (0,1) → (0,0)
    ring = [(0, 0), (1, 0), (1, 1), (0, 1)]
    items = list(range(1, 17))
    for i, (x, y) in enumerate(ring):
        fill(f, x, y, tuple(items[4 * i : 4 * i + 4]))
    for step in range(1, 18):
        f.step()
        now = [item for x, y in ring for item in belt(f, x, y)]
        assert now == [items[(i - step) % 16] for i in range(16)]


def test_ring_with_one_gap_moves_everything_but_one() -> None:
    f = build(">v", "^<")
    ring = [(0, 0), (1, 0), (1, 1), (0, 1)]
    items = [*range(1, 16), 0]
    for i, (x, y) in enumerate(ring):
        fill(f, x, y, tuple(items[4 * i : 4 * i + 4]))
    f.step()
    assert [item for x, y in ring for item in belt(f, x, y)] == [0, *range(1, 16)]


@pytest.mark.parametrize(
    ("rows", "ring", "feeder"),
    [
        # (1, 0) < faces W: the feeder (2, 0) < is behind it, the ring's (1, 1) ^ on its left
        (("v<<", ">^."), [(0, 0), (0, 1), (1, 1), (1, 0)], (2, 0)),
        # (1, 1) < faces W: the feeder (2, 1) < is behind it, the ring's (1, 0) v on its right
        ((">v.", "^<<"), [(0, 0), (1, 0), (1, 1), (0, 1)], (2, 1)),
    ],
)
def test_full_ring_jammed_by_a_feeder_behind(rows, ring, feeder) -> None:
    f = build(*rows)
    for i, (x, y) in enumerate(ring):
        fill(f, x, y, (i + 1,) * 4)
    fill(f, *feeder, (0, 0, 0, 9))
    # the feeder holds an item and outranks the ring: the ring's last slot 3 is not the
    # candidate, so no ring of candidates closes and nothing can move
    f.run_to(3)
    assert [belt(f, x, y) for x, y in ring] == [(i + 1,) * 4 for i in range(4)]
    assert belt(f, *feeder) == (0, 0, 0, 9)


RING_WITH_SIDE_FEEDER = (".v<", ">v^", ".>^")
# ring: (1,0) v → (1,1) v → (1,2) > → (2,2) ^ → (2,1) ^ → (2,0) < → (1,0); the feeder
# (0, 1) > side-loads (1, 1) v from its right, and the ring's (1, 0) is behind (1, 1)
SIDE_FED_RING = [(1, 0), (1, 1), (1, 2), (2, 2), (2, 1), (2, 0)]


def test_full_ring_outranks_a_side_feeder_and_rotates() -> None:
    f = build(*RING_WITH_SIDE_FEEDER)
    for i, (x, y) in enumerate(SIDE_FED_RING):
        fill(f, x, y, (i + 1,) * 4)
    fill(f, 0, 1, (0, 0, 0, 9))
    before = [i + 1 for i in range(6) for _ in range(4)]
    for step in range(1, 30):
        f.step()
        flat = [item for x, y in SIDE_FED_RING for item in belt(f, x, y)]
        assert flat == [before[(i - step) % 24] for i in range(24)]
        assert belt(f, 0, 1) == (0, 0, 0, 9)


def test_queue_of_a_waiting_feeder_closes_up() -> None:
    f = build(*RING_WITH_SIDE_FEEDER)
    for x, y in SIDE_FED_RING:
        fill(f, x, y, (1, 1, 1, 1))
    fill(f, 0, 1, (2, 0, 2, 2))  # slots 2 and 3 wait; slot 0 moves into the empty slot 1
    f.step()
    assert belt(f, 0, 1) == (0, 2, 2, 2)


def test_slot_zero_priority_behind_left_right() -> None:
    # B at (1, 1) faces E: behind (0, 1) >, left = B + left(E) = B + N = (1, 0) v,
    # right = B + S = (1, 2) ^.
    f = build(".v.", ">>K", ".^.")
    fill(f, 0, 1, (0, 0, 0, 1))
    fill(f, 1, 0, (0, 0, 2, 2))
    fill(f, 1, 2, (0, 0, 3, 3))
    f.step()
    assert belt(f, 1, 1)[0] == 1
    assert belt(f, 1, 0) == (0, 0, 2, 2) and belt(f, 1, 2) == (0, 0, 3, 3)
    f.step()  # behind is empty now: left is the candidate
    assert belt(f, 1, 1)[:2] == (2, 1)
    assert belt(f, 1, 0) == (0, 0, 0, 2) and belt(f, 1, 2) == (0, 0, 3, 3)
    f.step()
    assert belt(f, 1, 1)[:3] == (2, 2, 1)
    f.step()  # left is empty: right at last
    assert belt(f, 1, 1) == (3, 2, 2, 1)
    assert belt(f, 1, 2) == (0, 0, 0, 3)


@pytest.mark.parametrize(
    ("rows", "b", "left", "right"),
    [
        # B faces S at (1, 1): left(S) = E, so the left neighbour is (2, 1) facing W
        ((".v.", ">v<", "..."), (1, 1), (2, 1), (0, 1)),
        # B faces N at (1, 1): left(N) = W, so the left neighbour is (0, 1) facing E
        (("...", ">^<", ".^."), (1, 1), (0, 1), (2, 1)),
        # B faces W at (1, 1): left(W) = S, so the left neighbour is (1, 2) facing N
        ((".v.", ".<<", ".^."), (1, 1), (1, 2), (1, 0)),
    ],
)
def test_left_is_counter_clockwise(rows, b, left, right) -> None:
    f = build(*rows)
    fill(f, *left, (0, 0, 0, 2))
    fill(f, *right, (0, 0, 0, 3))
    f.step()
    assert belt(f, *b)[0] == 2
    assert belt(f, *right)[3] == 3


def test_higher_contender_moves_into_a_slot_that_empties_this_tick() -> None:
    f = build(".v.", ">>.", "...")
    fill(f, 1, 1, (5, 0, 0, 0))  # slot 0 full, but its item moves to slot 1
    fill(f, 0, 1, (0, 0, 0, 1))
    fill(f, 1, 0, (0, 0, 0, 2))
    f.step()
    assert belt(f, 1, 1)[:2] == (1, 5)
    assert belt(f, 1, 0)[3] == 2


def test_blocked_candidate_blocks_lower_contenders() -> None:
    f = build(".v.", ">>#", "...")
    fill(f, 1, 1, (5, 6, 7, 8))  # full and stuck at the wall
    fill(f, 0, 1, (0, 0, 0, 1))
    fill(f, 1, 0, (0, 0, 0, 2))
    f.step()
    assert belt(f, 1, 1) == (5, 6, 7, 8)
    assert belt(f, 0, 1)[3] == 1 and belt(f, 1, 0)[3] == 2


def test_opposite_belt_never_accepts_and_front_belt_is_no_contender() -> None:
    f = build("><")
    fill(f, 0, 0, (0, 0, 0, 1))
    fill(f, 1, 0, (0, 0, 0, 2))
    f.run_to(5)
    assert belt(f, 0, 0) == (0, 0, 0, 1) and belt(f, 1, 0) == (0, 0, 0, 2)


def test_exits_into_walls_empty_cells_sources_and_off_grid_stay() -> None:
    f = build(">#", ">.", ">S", "<.", lines=("source 1 2 E 1 9999",))
    for y in range(4):
        fill(f, 0, y, (0, 0, 0, 1))
    f.run_to(3)
    for y in range(4):
        assert belt(f, 0, y) == (0, 0, 0, 1)
    assert f.source_buffer(cell(f, 1, 2)) == 1


# --- §4 phase 1: sources -----------------------------------------------------------------


def test_source_period_and_full_buffer() -> None:
    f = build("S>#", lines=("source 0 0 E 4 3",))
    produced = []
    for _ in range(16):
        f.step()
        produced.append((f.source_buffer(0), belt(f, 1, 0)))
    # items made at t = 1, 4, 7, 10 fill the belt; t = 13 fills the buffer; t = 16 is skipped
    assert produced[0] == (0, (4, 0, 0, 0))
    assert produced[3] == (0, (4, 0, 0, 4))
    assert produced[6] == (0, (4, 0, 4, 4))
    assert produced[9] == (0, (4, 4, 4, 4))
    assert [p[0] for p in produced[9:]] == [0, 0, 0, 4, 4, 4, 4]


# --- §4a/§4b: sinks and assemblers -------------------------------------------------------


def test_sink_counts_per_type_from_belts() -> None:
    f = build(">K<")
    fill(f, 0, 0, (1, 1, 0, 1))
    fill(f, 2, 0, (2, 0, 0, 2))
    f.run_to(4)
    assert f.sink_counts(1) == {1: 3, 2: 2}


def test_assembler_refuses_types_it_does_not_use_and_counts_same_tick_arrivals() -> None:
    recipe = "recipe 1 9 50 1:1 2:2"  # capacity: 2 of type 1, 4 of type 2
    f = build(".v.", ">A<", ".^.", lines=(recipe, "assembler 1 1 E 1"))
    a = cell(f, 1, 1)
    fill(f, 1, 0, (2, 0, 2, 2))  # N offers 2 at ticks 1, 2 and 4
    fill(f, 2, 1, (2, 2, 2, 2))  # E offers 2 every tick
    fill(f, 1, 2, (0, 0, 0, 3))  # S offers 3, which the recipe does not use
    fill(f, 0, 1, (1, 1, 1, 1))  # W offers 1 every tick
    f.step()  # N, E, W accepted: {1: 1, 2: 2}; then a craft starts and takes 1 + 2
    assert f.assembler(a) == (50, 0, {1: 0, 2: 0})
    assert belt(f, 1, 2) == (0, 0, 0, 3)
    f.step()  # N, E, W again
    assert f.assembler(a) == (49, 0, {1: 1, 2: 2})
    f.step()  # E (2 → 3) and W (1 → 2)
    assert f.assembler(a) == (48, 0, {1: 2, 2: 3})
    f.step()  # N first: 3 < 4 accepted; E: 3 + 1 accepted earlier is not < 4; W: 2 is full
    assert f.assembler(a) == (47, 0, {1: 2, 2: 4})
    assert belt(f, 1, 0) == (0, 0, 0, 0)
    assert belt(f, 2, 1) == (0, 0, 0, 2) and belt(f, 0, 1) == (0, 0, 0, 1)


def test_assembler_output_moves_into_a_belt_and_another_assembler() -> None:
    lines = (
        "recipe 1 5 1 1:1",
        "recipe 2 6 1 5:1",
        "source 0 0 E 1 1",
        "assembler 1 0 E 1",
        "assembler 2 0 S 2",
    )
    f = build("SAA", "..v", "..K", lines=lines)
    # t1: ore in, craft starts (time 1). t2: output 5 ready. t3: 5 into the second
    # assembler, which starts. t4: output 6. t5: 6 onto the belt's slot 0.
    f.run_to(2)
    assert f.assembler(1) == (0, 5, {1: 1})
    f.run_to(3)
    assert f.assembler(2) == (1, 0, {5: 0})
    f.run_to(5)
    assert belt(f, 2, 1)[0] == 6
    f.run_to(9)
    assert f.sink_counts(cell(f, 2, 2)) == {6: 1}


def test_crafting_with_time_one() -> None:
    f = build("SAK", lines=("recipe 1 7 1 1:1", "source 0 0 E 1 100", "assembler 1 0 E 1"))
    f.step()
    assert f.assembler(1) == (1, 0, {1: 0})
    f.step()
    assert f.assembler(1) == (0, 7, {1: 0})
    f.step()
    assert f.assembler(1) == (0, 0, {1: 0}) and f.sink_counts(2) == {7: 1}


# --- records, checksum, snapshots --------------------------------------------------------


def test_records_and_checksum_of_a_known_state() -> None:
    f = build("S>K", "..A", lines=("recipe 3 2 5 1:1", "source 0 0 E 1 2", "assembler 2 1 N 3"))
    f.step()
    records = f.records()
    assert records == {belt_item_key(1, 0, 1): 1, assembler_key(5, 0): 1}
    acc = (mix(belt_item_key(1, 0, 1)) + mix(assembler_key(5, 0))) % 2**64
    assert f.checksum() == mix(acc ^ 1)
    f.run_to(5)
    assert f.records()[sink_count_key(2, 1)] == 1
    assert checksum_from_records(f.records(), 5) == f.checksum()


def test_simulate_snapshots_every_s_ticks() -> None:
    f = build("S>K", lines=("source 0 0 E 1 2",), ticks=10, snapshot=3)
    expected = []
    for t in range(1, 10):
        f.step()
        if t % 3 == 0:
            expected.append(f.checksum())
    assert simulate(f.scenario) == expected


def test_run_to_cannot_go_back() -> None:
    f = build(">")
    f.run_to(3)
    with pytest.raises(ValueError, match="cannot run back"):
        f.run_to(2)


# --- a second, naive reading of §4 as an oracle ------------------------------------------

DIRS = {"^": Dir.N, ">": Dir.E, "v": Dir.S, "<": Dir.W}


class NaiveFactory:
    """§4 read literally, keyed by cell, with the greatest fixed point found by iteration:
    start from every item that could move and drop those whose target stays full."""

    def __init__(self, scenario: Scenario, belts: dict[int, list[int]]) -> None:
        self.s = scenario
        self.t = 0
        self.belts = {c: list(items) for c, items in belts.items()}
        self.buffers = dict.fromkeys(scenario.sources, 0)
        self.sinks = {c: {} for c in range(scenario.cells) if scenario.char(*self.xy(c)) == "K"}
        self.asm = {c: [0, 0, {k: 0 for k, _ in self.recipe(c).inputs}] for c in scenario.assemblers}

    def xy(self, c: int) -> tuple[int, int]:
        return c % self.s.width, c // self.s.width

    def recipe(self, c: int) -> Recipe:
        return self.s.recipes[self.s.assemblers[c].recipe_id]

    def direction(self, c: int) -> Dir | None:
        char = self.s.char(*self.xy(c))
        if char in DIRS:
            return DIRS[char]
        if c in self.s.sources:
            return self.s.sources[c].dir
        if c in self.s.assemblers:
            return self.s.assemblers[c].dir
        return None

    def step_to(self, c: int, d: Dir) -> int | None:
        x, y = self.xy(c)
        x, y = x + d.dx, y + d.dy
        ok = 0 <= x < self.s.width and 0 <= y < self.s.height
        return y * self.s.width + x if ok else None

    def exit_item(self, c: int) -> int:
        if c in self.belts:
            return self.belts[c][3]
        if c in self.buffers:
            return self.buffers[c]
        return self.asm[c][1]

    def exit_position(self, c: int) -> tuple:
        """A belt's exit is its slot 3; a source's buffer or an assembler's output."""
        return ("belt", c, 3) if c in self.belts else ("exit", c)

    def targets(self, c: int, t: int) -> bool:
        """Does the exit at c target the cell t and may t accept from it (§3)?"""
        d = self.direction(c)
        if d is None or self.step_to(c, d) != t:
            return False
        return t not in self.belts or self.direction(t) != d.opposite()

    def step(self) -> None:
        self.t += 1
        for c, src in self.s.sources.items():  # phase 1
            if self.buffers[c] == 0 and (self.t - 1) % src.period == 0:
                self.buffers[c] = src.type
        # phase 2: every item and where it would go
        want: dict[tuple, object] = {}
        for c, items in self.belts.items():
            for s in range(3):
                if items[s]:
                    want[("belt", c, s)] = ("belt", c, s + 1)
        accepted: dict[int, dict[int, int]] = {a: {} for a in self.asm}
        for c in [*self.belts, *self.buffers, *self.asm]:
            item = self.exit_item(c)
            d = self.direction(c)
            t = self.step_to(c, d)
            if not item or t is None or not self.targets(c, t):
                continue
            if t in self.sinks:
                want[self.exit_position(c)] = "gone"
            elif t in self.belts:
                e = self.direction(t)
                ranked = [self.step_to(t, side) for side in (e.opposite(), e.left(), e.right())]
                holders = [o for o in ranked if o is not None and self.targets(o, t)]
                holders = [o for o in holders if self.exit_item(o)]
                if holders[0] == c:
                    want[self.exit_position(c)] = ("belt", t, 0)
        for a in self.asm:  # §4b, neighbours N, E, S, W
            caps = {k: 2 * n for k, n in self.recipe(a).inputs}
            for side in (Dir.N, Dir.E, Dir.S, Dir.W):
                o = self.step_to(a, side)
                if o is None or not self.targets(o, a) or not self.exit_item(o):
                    continue
                k = self.exit_item(o)
                taken = accepted[a].get(k, 0)
                if k in caps and self.asm[a][2][k] + taken < caps[k]:
                    accepted[a][k] = taken + 1
                    want[self.exit_position(o)] = "gone"

        def occupied(pos: tuple) -> bool:
            if pos[0] == "belt":
                return bool(self.belts[pos[1]][pos[2]])
            return bool(self.exit_item(pos[1]))

        moving = set(want)
        changed = True
        while changed:
            changed = False
            for p in list(moving):
                q = want[p]
                if q != "gone" and occupied(q) and q not in moving:
                    moving.discard(p)
                    changed = True

        def take(pos: tuple) -> int:
            if pos[0] == "belt":
                item, self.belts[pos[1]][pos[2]] = self.belts[pos[1]][pos[2]], 0
            elif pos[1] in self.buffers:
                item, self.buffers[pos[1]] = self.buffers[pos[1]], 0
            else:
                item, self.asm[pos[1]][1] = self.asm[pos[1]][1], 0
            return item

        taken_items = {p: take(p) for p in moving}
        for p, item in taken_items.items():
            q = want[p]
            if q != "gone":
                self.belts[q[1]][q[2]] = item
                continue
            t = self.step_to(p[1], self.direction(p[1]))
            if t in self.sinks:
                self.sinks[t][item] = self.sinks[t].get(item, 0) + 1
            else:
                self.asm[t][2][item] += 1
        for a, state in self.asm.items():  # phase 3
            recipe = self.recipe(a)
            if state[0] > 0:
                state[0] -= 1
                if state[0] == 0:
                    state[1] = recipe.product
            if state[0] == 0 and state[1] == 0 and all(state[2][k] >= n for k, n in recipe.inputs):
                for k, n in recipe.inputs:
                    state[2][k] -= n
                state[0] = recipe.time

    def records(self) -> dict[int, int]:
        out = {}
        for c, items in self.belts.items():
            for s, item in enumerate(items):
                if item:
                    out[belt_item_key(c, s, item)] = 1
        for c, item in self.buffers.items():
            if item:
                out[source_item_key(c, item)] = 1
        for c, counts in self.sinks.items():
            for k, n in counts.items():
                out[sink_count_key(c, k)] = n
        for c, (remaining, output, buffer) in self.asm.items():
            out[assembler_key(c, remaining)] = 1
            if output:
                out[assembler_output_key(c, output)] = 1
            for k, b in buffer.items():
                if b:
                    out[assembler_buffer_key(c, k)] = b
        return out


@st.composite
def seeded_factories(draw: st.DrawFn) -> tuple[Scenario, dict[int, list[int]]]:
    """Small belt-heavy factories with belts already partly or wholly full."""
    w, h = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    recipes = {
        1: Recipe(
            draw(st.integers(1, 3)),
            draw(st.integers(1, 3)),
            tuple(
                draw(
                    st.lists(
                        st.tuples(st.integers(1, 3), st.integers(1, 2)),
                        min_size=1,
                        max_size=3,
                        unique_by=lambda p: p[0],
                    )
                )
            ),
        )
    }
    grid = draw(st.lists(st.sampled_from("^>v<^>v<^>v<SKA."), min_size=w * h, max_size=w * h))
    dirs = st.sampled_from(list(Dir))
    sources = {
        c: Source(draw(dirs), draw(st.integers(1, 3)), draw(st.integers(1, 3)))
        for c, ch in enumerate(grid)
        if ch == "S"
    }
    assemblers = {c: Assembler(draw(dirs), 1) for c, ch in enumerate(grid) if ch == "A"}
    slot = st.sampled_from([0, 1, 2, 3, 3, 3])  # mostly full
    belts = {c: [draw(slot) for _ in range(4)] for c, ch in enumerate(grid) if ch in DIRS}
    scenario = Scenario(
        w,
        h,
        30,
        1,
        "".join(grid).encode(),
        recipes=recipes,
        sources=sources,
        assemblers=assemblers,
    )
    return scenario, belts


def ring_example(rows: tuple[str, ...], sources: dict[int, Source] | None = None):
    grid = "".join(rows).encode()
    scenario = Scenario(len(rows[0]), len(rows), 12, 1, grid, sources=sources or {})
    belts = {c: [1, 2, 3, 1] for c, ch in enumerate(grid) if chr(ch) in DIRS}
    return (scenario, belts)


@settings(max_examples=300, deadline=None)
@given(seeded_factories())
@example(ring_example((">v", "^<")))
@example(ring_example((".v<", ">v^", ".>^")))
@example(ring_example(("v<<", ">^.")))
@example(ring_example(("S>v", ".^<"), {0: Source(Dir.E, 2, 1)}))
@example(ring_example((".S.", ">>v", "^<<", ".S."), {1: Source(Dir.S, 2, 1), 10: Source(Dir.N, 3, 1)}))
def test_agrees_with_a_naive_reading_of_the_rules(seeded) -> None:
    scenario, belts = seeded
    f = Factory(scenario)
    for c, items in belts.items():
        for s, item in enumerate(items):
            f.place(c, s, item)
    naive = NaiveFactory(scenario, belts)
    for _ in range(scenario.ticks):
        f.step()
        naive.step()
        assert f.records() == naive.records(), f.tick
