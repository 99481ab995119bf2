"""The reference engine: spec §3–§5 written in Python, to be read beside the spec.

State lives in flat arrays. Every cell that can hold items (belt, source, assembler) is a
*holder* h with four positions h*4 + s: a belt's slots 0..3 are its four positions; a
source's buffer and an assembler's output sit at position h*4 + 3, so every exit of
§3 is at a position ending in 3 and every item's next step is found the same way.
Phase 2 decides every held item at once with numpy (`_successors` here, the fixed point
in `move_phase.py`): a 512² factory holds half a million items.
"""

from __future__ import annotations

import numpy as np

from lattice_desktop.lattice.checksum import (
    assembler_buffer_key,
    assembler_key,
    assembler_output_key,
    belt_item_key,
    checksum_from_records,
    sink_count_key,
    source_item_key,
)
from lattice_desktop.lattice.move_phase import BLOCKED, FREE, MOVED, greatest_fixed_point
from lattice_desktop.lattice.world import BELT_DIRS, Dir, Entity, Scenario
from lattice_desktop.work import Work

# What an exit's target is (§3).
_NEVER, _SINK, _ASSEMBLER, _BELT = 0, 1, 2, 3


class Factory:
    """One run of a scenario, tick by tick (§4). `tick` is the last tick completed."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.tick = 0
        w, h, grid = scenario.width, scenario.height, scenario.grid

        def neighbour(c: int, d: Dir) -> int:
            x, y = c % w + d.dx, c // w + d.dy
            return y * w + x if 0 <= x < w and 0 <= y < h else -1

        # Holders, their cells and exit directions.
        self._cells: list[int] = []
        self._holder_of: dict[int, int] = {}
        holder_of = self._holder_of
        directions: list[Dir] = []
        for c in range(w * h):
            char = grid[c]
            if char in BELT_DIRS:
                d = BELT_DIRS[char]
            elif c in scenario.sources:
                d = scenario.sources[c].dir
            elif c in scenario.assemblers:
                d = scenario.assemblers[c].dir
            else:
                continue
            holder_of[c] = len(self._cells)
            self._cells.append(c)
            directions.append(d)
        n = len(self._cells)
        # Item type per position, 0 = empty; the last position, 4n, is no slot and stays
        # empty (tables pad with it).
        self._hold = np.zeros(4 * n + 1, np.uint8)
        self._nowhere = 4 * n
        self._belt = [grid[c] in BELT_DIRS for c in self._cells]

        self._sink_of: dict[int, int] = {}
        self._sink_counts: list[dict[int, int]] = []  # per sink: type -> count
        for c in range(w * h):
            if scenario.entity(c) == Entity.SINK:
                self._sink_of[c] = len(self._sink_counts)
                self._sink_counts.append({})

        # Assemblers: a, its holder, recipe, 2*count caps (§2 "needs") and state.
        self._asm_holder: list[int] = []
        self._asm_cells: list[int] = []
        self._asm_of: dict[int, int] = {}
        self._asm_inputs: list[tuple[tuple[int, int], ...]] = []
        self._asm_caps: list[dict[int, int]] = []
        self._asm_product: list[int] = []
        self._asm_time: list[int] = []
        self._remaining: list[int] = []
        self._buffer: list[dict[int, int]] = []
        for c, asm in scenario.assemblers.items():
            recipe = scenario.recipes[asm.recipe_id]
            self._asm_of[c] = len(self._asm_cells)
            self._asm_cells.append(c)
            self._asm_holder.append(holder_of[c])
            self._asm_inputs.append(recipe.inputs)
            self._asm_caps.append({k: 2 * count for k, count in recipe.inputs})
            self._asm_product.append(recipe.product)
            self._asm_time.append(recipe.time)
            self._remaining.append(0)
            self._buffer.append({k: 0 for k, _ in recipe.inputs})

        # §3: each exit's target.
        self._exit_kind = [_NEVER] * n
        self._exit_dest = [-1] * n  # target holder (belt), sink index or assembler index
        for hi, c in enumerate(self._cells):
            d = directions[hi]
            t = neighbour(c, d)
            if t < 0:
                continue  # outside the grid: never
            if grid[t] in BELT_DIRS:
                if BELT_DIRS[grid[t]] != d.opposite():  # a belt facing back never accepts
                    self._exit_kind[hi], self._exit_dest[hi] = _BELT, holder_of[t]
            elif t in self._sink_of:
                self._exit_kind[hi], self._exit_dest[hi] = _SINK, self._sink_of[t]
            elif t in self._asm_of:
                self._exit_kind[hi], self._exit_dest[hi] = _ASSEMBLER, self._asm_of[t]

        # §4c: slot-0 contenders of each belt, ranked behind > left > right.
        self._contenders: list[tuple[int, ...]] = [()] * n
        for hi, c in enumerate(self._cells):
            if not self._belt[hi]:
                continue
            d = directions[hi]
            ranked = []
            for side in (d.opposite(), d.left(), d.right()):
                feeder = holder_of.get(neighbour(c, side))
                if feeder is not None and self._exit_dest[feeder] == hi and self._exit_kind[feeder] == _BELT:
                    ranked.append(feeder * 4 + 3)
            self._contenders[hi] = tuple(ranked)

        # §4b: exits targeting each assembler, from its N, E, S, W neighbours in that order.
        self._asm_contenders: list[tuple[int, ...]] = []
        for a, c in enumerate(self._asm_cells):
            ranked = []
            for side in (Dir.N, Dir.E, Dir.S, Dir.W):
                o = neighbour(c, side)
                if o in holder_of:
                    ho = holder_of[o]
                    if self._exit_kind[ho] == _ASSEMBLER and self._exit_dest[ho] == a:
                        ranked.append(ho * 4 + 3)
            self._asm_contenders.append(tuple(ranked))

        self._sources = [(holder_of[c] * 4 + 3, s.type, s.period) for c, s in scenario.sources.items()]
        # The same wiring as arrays for phase 2: each holder's exit, and the (at most two)
        # slot-0 contenders ranked above its exit, padded with the empty position.
        self._kind_of = np.array(self._exit_kind, np.int8)
        self._dest_of = np.array(self._exit_dest, np.int32)
        above = np.full((2, n), self._nowhere, np.int32)
        for feeders in self._contenders:
            for rank, pos in enumerate(feeders):
                above[:rank, pos >> 2] = feeders[:rank]
        self._above_first, self._above_second = above
        self.successors = (np.zeros(0, np.int64), np.zeros(0, np.int64))  # the last phase 2's

    # --- one tick ------------------------------------------------------------------------

    def step(self) -> None:
        """Run one tick: phases 1–3 of §4 (phase 4, the snapshot, is `simulate`'s)."""
        t = self.tick + 1
        hold = self._hold
        # §4 phase 1: an empty source buffer gets an item when (t − 1) mod p = 0.
        for pos, type_, period in self._sources:
            if hold[pos] == 0 and (t - 1) % period == 0:
                hold[pos] = type_
        self._move()
        self._craft()
        self.tick = t

    def _accepted(self, a: int) -> set[int]:
        """§4b: the exit positions whose items assembler a accepts this tick."""
        hold, caps, buffer = self._hold, self._asm_caps[a], self._buffer[a]
        taken: dict[int, int] = {}
        accepted = set()
        for pos in self._asm_contenders[a]:  # N, E, S, W
            k = hold[pos]
            if k in caps and buffer[k] + taken.get(k, 0) < caps[k]:
                taken[k] = taken.get(k, 0) + 1
                accepted.add(pos)
        return accepted

    def _successors(self, held: np.ndarray) -> np.ndarray:
        """For each held position: FREE or BLOCKED when its item is decided alone; otherwise
        the position of the item in the full slot it is the candidate for, whose fate
        decides its own (§4d)."""
        hold = self._hold
        # §4c: an item in slot s < 3 targets slot s + 1 of its belt (exits are redone below).
        after = held + 1
        nxt = np.where(hold[after] != 0, after, FREE)
        exits = np.flatnonzero(held & 3 == 3)
        pos = held[exits]
        hi = pos >> 2
        kind, dest = self._kind_of[hi], self._dest_of[hi]
        out = np.full(pos.size, FREE, np.int64)  # §4a: a sink always accepts
        # §3: empty, wall, source, outside, opposite belt: never, the item stays.
        out[kind == _NEVER] = BLOCKED
        # §4b: an assembler takes the offers it accepts.
        offered = kind == _ASSEMBLER
        if offered.any():
            accepted: set[int] = set()
            for a in set(dest[offered].tolist()):
                accepted |= self._accepted(a)
            taken = np.isin(pos[offered], np.fromiter(accepted, np.int64, len(accepted)))
            out[offered] = np.where(taken, FREE, BLOCKED)
        # §4c: only the highest-ranked contender holding an item is the candidate: one
        # whose higher-ranked contenders are all empty. (Every exit onto a belt is one of
        # its contenders: the one cell left out, in front, faces it head-on, never.)
        onto = kind == _BELT
        h = hi[onto]
        candidate = (hold[self._above_first[h]] == 0) & (hold[self._above_second[h]] == 0)
        slot0 = dest[onto] * 4
        # §4d: a candidate moves exactly when its target slot is open.
        out[onto] = np.where(candidate, np.where(hold[slot0] != 0, slot0, FREE), BLOCKED)
        nxt[exits] = out
        return nxt

    def _move(self) -> np.ndarray:
        """§4 phase 2: decide every move as the greatest fixed point, then apply them all.
        Returns each position's fate (move_phase.EMPTY, MOVED or STAYED), for the census."""
        hold = self._hold
        held = np.flatnonzero(hold)
        nxt = self._successors(held)
        self.successors = (held, nxt)
        fate = greatest_fixed_point(held, nxt, len(hold))  # §4d

        # Apply all moves at once: empty every moving position, then fill the targets.
        movers = held[fate[held] == MOVED]
        items = hold[movers]
        hold[movers] = 0
        inner = movers & 3 != 3
        hold[movers[inner] + 1] = items[inner]
        exits, items = movers[~inner], items[~inner]
        kind, dest = self._kind_of[exits >> 2], self._dest_of[exits >> 2]
        onto = kind == _BELT
        hold[dest[onto] * 4] = items[onto]
        sunk = kind == _SINK  # end of phase: a sink counts what it received
        for s, item in zip(dest[sunk].tolist(), items[sunk].tolist(), strict=True):
            counts = self._sink_counts[s]
            counts[item] = counts.get(item, 0) + 1
        taken = kind == _ASSEMBLER  # end of phase: an assembler buffers what it accepted
        for a, item in zip(dest[taken].tolist(), items[taken].tolist(), strict=True):
            self._buffer[a][item] += 1
        return fate

    def _craft(self) -> None:
        """§4 phase 3: count down, deliver the product, start the next craft."""
        hold = self._hold
        for a, hi in enumerate(self._asm_holder):
            out = hi * 4 + 3
            if self._remaining[a] > 0:
                self._remaining[a] -= 1
                if self._remaining[a] == 0:
                    hold[out] = self._asm_product[a]
            buffer = self._buffer[a]
            if (
                self._remaining[a] == 0
                and hold[out] == 0
                and all(buffer[k] >= count for k, count in self._asm_inputs[a])
            ):
                for k, count in self._asm_inputs[a]:
                    buffer[k] -= count
                self._remaining[a] = self._asm_time[a]

    # --- reading and seeding the state ---------------------------------------------------

    def belt(self, cell: int) -> tuple[int, int, int, int]:
        """The items in slots 0..3 of the belt at `cell` (0 = empty)."""
        hi = self._holder(cell, "a belt", belt=True)
        a, b, c, d = self._hold[hi * 4 : hi * 4 + 4].tolist()
        return a, b, c, d

    def source_buffer(self, cell: int) -> int:
        """The item in the buffer of the source at `cell` (0 = empty)."""
        return int(self._hold[self._holder(cell, "a source", belt=False) * 4 + 3])

    def sink_counts(self, cell: int) -> dict[int, int]:
        """Items received by the sink at `cell`, per type."""
        return dict(self._sink_counts[self._sink_of[cell]])

    def assembler(self, cell: int) -> tuple[int, int, dict[int, int]]:
        """(remaining, output, buffer per input type) of the assembler at `cell`."""
        a = self._asm_of[cell]
        output = int(self._hold[self._asm_holder[a] * 4 + 3])
        return self._remaining[a], output, dict(self._buffer[a])

    def place(self, cell: int, slot: int, type_: int) -> None:
        """Put an item in slot 0..3 of a belt, for tests and tools that seed a state."""
        if not 0 <= slot < 4 or not 0 <= type_ <= 255:
            raise ValueError(f"slot {slot} / type {type_} out of range")
        self._hold[self._holder(cell, "a belt", belt=True) * 4 + slot] = type_

    def _holder(self, cell: int, what: str, *, belt: bool) -> int:
        hi = self._holder_of.get(cell)
        if hi is None or self._belt[hi] != belt or cell in self._asm_of:
            raise ValueError(f"cell {cell} is not {what}")
        return hi

    def run_to(self, tick: int) -> None:
        """Step until `tick` ticks have run."""
        if tick < self.tick:
            raise ValueError(f"cannot run back from tick {self.tick} to {tick}")
        while self.tick < tick:
            self.step()

    def records(self) -> dict[int, int]:
        """The state as spec §8 records: key -> value."""
        out: dict[int, int] = {}
        hold = self._hold.tolist()
        asm_holders = set(self._asm_holder)
        for hi, c in enumerate(self._cells):
            if self._belt[hi]:
                for s in range(4):
                    if hold[hi * 4 + s]:
                        out[belt_item_key(c, s, hold[hi * 4 + s])] = 1
            elif hi not in asm_holders and hold[hi * 4 + 3]:
                out[source_item_key(c, hold[hi * 4 + 3])] = 1
        for c, si in self._sink_of.items():
            for type_, n in self._sink_counts[si].items():
                out[sink_count_key(c, type_)] = n
        for a, c in enumerate(self._asm_cells):
            out[assembler_key(c, self._remaining[a])] = 1
            output = hold[self._asm_holder[a] * 4 + 3]
            if output:
                out[assembler_output_key(c, output)] = 1
            for k, b in self._buffer[a].items():
                if b:
                    out[assembler_buffer_key(c, k)] = b
        return out

    def checksum(self) -> int:
        """§5: the checksum of the current state after tick `self.tick`."""
        return checksum_from_records(self.records(), self.tick)


CANCEL_EVERY = 256  # ticks between checks for cancel in `simulate`


def simulate(scenario: Scenario, *, work: Work | None = None) -> list[int]:
    """Run the whole scenario and return its floor(T / S) snapshot checksums (§4 phase 4).

    `work` is told the share of ticks done after each snapshot, and checked for cancel every
    `CANCEL_EVERY` ticks (a snapshot may be a million ticks apart).
    """
    factory = Factory(scenario)
    out = []
    for _ in range(scenario.snapshots):
        target = factory.tick + scenario.snapshot
        while factory.tick < target:
            factory.run_to(min(target, factory.tick + CANCEL_EVERY))
            if work is not None:
                work.raise_if_cancelled()
        out.append(factory.checksum())
        if work is not None:
            work.report(factory.tick / max(1, scenario.ticks), f"tick {factory.tick:,}")
    return out
