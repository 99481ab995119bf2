"""Decisive events: the moments where a slip of one rule would change the state.

A rule is tested only where breaking it changes what happens, so a rule merely *present* in
a scenario (a junction, an assembler with two neighbours) proves nothing. For each rule this
counts the events where a plausible wrong reading of it takes a different decision than
the spec, worked out from the state at the start of the phase (the census, `census.py`,
adds them to what it counts; `DECISIVE` lists every rule's counter there). Each count is
kept tight: an event counted here is one where the wrong reading makes a different move.
"""

from __future__ import annotations

import numpy as np

from lattice_desktop.lattice.move_phase import EMPTY, MOVED, STAYED
from lattice_desktop.lattice.rules import _BELT, Factory
from lattice_desktop.lattice.world import BELT_DIRS, Dir, Scenario

# Each rule of the spec, by smoke test, and the census field that counts where a slip of it
# would change the state. Two rules share `short_room` (see `DecisiveFactory._offers`).
DECISIVE: dict[str, str] = {
    "straight_belt": "landings",
    "turn": "side_loads",
    "compression_behind_blocked_exit": "compressions",
    "chained_movement": "chain_moves",
    "chained_movement/belt ends": "chain_crossings",
    "side_load_priority": "left_right",
    "opposite_belt_refused": "head_on_refusals",
    "ring_rotation": "rotations",
    "jammed_ring": "jam_ticks",
    "source_period_and_full_buffer": "skipped_productions",
    "sink_counting": "multi_side_sink_ticks",
    "assembler_capacity": "short_room",
    "assembler_priority": "short_room",
    "crafting_timing": "waiting_outputs",
    "grid_edge": "wrapped_exits",
    "assembler_refuses_unneeded_type": "unneeded_offers",
    "assembler_refuses_unneeded_type/refusal": "refusals_before_takes",
}


