"""Deliberately wrong variants of the Python reference engine: one rule slip each.

Each slip is a mistake an engine author could plausibly make while reading the spec.
`test_case_mutants.py` checks that the smoke test named after a rule fails the engine that
gets that rule wrong, so no smoke test is blind to its own behaviour. The variants reuse
`rules.Factory` and change as little as they can: the wiring of exits (§3, §4b, §4c) is
rebuilt here with the slip's geometry or ranking, and phase 2 is re-run with a hook for
the slips that change how moves are decided or applied.
"""

from __future__ import annotations

from collections.abc import Callable

from lattice_desktop.lattice.rules import _ASSEMBLER, _BELT, _NEVER, _SINK, Factory
from lattice_desktop.lattice.world import BELT_DIRS, Dir, Scenario

_STAYS, _MOVES, _ON_PATH = 0, 1, 2
_FREE, _BLOCKED = -1, -2


class Mutant(Factory):
    """The reference engine with its wiring and phase 2 open to one slip."""

    slip = ""  # what the variant gets wrong, in a sentence
    decisive = ""  # the census field counting the events where the slip changes the state
    # side-load ranking as offsets from a belt's direction: behind, left, right
    side_order: tuple[Callable[[Dir], Dir], ...] = (Dir.opposite, Dir.left, Dir.right)
    assembler_order = (Dir.N, Dir.E, Dir.S, Dir.W)
    opposite_accepted = False
    side_loads = True

    def __init__(self, scenario: Scenario) -> None:
        super().__init__(scenario)
        self._wire()
        # Positions that can hold an item, for the walk of phase 2.
        self._positions = [
            hi * 4 + s for hi in range(len(self._cells)) for s in (range(4) if self._belt[hi] else (3,))
        ]

    def neighbour(self, c: int, d: Dir) -> int:
        w, h = self.scenario.width, self.scenario.height
        x, y = c % w + d.dx, c // w + d.dy
        return y * w + x if 0 <= x < w and 0 <= y < h else -1

    def _direction(self, hi: int) -> Dir:
        c, s = self._cells[hi], self.scenario
        if s.grid[c] in BELT_DIRS:
            return BELT_DIRS[s.grid[c]]
        return (s.sources[c] if c in s.sources else s.assemblers[c]).dir

    def _wire(self) -> None:
        """§3 targets, §4c contenders and §4b offers, built with this variant's rules."""
        grid, holder_of = self.scenario.grid, self._holder_of
        n = len(self._cells)
        self._exit_kind, self._exit_dest = [_NEVER] * n, [-1] * n
        for hi, c in enumerate(self._cells):
            d = self._direction(hi)
            t = self.neighbour(c, d)
            if t < 0:
                continue
            if grid[t] in BELT_DIRS:
                if self.opposite_accepted or BELT_DIRS[grid[t]] != d.opposite():
                    self._exit_kind[hi], self._exit_dest[hi] = _BELT, holder_of[t]
            elif t in self._sink_of:
                self._exit_kind[hi], self._exit_dest[hi] = _SINK, self._sink_of[t]
            elif t in self._asm_of:
                self._exit_kind[hi], self._exit_dest[hi] = _ASSEMBLER, self._asm_of[t]
        self._contenders = [()] * n
        reaching: dict[int, list[int]] = {}  # belt -> the exits whose destination it is
        for o_hi in range(n):
            if self._exit_kind[o_hi] == _BELT:
                reaching.setdefault(self._exit_dest[o_hi], []).append(o_hi)
        for hi, c in enumerate(self._cells):
            if not self._belt[hi]:
                continue
            d = self._direction(hi)
            sides = [turn(d) for turn in self.side_order] if self.side_loads else [d.opposite()]
            if self.opposite_accepted:
                sides.append(d)  # the cell in front, ranked last
            ranked = []
            for side in sides:
                o = self.neighbour(c, side)
                if (
                    o in holder_of
                    and self._exit_kind[holder_of[o]] == _BELT
                    and self._exit_dest[holder_of[o]] == hi
                ):
                    ranked.append(holder_of[o] * 4 + 3)
            for o_hi in reaching.get(hi, ()):  # exits that reach this belt some other way are refused
                if o_hi * 4 + 3 not in ranked:
                    self._exit_kind[o_hi] = _NEVER
            self._contenders[hi] = tuple(ranked)
        self._asm_contenders = []
        for a, c in enumerate(self._asm_cells):
            ranked = []
            for side in self.assembler_order:
                o = self.neighbour(c, side)
                if (
                    o in holder_of
                    and self._exit_kind[holder_of[o]] == _ASSEMBLER
                    and self._exit_dest[holder_of[o]] == a
                ):
                    ranked.append(holder_of[o] * 4 + 3)
            self._asm_contenders.append(tuple(ranked))

    # --- phase 2 with hooks ----------------------------------------------------------------
    # The reference decides phase 2 over arrays (rules.Factory._successors); a slip is
    # easiest to write for one item, so the variants walk the items one by one.

    def _successor(self, pos: int, accepted: dict[int, set[int]]) -> int:
        """_FREE or _BLOCKED when the item at pos is decided alone; otherwise the position
        of the item in the full slot it is the candidate for, whose fate decides its own."""
        hold = self._hold
        if pos & 3 != 3:
            target = pos + 1  # §4c: slot s < 3 targets slot s + 1
        else:
            hi = pos >> 2
            kind = self._exit_kind[hi]
            if kind == _SINK:
                return _FREE  # §4a: a sink always accepts
            if kind == _ASSEMBLER:
                a = self._exit_dest[hi]
                if a not in accepted:
                    accepted[a] = self._accepted(a)
                return _FREE if pos in accepted[a] else _BLOCKED
            if kind == _NEVER:
                return _BLOCKED  # §3: empty, wall, source, outside, opposite belt
            dest = self._exit_dest[hi]
            # §4c: only the highest-ranked contender holding an item is the candidate.
            for contender in self._contenders[dest]:
                if hold[contender]:
                    break
            if contender != pos:
                return _BLOCKED
            target = dest * 4
        # §4d: a candidate moves exactly when its target slot is open.
        return target if hold[target] else _FREE

    def cycle_outcome(self, path: list[int]) -> int:
        """What a closed ring of full slots does: rotate (the greatest fixed point)."""
        return _MOVES

    def adjust(self, fate: dict[int, int]) -> None:
        """Change decided fates before they are applied (nothing, in the reference)."""

    def landing(self, dest: int) -> int:
        """The slot of belt holder `dest` an item handed on from another cell lands in."""
        return dest * 4

    def buffer_item(self, a: int, item: int) -> None:
        self._buffer[a][item] += 1

    def _move(self) -> dict[int, int]:  # type: ignore[override]
        hold = self._hold
        fate: dict[int, int] = {}
        accepted: dict[int, set[int]] = {}
        self.begin_phase2()
        for start in self._positions:
            if not hold[start] or start in fate:
                continue
            path, pos = [], start
            while True:
                fate[pos] = _ON_PATH
                path.append(pos)
                nxt = self._successor(pos, accepted)
                if nxt < 0:
                    outcome = _MOVES if nxt == _FREE else _STAYS
                    break
                seen = fate.get(nxt)
                if seen is None:
                    pos = nxt
                    continue
                outcome = self.cycle_outcome(path[path.index(nxt) :]) if seen == _ON_PATH else seen
                break
            for pos in path:
                fate[pos] = outcome
        self.adjust(fate)
        moving = [(pos, int(hold[pos])) for pos, f in fate.items() if f == _MOVES]
        for pos, _ in moving:
            hold[pos] = 0
        for pos, item in moving:
            if pos & 3 != 3:
                hold[pos + 1] = item
                continue
            kind, dest = self._exit_kind[pos >> 2], self._exit_dest[pos >> 2]
            if kind == _BELT:
                hold[self.landing(dest)] = item
            elif kind == _SINK:
                counts = self._sink_counts[dest]
                counts[item] = counts.get(item, 0) + 1
            else:
                self.buffer_item(dest, item)
        return fate

    def begin_phase2(self) -> None:
        """Reset any per-tick bookkeeping a variant keeps."""


