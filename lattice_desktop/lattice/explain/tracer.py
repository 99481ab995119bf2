"""One tick of the reference rules from a given state, noting every decision a rule makes.

`trace_tick` seeds the reference engine (`rules.Factory`) with the state after tick t-1
(the records both engines agreed on) and runs tick t, recording for each rule of the spec
(named by its smoke test) the events where a slip of that rule would decide differently,
each with the cells it involves, and for every item its *successor*: the item whose fate
decided its own (§4d), or the reason it was decided alone. The diagnosis matches those
events against the cells where the submission's state differs.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from lattice_desktop.lattice.move_phase import fates
from lattice_desktop.lattice.rules import _BELT, _SINK, Factory
from lattice_desktop.lattice.world import BELT_DIRS, Scenario

# One event: (the cells it involves, the first being where it happens; what the spec did).
Event = tuple[tuple[int, ...], str]


@dataclass
class TickTrace:
    """What the reference decided at `tick`, from the state after tick - 1."""

    tick: int
    events: dict[str, list[Event]] = field(default_factory=dict)
    successor: dict[int, int] = field(default_factory=dict)  # position -> position or < 0
    position_cell: dict[int, int] = field(default_factory=dict)  # held position -> its cell
    exit_target: dict[int, int] = field(default_factory=dict)  # moved exit position -> target cell

    def add(self, rule: str, cells: tuple[int, ...], what: str) -> None:
        self.events.setdefault(rule, []).append((cells, what))


class TracingFactory(Factory):
    """The reference rules, seeded from records, noting each rule's decisions for one tick."""

    def __init__(self, scenario: Scenario) -> None:
        super().__init__(scenario)
        self.trace = TickTrace(0)
        w, h, grid, cells = scenario.width, scenario.height, scenario.grid, self._cells
        dirs = [
            int(
                BELT_DIRS[grid[c]]
                if grid[c] in BELT_DIRS
                else (scenario.sources.get(c) or scenario.assemblers[c]).dir
            )
            for c in cells
        ]
        dx, dy = (0, 1, 0, -1), (-1, 0, 1, 0)
        belt_dir = {code: int(d) for code, d in BELT_DIRS.items()}
        self._head_on: list[tuple[int, int]] = []  # (exit position, head-on belt holder)
        self._off_grid: list[tuple[int, tuple[int, ...]]] = []  # (exit position, (cell, row-wrapped cell?))
        for hi, c in enumerate(cells):
            d = dirs[hi]
            x, y = c % w + dx[d], c // w + dy[d]
            if 0 <= x < w and 0 <= y < h:
                if belt_dir.get(grid[y * w + x]) == (d + 2) % 4:
                    self._head_on.append((hi * 4 + 3, self._holder_of[y * w + x]))
            elif d in (1, 3) and 0 <= c + dx[d] < scenario.cells:
                self._off_grid.append((hi * 4 + 3, (c, c + dx[d])))
            else:
                self._off_grid.append((hi * 4 + 3, (c,)))
        # Slot-0 contenders by side: a feeder behind exits the way the belt faces, one on the
        # belt's left exits to the belt's right, one on its right to its left.
        side_of = {0: "behind", 1: "left", 3: "right"}
        self._side_feeders: set[int] = set()
        self._junctions: list[tuple[int, tuple[int, ...], tuple[str, ...]]] = []
        for hi, ranked in enumerate(self._contenders):
            if not ranked:
                continue
            sides = tuple(side_of.get((dirs[p >> 2] - dirs[hi]) % 4, "?") for p in ranked)
            self._side_feeders.update(p for p, side in zip(ranked, sides, strict=True) if side != "behind")
            if len(ranked) >= 2:
                self._junctions.append((hi, ranked, sides))
        self._rings = _rings(self)
        self._sink_cells = {i: c for c, i in self._sink_of.items()}

    # --- seeding ---------------------------------------------------------------------------

    def seed(self, pairs: np.ndarray, tick: int) -> None:
        """Set the state to these records (spec §8), as after `tick`."""
        hold, holder_of = self._hold, self._holder_of
        keys = pairs[:, 0].astype(np.uint64)
        kinds = (keys >> np.uint64(56)).tolist()
        cells = ((keys >> np.uint64(16)) & np.uint64(0xFFFFFF)).tolist()
        lows = (keys & np.uint64(0xFFFF)).tolist()
        for kind, c, low, value in zip(kinds, cells, lows, pairs[:, 1].tolist(), strict=True):
            if kind == 1:
                hold[holder_of[c] * 4 + (low >> 8)] = low & 0xFF
            elif kind in (2, 5):
                hold[holder_of[c] * 4 + 3] = low & 0xFF
            elif kind == 3:
                self._sink_counts[self._sink_of[c]][low & 0xFF] = value
            elif kind == 4:
                self._remaining[self._asm_of[c]] = low
            elif kind == 6:
                self._buffer[self._asm_of[c]][low & 0xFF] = value
        self.tick = tick

    # --- the tick, noted ---------------------------------------------------------------------

    def step(self) -> None:
        t = self.tick + 1
        self.trace = TickTrace(t)
        hold = self._hold
        for pos, _type, period in self._sources:
            c = self._cells[pos >> 2]
            hi = pos >> 2
            target = self._exit_target_cell(hi)
            due = (t - 1) % period == 0
            if hold[pos] and due:
                self.trace.add(
                    "source_period_and_full_buffer",
                    (c, *target),
                    "skips a due production: the buffer is full",
                )
            elif not hold[pos] and not due and period > 1:
                self.trace.add(
                    "source_period_and_full_buffer", (c, *target), "makes nothing: no production is due"
                )
            elif not hold[pos] and due and period > 1:
                self.trace.add(
                    "source_period_and_full_buffer", (c, *target), "makes an item: a production is due"
                )
        super().step()

    def _exit_target_cell(self, hi: int) -> tuple[int, ...]:
        """The cell the exit of holder `hi` hands its item to, if any (as a 0- or 1-tuple)."""
        kind, dest = self._exit_kind[hi], self._exit_dest[hi]
        if kind == _BELT:
            return (self._cells[dest],)
        if kind == _SINK:
            return (self._sink_cells[dest],)
        if dest >= 0:
            return (self._asm_cells[dest],)
        return ()

    def _offers(self) -> None:
        hold, cells, add = self._hold, self._cells, self.trace.add
        for a, ranked in enumerate(self._asm_contenders):
            held = [(p, hold[p]) for p in ranked if hold[p]]
            if not held:
                continue
            c = self._asm_cells[a]
            caps, buffer = self._asm_caps[a], self._buffer[a]
            offers: dict[int, int] = {}
            for _, k in held:
                offers[k] = offers.get(k, 0) + 1
            feeders = tuple(cells[p >> 2] for p, _ in held)
            for k, n in offers.items():
                if k in caps and caps[k] <= buffer[k]:
                    add(
                        "assembler_capacity",
                        (c, *feeders),
                        f"refuses {n} offer(s) of type {k}: no room (buffer at 2·count)",
                    )
                if k in caps and 0 < caps[k] - buffer[k] < n:
                    what = (
                        f"takes {caps[k] - buffer[k]} of {n} offers of type {k} "
                        "(room for no more), N, E, S, W first"
                    )
                    add("assembler_capacity", (c, *feeders), what)
                    add("assembler_priority", (c, *feeders), what)
            accepted = self._accepted(a)
            taken: dict[int, int] = {}
            for p, k in held:
                if p in accepted:
                    add(
                        "assembler_capacity",
                        (c, cells[p >> 2]),
                        f"takes the offer of type {k}: "
                        f"{buffer[k]} buffered + {taken.get(k, 0)} taken is below {caps[k]}",
                    )
                    taken[k] = taken.get(k, 0) + 1
            refused = False
            for p, k in held:
                if k not in caps:
                    add(
                        "assembler_refuses_unneeded_type",
                        (c, cells[p >> 2]),
                        f"refuses type {k}: the recipe does not use it",
                    )
                if p in accepted and refused:
                    add(
                        "assembler_refuses_unneeded_type",
                        (c, *feeders),
                        "takes an offer after refusing another",
                    )
                    break
                refused = refused or p not in accepted

    def _move(self) -> np.ndarray:
        hold, cells, add = self._hold, self._cells, self.trace.add
        self._offers()
        for p, where in self._off_grid:
            if hold[p]:
                add("grid_edge", where, "holds the item at an exit off the grid")
        contested = [
            (hi, [(p, side) for p, side in zip(ranked, sides, strict=True) if hold[p]])
            for hi, ranked, sides in self._junctions
        ]
        contested = [(hi, held) for hi, held in contested if len(held) >= 2]
        head_on = [
            (p, b) for p, b in self._head_on if hold[p] and not any(hold[c] for c in self._contenders[b])
        ]
        head_on = [(p, b) for p, b in head_on if not hold[b * 4]]
        full = [
            ring
            for ring in self._rings
            if all(hold[p] for p in ring[1]) and len({hold[p] for p in ring[1]}) > 1
        ]
        start = list(hold)
        decided = Factory._move(self)
        fate = fates(decided)
        trace = self.trace
        decided_at, successor = self.successors  # each exit's successor (§4d), as phase 2 found it
        exits = decided_at & 3 == 3
        trace.successor.update(zip(decided_at[exits].tolist(), successor[exits].tolist(), strict=True))
        for pos in fate:
            trace.position_cell[pos] = cells[pos >> 2]
        for hi, held in contested:
            (_, side), others = held[0], held[1:]
            what = f"ranks the {side} contender first, ahead of the {' and '.join(o for _, o in others)}"
            add("side_load_priority", (cells[hi], *(cells[p >> 2] for p, _ in held)), what)
        for p, b in head_on:
            add(
                "opposite_belt_refused",
                (cells[b], cells[p >> 2]),
                "refuses the item of the belt facing it head-on",
            )
        for ring_cells, positions in full:
            moved = fate.get(positions[0]) == 1
            rule = "ring_rotation" if moved else "jammed_ring"
            add(
                rule,
                ring_cells,
                "rotates the full ring as a whole" if moved else "holds the full ring still (jammed)",
            )
        compressed: set[int] = set()
        sink_feeds: dict[int, list[int]] = {}
        for pos, fated in fate.items():
            if not fated:
                continue
            hi = pos >> 2
            c = cells[hi]
            if pos & 3 != 3:
                if not start[pos + 1]:
                    add(
                        "straight_belt",
                        (c,),
                        f"moves slot {pos & 3}'s item one slot on, to slot {(pos & 3) + 1}",
                    )
                if pos + 1 in fate:
                    add(
                        "chained_movement",
                        (c,),
                        f"moves slot {pos & 3}'s item into slot {(pos & 3) + 1}, emptied this tick",
                    )
                if fate.get(pos | 3) == 0:
                    compressed.add(hi)
                continue
            kind, dest = self._exit_kind[hi], self._exit_dest[hi]
            if kind == _SINK:
                sink_feeds.setdefault(dest, []).append(c)
                trace.exit_target[pos] = self._sink_cells[dest]
                continue
            if kind != _BELT:
                trace.exit_target[pos] = self._asm_cells[dest]
                continue
            j = cells[dest]
            trace.exit_target[pos] = j
            slot0 = dest * 4
            if slot0 in fate:
                add("chained_movement", (j, c), "moves an item into slot 0, emptied this tick")
            if not start[slot0 + 1] and not hold[slot0 + 1]:
                add("straight_belt", (j, c), "lands the item in slot 0")
            if pos in self._side_feeders:
                add("turn", (j, c), "takes the item in from the side")
        for hi in compressed:
            add(
                "compression_behind_blocked_exit", (cells[hi],), "closes up the items behind the stuck slot 3"
            )
        for s, feeders in sink_feeds.items():
            for f in feeders:
                add("sink_counting", (self._sink_cells[s], f), "takes and counts the item")
            if len(feeders) > 1:
                add(
                    "sink_counting",
                    (self._sink_cells[s], *feeders),
                    f"counts {len(feeders)} items from {len(feeders)} sides",
                )
        return decided

    def _craft(self) -> None:
        hold = self._hold
        for a, hi in enumerate(self._asm_holder):
            remaining, output = self._remaining[a], hold[hi * 4 + 3]
            buffer = self._buffer[a]
            if remaining == 1:
                self.trace.add(
                    "crafting_timing", (self._asm_cells[a],), "delivers the product: remaining reaches 0"
                )
            elif remaining == 0 and not output and all(buffer[k] >= n for k, n in self._asm_inputs[a]):
                self.trace.add(
                    "crafting_timing", (self._asm_cells[a],), "starts a craft: idle, output empty, inputs in"
                )
            if remaining == 1:
                output = self._asm_product[a]
            if remaining <= 1 and output:
                buffer = self._buffer[a]
                if all(buffer[k] >= n for k, n in self._asm_inputs[a]):
                    self.trace.add(
                        "crafting_timing",
                        (self._asm_cells[a],),
                        "waits to start a craft: the product is still in the output",
                    )
        Factory._craft(self)