class DecisiveFactory(Factory):
    """The reference rules, counting the decisive events of the rules this module owns."""

    def __init__(self, scenario: Scenario) -> None:
        super().__init__(scenario)
        self.landings = self.side_loads = self.compressions = 0
        self.chain_moves = self.chain_crossings = self.left_right = 0
        self.short_room = self.refusals_before_takes = self.waiting_outputs = self.wrapped_exits = 0
        self._side_feeder = np.zeros(len(self._hold), bool)  # per position
        self._left_right: list[tuple[int, int, int]] = []  # (behind or nowhere, left, right) exits
        self._wire_sides()
        self._behind, self._left, self._right = np.array(self._left_right, np.int64).reshape(-1, 3).T
        self._wrapped = self._wrapped_targets()

    def _wire_sides(self) -> None:
        """Which slot-0 contenders come from the side, and the junctions with both sides."""
        w, h = self.scenario.width, self.scenario.height
        for hi, ranked in enumerate(self._contenders):
            if not ranked:
                continue
            c, d = self._cells[hi], BELT_DIRS[self.scenario.grid[self._cells[hi]]]
            by_side = {}
            for side in (d.opposite(), d.left(), d.right()):
                x, y = c % w + side.dx, c // w + side.dy
                if 0 <= x < w and 0 <= y < h and y * w + x in self._holder_of:
                    pos = self._holder_of[y * w + x] * 4 + 3
                    if pos in ranked:
                        by_side[side] = pos
            self._side_feeder[[p for s, p in by_side.items() if s != d.opposite()]] = True
            if d.left() in by_side and d.right() in by_side:
                self._left_right.append(
                    (by_side.get(d.opposite(), self._nowhere), by_side[d.left()], by_side[d.right()])
                )

    def _wrapped_targets(self) -> list[tuple[int, int, Dir]]:
        """(exit position, cell, direction) of east and west exits off the grid, with the
        cell the exit would reach if it wrapped to the next or previous row by flat index."""
        s, w = self.scenario, self.scenario.width
        out: list[tuple[int, int, Dir]] = []
        for hi, c in enumerate(self._cells):
            char = s.grid[c]
            d = BELT_DIRS[char] if char in BELT_DIRS else (s.sources.get(c) or s.assemblers[c]).dir
            x = c % w + d.dx
            if d in (Dir.E, Dir.W) and not 0 <= x < w and 0 <= c + d.dx < s.cells:
                out.append((hi * 4 + 3, c + d.dx, d))
        return out

    def _would_take(self, cell: int, d: Dir, item: int) -> bool:
        """Whether `cell` could take `item` arriving in direction d (an open belt not facing
        back, a sink, an assembler that needs it), judged at the start of the tick."""
        char = self.scenario.grid[cell]
        if char in BELT_DIRS:
            return BELT_DIRS[char] != d.opposite() and not self._hold[self._holder_of[cell] * 4]
        if cell in self._sink_of:
            return True
        a = self._asm_of.get(cell)
        return a is not None and item in self._asm_caps[a] and self._buffer[a][item] < self._asm_caps[a][item]

    def _offers(self) -> None:
        """§4b slips: room judged on the buffer alone, or offers taken in another order, take
        different offers exactly when some type has room for fewer offers than it gets; an
        assembler that stops at its first refusal differs when a refusal precedes a take."""
        hold = self._hold
        for a, ranked in enumerate(self._asm_contenders):
            held = [(p, hold[p]) for p in ranked if hold[p]]
            if not held:
                continue
            caps, buffer = self._asm_caps[a], self._buffer[a]
            offers: dict[int, int] = {}
            for _, k in held:
                offers[k] = offers.get(k, 0) + 1
            self.short_room += any(k in caps and 0 < caps[k] - buffer[k] < n for k, n in offers.items())
            accepted = self._accepted(a)
            refused = False
            for p, _ in held:
                if p in accepted and refused:
                    self.refusals_before_takes += 1
                    break
                refused = refused or p not in accepted

    def _move(self) -> np.ndarray:
        hold = self._hold
        self._offers()
        self.wrapped_exits += sum(
            1 for p, cell, d in self._wrapped if hold[p] and self._would_take(cell, d, hold[p])
        )
        # Junctions where the left and the right contender hold an item and none is behind.
        both = (hold[self._left] != 0) & (hold[self._right] != 0) & (hold[self._behind] == 0)
        pairs = self._left[both]
        fate = super()._move()
        self.left_right += int(np.count_nonzero(fate[pairs] == MOVED))
        movers = np.flatnonzero(fate == MOVED)
        # Within a belt: a move into a slot that was full (a chain), and one behind a
        # slot 3 item that stayed (the belt compresses).
        inner = movers[movers & 3 != 3]
        chains = np.count_nonzero(fate[inner + 1] != EMPTY)
        self.compressions += np.unique(inner[fate[inner | 3] == STAYED] >> 2).size
        # Across belts: into a slot 0 that was full, into one whose slot 1 is empty after
        # the move, or from the side.
        exits = movers[movers & 3 == 3]
        exits = exits[self._kind_of[exits >> 2] == _BELT]
        slot0 = self._dest_of[exits >> 2] * 4
        crossings = np.count_nonzero(fate[slot0] != EMPTY)
        self.chain_moves += int(chains + crossings)
        self.chain_crossings += int(crossings)
        self.landings += int(np.count_nonzero(hold[slot0 + 1] == 0))
        self.side_loads += int(np.count_nonzero(self._side_feeder[exits]))
        return fate

    def _craft(self) -> None:
        """§4 phase 3 slip: a craft that would start while the product still waits."""
        hold = self._hold
        for a, hi in enumerate(self._asm_holder):
            remaining, output = self._remaining[a], hold[hi * 4 + 3]
            if remaining == 1:
                output = self._asm_product[a]
            if remaining <= 1 and output:
                buffer = self._buffer[a]
                self.waiting_outputs += all(buffer[k] >= n for k, n in self._asm_inputs[a])
        super()._craft()