class SlotOneLanding(Mutant):
    slip = "an item leaving slot 3 lands in slot 1 of the next belt when that slot is free"
    decisive = "landings"

    def landing(self, dest: int) -> int:
        return dest * 4 + 1 if not self._hold[dest * 4 + 1] else dest * 4


class NoSideLoads(Mutant):
    slip = "a belt takes items only from the cell behind it, never from the side"
    decisive = "side_loads"
    side_loads = False


class BeltMovesAsOne(Mutant):
    slip = "a belt whose slot 3 item is stuck moves none of its items (no compression)"
    decisive = "compressions"

    def _successor(self, pos: int, accepted: dict[int, set[int]]) -> int:
        front = pos | 3
        if pos & 3 != 3 and self._belt[pos >> 2] and self._hold[front]:
            return front
        return super()._successor(pos, accepted)


class SlotOpenOnlyIfEmpty(Mutant):
    slip = "a slot is open only when it was empty at the start of the tick (a train moves with gaps)"
    decisive = "chain_moves"

    def _successor(self, pos: int, accepted: dict[int, set[int]]) -> int:
        nxt = super()._successor(pos, accepted)
        return _BLOCKED if nxt >= 0 else nxt


class TrainsCutAtBeltEnds(Mutant):
    slip = "an item crosses into the next belt only when its slot 0 was empty at the start of the tick"
    decisive = "chain_crossings"

    def _successor(self, pos: int, accepted: dict[int, set[int]]) -> int:
        nxt = super()._successor(pos, accepted)
        return _BLOCKED if nxt >= 0 and pos & 3 == 3 else nxt