def _rings(factory: Factory) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """(cells, positions) of every closed loop of belts."""
    succ = {
        h: factory._exit_dest[h]
        for h in range(len(factory._cells))
        if factory._belt[h] and factory._exit_kind[h] == _BELT
    }
    state: dict[int, int] = {}
    rings = []
    for start in succ:
        walk, h = [], start
        while h in succ and h not in state:
            state[h] = 1
            walk.append(h)
            h = succ[h]
        if state.get(h) == 1:
            ring = walk[walk.index(h) :]
            rings.append(
                (tuple(factory._cells[r] for r in ring), tuple(r * 4 + s for r in ring for s in range(4)))
            )
        for w in walk:
            state[w] = 2
    return rings


_LOCK = threading.Lock()
_BUILT: dict[int, TracingFactory] = {}  # the last scenario's tables (seconds to build at 512²)


def prepare(scenario: Scenario) -> TracingFactory:
    """Build (or find) the tables of `scenario` for `trace_tick`: seconds at 512², so the
    diagnosis starts it while the engines search for the first wrong tick."""
    with _LOCK:
        factory = _BUILT.get(id(scenario))
        if factory is None or factory.scenario is not scenario:
            factory = TracingFactory(scenario)
            _BUILT.clear()
            _BUILT[id(scenario)] = factory
        return factory


def trace_tick(
    scenario: Scenario, before: np.ndarray, tick: int, factory: TracingFactory | None = None
) -> tuple[TickTrace, TracingFactory]:
    """The reference's decisions at `tick` from the records `before` (the state after tick - 1).
    `factory`: one made for this scenario; else the last one built for it is reused (one
    diagnosis at a time runs on it), or one is built."""
    factory = factory or prepare(scenario)
    with _LOCK:
        _reset(factory)
        factory.seed(before, tick - 1)
        factory.step()
        return factory.trace, factory


def _reset(factory: TracingFactory) -> None:
    factory._hold[:] = [0] * len(factory._hold)
    for counts in factory._sink_counts:
        counts.clear()
    factory._remaining[:] = [0] * len(factory._remaining)
    for buffer in factory._buffer:
        for k in list(buffer):
            buffer[k] = 0
