"""Phase 2 over arrays (`rules.Factory._successors`, `move_phase.greatest_fixed_point`)
against the item-by-item walk: the fixed point on random chains and rings, and every
tick's fates and records on random small factories, walked by the slip-free test mutant."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lattice_desktop.lattice.move_phase import (
    BLOCKED,
    EMPTY,
    FREE,
    MOVED,
    STAYED,
    fates,
    greatest_fixed_point,
)
from lattice_desktop.lattice.rules import Factory
from lattice_desktop.lattice.world import Dir, Source
from tests.lattice.mutants import Mutant
from tests.lattice.test_rules import ring_example, seeded_factories


def walked(held: list[int], successor: dict[int, int]) -> dict[int, int]:
    """Each held position's fate, found by following its successors one by one."""
    fate: dict[int, int] = {}
    for start in held:
        path, pos = [], start
        while pos not in fate and pos not in path:
            path.append(pos)
            nxt = successor[pos]
            if nxt < 0:
                fate[pos] = MOVED if nxt == FREE else STAYED
                path.pop()
                break
            pos = nxt
        # a walk ends at a decided item (its fate) or back on itself (a ring: it rotates)
        outcome = fate.get(pos, MOVED)
        for p in path:
            fate[p] = outcome
    return fate


@st.composite
def chains_and_rings(draw: st.DrawFn) -> tuple[list[int], dict[int, int]]:
    """Held positions laid out as belts (four slots, the last an exit), split into disjoint
    chains, each ending FREE or BLOCKED, and rings; every slot's successor its next slot."""
    belts = draw(st.integers(1, 40))
    order = draw(st.permutations(range(belts)))
    successor: dict[int, int] = {}
    i = 0
    while i < len(order):
        run = order[i : i + draw(st.integers(1, 8))]
        i += len(run)
        ring = draw(st.booleans())
        first = draw(st.integers(0, 3))  # a chain may start inside its first belt
        slots = [b * 4 + s for j, b in enumerate(run) for s in range(4) if j or ring or s >= first]
        successor.update(itertools.pairwise(slots))
        successor[slots[-1]] = slots[0] if ring else draw(st.sampled_from([FREE, BLOCKED]))
    return sorted(successor), successor


@settings(max_examples=300, deadline=None)
@given(chains_and_rings())
def test_the_fixed_point_is_the_walks(graph) -> None:
    held, successor = graph
    positions = np.array(held, np.int64)
    fate = greatest_fixed_point(positions, np.array([successor[p] for p in held], np.int64), 4 * 40 + 1)
    assert fates(fate) == {p: int(f == MOVED) for p, f in walked(held, successor).items()}
    assert np.count_nonzero(fate != EMPTY) == len(held)


def test_a_ring_and_two_chains_of_300_belts() -> None:
    # A ring given by two exits alone; a chain of 300 belts ending blocked, one ending free.
    successor = {3: 7, 7: 3}
    for end, base in ((BLOCKED, 8), (FREE, 8 + 300 * 4)):
        slots = list(range(base, base + 300 * 4))
        successor.update(zip(slots, [*slots[1:], end], strict=True))
    held = sorted(successor)
    fate = greatest_fixed_point(np.array(held), np.array([successor[p] for p in held]), held[-1] + 2)
    assert fate[3] == fate[7] == MOVED
    assert set(fate[8 : 8 + 1200].tolist()) == {STAYED}
    assert set(fate[1208 : 1208 + 1200].tolist()) == {MOVED}


@settings(max_examples=200, deadline=None)
@given(seeded_factories())
@example(ring_example((">v", "^<")))
@example(ring_example((".v<", ">v^", ".>^")))
@example(ring_example(("S>v", ".^<"), {0: Source(Dir.E, 2, 1)}))
def test_each_tick_moves_what_the_item_by_item_walk_moves(seeded) -> None:
    scenario, belts = seeded
    arrays, items = Factory(scenario), Mutant(scenario)  # Mutant: the walk, with no slip
    for f in (arrays, items):
        for c, slots in belts.items():
            for s, item in enumerate(slots):
                f.place(c, s, item)
    for _ in range(scenario.ticks):
        for f in (arrays, items):
            f.tick += 1
            for pos, type_, period in f._sources:  # phase 1, as `Factory.step`
                if not f._hold[pos] and (f.tick - 1) % period == 0:
                    f._hold[pos] = type_
        assert np.flatnonzero(arrays._hold).tolist() == np.flatnonzero(items._hold).tolist()
        assert fates(arrays._move()) == items._move(), arrays.tick
        arrays._craft()
        items._craft()
        assert arrays.records() == items.records(), arrays.tick