class RightBeforeLeft(Mutant):
    slip = "side-loads ranked behind, right, left (right before left)"
    decisive = "left_right"
    side_order = (Dir.opposite, Dir.right, Dir.left)


class OppositeAccepted(Mutant):
    slip = "a belt accepts from the cell in front of it (a head-on exit), ranked last"
    decisive = "head_on_refusals"
    opposite_accepted = True


class RingsNeverRotate(Mutant):
    slip = "a closed ring of full slots stands still (the least fixed point)"
    decisive = "rotations"

    def cycle_outcome(self, path: list[int]) -> int:
        return _STAYS


class FullRingsAlwaysRotate(Mutant):
    slip = "any closed loop of full belts rotates, even when a feeder outranks the ring"
    decisive = "jam_ticks"

    def __init__(self, scenario: Scenario) -> None:
        super().__init__(scenario)
        loops = []
        for start in range(len(self._exit_kind)):
            seen, h = [], start
            while self._belt[h] and self._exit_kind[h] == _BELT and h not in seen:
                seen.append(h)
                h = self._exit_dest[h]
            if h == start and seen:
                loops.append(tuple(sorted(seen)))
        self.loops = [[h * 4 + s for h in loop for s in range(4)] for loop in set(loops)]

    def adjust(self, fate: dict[int, int]) -> None:
        for loop in self.loops:
            if all(self._hold[p] for p in loop):
                for p in loop:
                    fate[p] = _MOVES


class QueuedProduction(Mutant):
    slip = "a production due while the buffer is full is made as soon as the buffer empties"
    decisive = "skipped_productions"

    def __init__(self, scenario: Scenario) -> None:
        super().__init__(scenario)
        self.owed = [False] * len(self._sources)

    def step(self) -> None:
        t = self.tick + 1
        for i, (pos, type_, period) in enumerate(self._sources):
            due = (t - 1) % period == 0
            if self._hold[pos] and due:
                self.owed[i] = True
            elif not self._hold[pos] and self.owed[i] and not due:
                self._hold[pos], self.owed[i] = type_, False
            elif due:
                self.owed[i] = False
        super().step()


class OneItemPerSink(Mutant):
    slip = "a sink takes one item per tick, from the first side that offers"
    decisive = "multi_side_sink_ticks"

    def begin_phase2(self) -> None:
        self.fed: set[int] = set()

    def _successor(self, pos: int, accepted: dict[int, set[int]]) -> int:
        hi = pos >> 2
        if pos & 3 == 3 and self._exit_kind[hi] == _SINK:
            if self._exit_dest[hi] in self.fed:
                return _BLOCKED
            self.fed.add(self._exit_dest[hi])
        return super()._successor(pos, accepted)


class CapacityIgnoresThisTick(Mutant):
    slip = "an assembler's room is judged on its buffer at the start of the tick only"
    decisive = "short_room"

    def _accepted(self, a: int) -> set[int]:
        caps, buffer = self._asm_caps[a], self._buffer[a]
        return {
            p
            for p in self._asm_contenders[a]
            if self._hold[p] in caps and buffer[self._hold[p]] < caps[self._hold[p]]
        }


class AssemblerWestFirst(Mutant):
    slip = "an assembler takes offers in the order W, S, E, N"
    decisive = "short_room"
    assembler_order = (Dir.W, Dir.S, Dir.E, Dir.N)


class AssemblerWestSecond(Mutant):
    slip = "an assembler takes offers in the order N, W, E, S"
    decisive = "short_room"
    assembler_order = (Dir.N, Dir.W, Dir.E, Dir.S)


class CraftWhileOutputWaits(Mutant):
    slip = "a craft starts while the previous product still waits in the output"
    decisive = "waiting_outputs"

    def _craft(self) -> None:
        hold = self._hold
        for a, hi in enumerate(self._asm_holder):
            out = hi * 4 + 3
            if self._remaining[a] > 0:
                self._remaining[a] -= 1
                if self._remaining[a] == 0:
                    hold[out] = self._asm_product[a]
            buffer = self._buffer[a]
            if self._remaining[a] == 0 and all(buffer[k] >= n for k, n in self._asm_inputs[a]):
                for k, n in self._asm_inputs[a]:
                    buffer[k] -= n
                self._remaining[a] = self._asm_time[a]


class EdgeWrapsByIndex(Mutant):
    slip = "an exit's target is cell c ± 1 / c ± W checked only against 0..W·H, so east and west exits wrap"
    decisive = "wrapped_exits"

    def neighbour(self, c: int, d: Dir) -> int:
        t = c + d.dx + d.dy * self.scenario.width
        return t if 0 <= t < self.scenario.cells else -1


class UnneededTypeTaken(Mutant):
    slip = "an assembler takes an offered type its recipe does not use (and keeps it)"
    decisive = "unneeded_offers"

    def _accepted(self, a: int) -> set[int]:
        caps = self._asm_caps[a]
        extra = {p for p in self._asm_contenders[a] if self._hold[p] and self._hold[p] not in caps}
        return super()._accepted(a) | extra

    def buffer_item(self, a: int, item: int) -> None:
        self._buffer[a][item] = self._buffer[a].get(item, 0) + 1


class RefusalEndsTheTick(Mutant):
    slip = "an assembler stops taking offers this tick at the first one it refuses"
    decisive = "refusals_before_takes"

    def _accepted(self, a: int) -> set[int]:
        caps, buffer = self._asm_caps[a], self._buffer[a]
        taken: dict[int, int] = {}
        accepted = set()
        for pos in self._asm_contenders[a]:
            k = self._hold[pos]
            if not k:
                continue
            if k not in caps or buffer[k] + taken.get(k, 0) >= caps[k]:
                break
            taken[k] = taken.get(k, 0) + 1
            accepted.add(pos)
        return accepted


class ClockPausesWhileFull(Mutant):
    slip = "a source's clock stops while its buffer is full: it counts its own empty ticks, not (t − 1) mod p"
    decisive = "skipped_productions"

    def __init__(self, scenario: Scenario) -> None:
        super().__init__(scenario)
        self.phase = [0] * len(self._sources)

    def step(self) -> None:
        sources, self._sources = self._sources, []  # phase 1 is this class's, not the base's
        for i, (pos, type_, period) in enumerate(sources):
            if self._hold[pos]:
                continue
            if self.phase[i] == 0:
                self._hold[pos] = type_
            self.phase[i] = (self.phase[i] + 1) % period
        try:
            super().step()
        finally:
            self._sources = sources


class EdgeWrapsAsTorus(Mutant):
    slip = "an exit off the grid comes back on the opposite edge, as on a torus"
    decisive = "wrapped_exits"

    def neighbour(self, c: int, d: Dir) -> int:
        w, h = self.scenario.width, self.scenario.height
        return (c // w + d.dy) % h * w + (c % w + d.dx) % w


# The smoke test that must catch each slip: the one named after the rule it breaks.
CAUGHT_BY: dict[str, tuple[type[Mutant], ...]] = {
    "straight_belt": (SlotOneLanding,),
    "turn": (NoSideLoads,),
    "compression_behind_blocked_exit": (BeltMovesAsOne,),
    "chained_movement": (SlotOpenOnlyIfEmpty, TrainsCutAtBeltEnds),
    "side_load_priority": (RightBeforeLeft,),
    "opposite_belt_refused": (OppositeAccepted,),
    "ring_rotation": (RingsNeverRotate,),
    "jammed_ring": (FullRingsAlwaysRotate,),
    "source_period_and_full_buffer": (QueuedProduction,),
    "sink_counting": (OneItemPerSink,),
    "assembler_capacity": (CapacityIgnoresThisTick,),
    "assembler_priority": (AssemblerWestFirst, AssemblerWestSecond),
    "crafting_timing": (CraftWhileOutputWaits,),
    "grid_edge": (EdgeWrapsByIndex,),
    "assembler_refuses_unneeded_type": (UnneededTypeTaken, RefusalEndsTheTick),
}

# Slips found after version 4 (issue 43: a mutation run of the reference, and a review), each
# caught by its rule's smoke test since version 5. They have no C switch in slip_engines/:
# the mutation run's declared mutants (casekit/mutants/lattice_subject.py) are their C form.
CAUGHT_SINCE_V5: dict[str, tuple[type[Mutant], ...]] = {
    "source_period_and_full_buffer": (ClockPausesWhileFull,),
    "grid_edge": (EdgeWrapsAsTorus,),
}
