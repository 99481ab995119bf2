"""A census of one run: which rules a scenario exercises, and how often.

It runs the reference rules (`rules.Factory`) and counts as it goes: belts and turns,
side-load junctions and how often two or more of their contenders held an item at once,
rings that rotated and rings left jammed, sources whose items left, items absorbed by
sinks, crafts completed, items handed straight from one assembler to another, and item
moves per tick. A case author reads it to see that a stress case tests what it claims.

A rule is only tested where breaking it would change the state, so the census also counts,
for every rule, its *decisive* events: those where a slip of that rule would change the
state (`decisive.DECISIVE` names each rule's counter; this module counts head-on refusals
where the refused item would otherwise have moved, ticks a full ring of two or more item
types stood still or rotated, ticks a sink took items from two or more sides, offers of a
type an assembler's recipe does not use, and productions skipped while a source's buffer
was full that a queue would have made before the next due tick; `decisive.py` the rest).
Every rule is decisive in every stress case of the bundled case.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np

from lattice_desktop.lattice.decisive import DECISIVE, DecisiveFactory
from lattice_desktop.lattice.move_phase import MOVED
from lattice_desktop.lattice.rules import _ASSEMBLER, _BELT, _SINK
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.world import BELT_DIRS, Entity, Scenario
from lattice_desktop.sandbox.disk_cache import BoundedFolder
from lattice_desktop.work import Work


@dataclass(frozen=True)
class Census:
    """What a run of a scenario did. Counts are over all its ticks."""

    width: int
    height: int
    ticks: int
    belts: int
    turns: int  # belts handing items to a belt that faces another way
    junctions: int  # belts whose slot 0 has two or three contenders
    contested: int  # junction-ticks on which two or more contenders held an item
    rings: int  # closed loops of belts
    rotating_rings: int  # rings that rotated whole (full, every slot moving) at least once
    jammed_rings: int  # rings full and standing still at the end
    sources: int
    active_sources: int  # sources whose item left at least once
    sinks: int
    absorbed: int  # items sinks received
    assemblers: int
    crafts: int  # crafts completed (product made)
    handed_on: int  # items moved straight from an assembler's output into an assembler
    moves: int  # item moves of every kind
    head_on_refusals: int  # items refused by a head-on belt that would otherwise have moved
    jam_ticks: int  # ring-ticks on which a full ring of two or more types stood still
    multi_side_sink_ticks: int  # sink-ticks with items from two or more sides at once
    edge_exits: int  # item-ticks waiting at an exit that points off the grid
    unneeded_offers: int  # item-ticks offering an assembler a type its recipe does not use
    skipped_productions: int  # skipped productions a queue would have made before the next due tick
    # decisive events of the other rules (decisive.py)
    landings: int  # items entering a belt's slot 0 from another cell while its slot 1 stays empty
    side_loads: int  # items entering a belt's slot 0 from its left or right
    compressions: int  # belt-ticks an item moved up behind a slot 3 item that stayed
    chain_moves: int  # moves into a slot that was full at the start of the tick
    chain_crossings: int  # of those, moves from another cell into a belt's slot 0
    left_right: int  # junction-ticks the left contender moved while the right one held an item too
    rotations: int  # ring-ticks a full ring of two or more types rotated
    short_room: int  # assembler-ticks a type was offered more times than it had room (> 0) for
    refusals_before_takes: int  # assembler-ticks an offer was refused before one was taken
    waiting_outputs: int  # assembler-ticks a craft was ready while the product still waited
    wrapped_exits: int  # item-ticks at an east/west exit off the grid whose row-wrapped cell could take it

    @property
    def moves_per_tick(self) -> float:
        return self.moves / self.ticks if self.ticks else 0.0

    def rows(self) -> list[tuple[str, str]]:
        """(what, how much) pairs for a terminal or a details panel."""
        return [
            ("belts", f"{self.belts:,} ({self.turns:,} turns)"),
            ("side-load junctions", f"{self.junctions:,}, contenders competed {self.contested:,} times"),
            ("rings", f"{self.rings:,}: {self.rotating_rings:,} rotating, {self.jammed_rings:,} jammed"),
            ("sources", f"{self.sources:,} ({self.active_sources:,} active)"),
            ("sinks", f"{self.sinks:,}, {self.absorbed:,} items absorbed"),
            ("assemblers", f"{self.assemblers:,}, {self.crafts:,} crafts completed"),
            ("assembler to assembler", f"{self.handed_on:,} items passed"),
            ("items moved per tick", f"{self.moves_per_tick:,.0f}"),
            ("head-on refusals", f"{self.head_on_refusals:,} items held back"),
            ("jams", f"{self.jam_ticks:,} ring-ticks a full two-type ring stood still"),
            ("sinks fed from two sides", f"{self.multi_side_sink_ticks:,} sink-ticks"),
            ("exits off the grid", f"{self.edge_exits:,} item-ticks held"),
            ("unneeded types offered", f"{self.unneeded_offers:,} offers refused"),
            ("skipped productions", f"{self.skipped_productions:,} that a queue would have made"),
            ("landings", f"{self.landings:,} into slot 0 with slot 1 empty"),
            ("side-loads", f"{self.side_loads:,} items taken from the side"),
            ("compression", f"{self.compressions:,} belt-ticks closing up behind a stuck exit"),
            (
                "chained moves",
                f"{self.chain_moves:,} into slots emptied that tick ({self.chain_crossings:,} across belts)",
            ),
            ("left before right", f"{self.left_right:,} junction-ticks"),
            ("rotations", f"{self.rotations:,} ring-ticks a full two-type ring turned"),
            ("room short", f"{self.short_room:,} assembler-ticks"),
            ("refusal then take", f"{self.refusals_before_takes:,} assembler-ticks"),
            ("product waiting", f"{self.waiting_outputs:,} assembler-ticks a craft was ready"),
            ("wrapping exits", f"{self.wrapped_exits:,} item-ticks a row-wrapped cell could take"),
        ]


# The census fields that count each rule's decisive events, in the order of the rules.
DECISIVE_FIELDS = tuple(dict.fromkeys(DECISIVE.values()))


def positions(values: list[int] | list[tuple[int, int]]) -> np.ndarray:
    return np.array(values, np.int64)


class _CountingFactory(DecisiveFactory):
    """The reference rules, counting around phases 1, 2 and 3 (over arrays of positions:
    each count looks at every exit, junction or ring once a tick)."""

    def __init__(self, scenario: Scenario) -> None:
        super().__init__(scenario)
        self.junction_contenders = [c for c in self._contenders if len(c) >= 2]
        self.ring_positions = [tuple(h * 4 + s for h in ring for s in range(4)) for ring in self._rings()]
        self.contested = self.crafts = self.handed_on = self.moves = 0
        self.rotated: set[int] = set()
        self.jammed: set[int] = set()
        self.active: set[int] = set()
        self.head_on_refusals = self.jam_ticks = self.multi_side_sink_ticks = self.rotations = 0
        self.edge_exits = self.unneeded_offers = self.skipped_productions = 0
        self._wire_observers()

    def _wire_observers(self) -> None:
        """The positions whose items make a rule observable, as arrays."""
        s, w, h = self.scenario, self.scenario.width, self.scenario.height
        head_on: list[tuple[int, int]] = []  # (exit position, the head-on belt)
        off_grid: list[int] = []
        for hi, c in enumerate(self._cells):
            char = s.grid[c]
            d = BELT_DIRS[char] if char in BELT_DIRS else (s.sources.get(c) or s.assemblers[c]).dir
            x, y = c % w + d.dx, c // w + d.dy
            if not (0 <= x < w and 0 <= y < h):
                off_grid.append(hi * 4 + 3)
            elif s.grid[y * w + x] in BELT_DIRS and BELT_DIRS[s.grid[y * w + x]] == d.opposite():
                head_on.append((hi * 4 + 3, self._holder_of[y * w + x]))
        self.head_on_exit, head_on_belt = positions(head_on).reshape(-1, 2).T
        self.head_on_slot0 = head_on_belt * 4
        self.head_on_ranked = np.full((len(head_on), 3), self._nowhere, np.int64)  # its contenders
        for i, b in enumerate(head_on_belt.tolist()):
            self.head_on_ranked[i, : len(self._contenders[b])] = self._contenders[b]
        self.off_grid = positions(off_grid)
        exits = np.arange(len(self._cells)) * 4 + 3
        self.offers = exits[self._kind_of == _ASSEMBLER]
        self.offered = self._dest_of[self.offers >> 2]  # the assembler each offer goes to
        self.needs = np.zeros((len(self._asm_cells), 256), bool)  # assembler, type
        for a, caps in enumerate(self._asm_caps):
            self.needs[a, list(caps)] = True
        self.sink_exits = exits[self._kind_of == _SINK]
        self.source_exits = positions([pos for pos, _, _ in self._sources])
        self.source_period = positions([period for _, _, period in self._sources])
        self.owed = np.zeros(len(self._sources), bool)  # a production was skipped while full
        self.handing_exits = positions(
            [h * 4 + 3 for h in self._asm_holder if self._exit_kind[h] == _ASSEMBLER]
        )
        self.junctions = np.full((len(self.junction_contenders), 3), self._nowhere, np.int64)
        for j, ranked in enumerate(self.junction_contenders):
            self.junctions[j, : len(ranked)] = ranked
        self.ring_flat = positions([p for ring in self.ring_positions for p in ring])
        self.ring_starts = np.cumsum([0, *(len(ring) for ring in self.ring_positions[:-1])])
        self.ring_exits = positions([ring[3] for ring in self.ring_positions])

    def step(self) -> None:
        """Before phase 1: a due production is skipped when the buffer is full; count it
        when the buffer then empties before the next due tick."""
        t, hold = self.tick + 1, self._hold
        due = (t - 1) % self.source_period == 0
        full = hold[self.source_exits] != 0
        paid = ~due & self.owed & ~full  # empty before the next due tick
        self.skipped_productions += int(np.count_nonzero(paid))
        self.owed = np.where(due, full, self.owed & ~paid)
        super().step()

    def _rings(self) -> list[list[int]]:
        """Cycles of belts, each handing its items to the next."""
        succ = {
            h: self._exit_dest[h]
            for h in range(len(self._cells))
            if self._belt[h] and self._exit_kind[h] == _BELT
        }
        state: dict[int, int] = {}  # 1 on the current walk, 2 done
        rings = []
        for start in succ:
            walk, h = [], start
            while h in succ and h not in state:
                state[h] = 1
                walk.append(h)
                h = succ[h]
            if state.get(h) == 1:
                rings.append(walk[walk.index(h) :])
            for w in walk:
                state[w] = 2
        return rings

    def _move(self) -> np.ndarray:
        hold = self._hold
        count = np.count_nonzero
        self.contested += int(count((hold[self.junctions] != 0).sum(axis=1) >= 2))
        full = mixed = np.zeros(0, bool)
        if self.ring_positions:
            in_ring = hold[self.ring_flat]
            full = np.add.reduceat(in_ring == 0, self.ring_starts) == 0
            mixed = np.minimum.reduceat(in_ring, self.ring_starts) != np.maximum.reduceat(
                in_ring, self.ring_starts
            )  # two or more types
        holding = self.source_exits[hold[self.source_exits] != 0]
        handing = self.handing_exits[hold[self.handing_exits] != 0]
        # A head-on exit holding an item that no contender of the belt outranks.
        head_on = (hold[self.head_on_exit] != 0) & ~(hold[self.head_on_ranked] != 0).any(axis=1)
        facing = self.head_on_slot0[head_on]
        was_open = hold[facing] == 0
        self.edge_exits += int(count(hold[self.off_grid]))
        offered = hold[self.offers]
        self.unneeded_offers += int(count((offered != 0) & ~self.needs[self.offered, offered]))
        sinking = self.sink_exits[hold[self.sink_exits] != 0]
        fate = super()._move()
        self.head_on_refusals += int(count(was_open | (fate[facing] == MOVED)))
        fed = np.bincount(self._dest_of[sinking >> 2])
        self.multi_side_sink_ticks += int(count(fed >= 2))
        self.moves += int(count(fate == MOVED))
        self.active.update(holding[hold[holding] == 0].tolist())
        self.handed_on += int(count(hold[handing] == 0))
        rings = np.flatnonzero(full)
        moved = fate[self.ring_exits[rings]] == MOVED
        self.rotated.update(rings[moved].tolist())
        self.jammed = set(rings[~moved].tolist())
        self.jam_ticks += int(count(~moved & mixed[rings]))
        self.rotations += int(count(moved & mixed[rings]))
        return fate

    def _craft(self) -> None:
        self.crafts += self._remaining.count(1)
        super()._craft()


def census(scenario: Scenario, *, work: Work | None = None) -> Census:
    """Run `scenario` with the reference rules and count what happened, reporting the
    ticks done on `work` now and then; cancelling it raises `Cancelled`."""
    work = work or Work()
    factory = _CountingFactory(scenario)
    every = max(1, scenario.ticks // 100)
    while factory.tick < scenario.ticks:
        work.raise_if_cancelled()
        factory.step()
        if factory.tick % every == 0 or factory.tick == scenario.ticks:
            work.report(factory.tick / scenario.ticks, f"tick {factory.tick:,} of {scenario.ticks:,}")
    grid, w = scenario.grid, scenario.width
    belts = [c for c in range(scenario.cells) if grid[c] in BELT_DIRS]
    turns = 0
    for c in belts:
        d = BELT_DIRS[grid[c]]
        x, y = c % w + d.dx, c // w + d.dy
        if 0 <= x < w and 0 <= y < scenario.height:
            ahead = grid[y * w + x]
            turns += ahead in BELT_DIRS and BELT_DIRS[ahead] not in (d, d.opposite())
    sinks = [c for c in range(scenario.cells) if scenario.entity(c) == Entity.SINK]
    return Census(
        width=w,
        height=scenario.height,
        ticks=scenario.ticks,
        belts=len(belts),
        turns=turns,
        junctions=len(factory.junction_contenders),
        contested=factory.contested,
        rings=len(factory.ring_positions),
        rotating_rings=len(factory.rotated),
        jammed_rings=len(factory.jammed),
        sources=len(scenario.sources),
        active_sources=len(factory.active),
        sinks=len(sinks),
        absorbed=sum(sum(factory.sink_counts(c).values()) for c in sinks),
        assemblers=len(scenario.assemblers),
        crafts=factory.crafts,
        handed_on=factory.handed_on,
        moves=factory.moves,
        head_on_refusals=factory.head_on_refusals,
        jam_ticks=factory.jam_ticks,
        multi_side_sink_ticks=factory.multi_side_sink_ticks,
        edge_exits=factory.edge_exits,
        unneeded_offers=factory.unneeded_offers,
        skipped_productions=factory.skipped_productions,
        **{name: getattr(factory, name) for name in DECISIVE_FIELDS if name not in _OWN_DECISIVE},
    )


# The decisive counts this module keeps itself (the rest are decisive.py's).
_OWN_DECISIVE = (
    "head_on_refusals",
    "jam_ticks",
    "multi_side_sink_ticks",
    "unneeded_offers",
    "skipped_productions",
)


# --- kept on disk: a 512² census takes the reference rules about 12 s of CPU --------------

CENSUS_FILE = "census.json"  # beside a case's case.toml: the census of each of its scenarios
_FORMAT = 3  # 2: the observability counts; 3: every rule's decisive events


def scenario_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# Counted censuses (small JSON files), the least recently used evicted past the bound.
CENSUSES = BoundedFolder("census", max_bytes=64 * 1024 * 1024, max_files=8192)


def _read(path: Path) -> dict:
    try:
        return _parsed(path.read_bytes())
    except OSError:
        return {}


def _parsed(raw: bytes) -> dict:
    try:
        stored = json.loads(raw)
    except ValueError:
        return {}
    return stored if isinstance(stored, dict) and stored.get("format") == _FORMAT else {}


def _from_dict(values: object) -> Census | None:
    if not isinstance(values, dict):
        return None
    try:
        return Census(**{f.name: int(values[f.name]) for f in fields(Census)})
    except (KeyError, TypeError, ValueError):
        return None


def stored_census(data: bytes, *, case_dir: Path | None = None) -> Census | None:
    """The census of the scenario `data` if a case ships it or an earlier run cached it."""
    digest = scenario_digest(data)
    if case_dir is not None:
        found = _from_dict(_read(case_dir / CENSUS_FILE).get("scenarios", {}).get(digest))
        if found is not None:
            return found
    stored = CENSUSES.load(f"{digest}.json")
    return _from_dict(_parsed(stored).get("census")) if stored is not None else None


def census_of(
    data: bytes, scenario: Scenario, *, case_dir: Path | None = None, work: Work | None = None
) -> Census:
    """The stored census, else a fresh one, cached for next time (a damaged cache is redone)."""
    found = stored_census(data, case_dir=case_dir)
    if found is not None:
        return found
    result = census(scenario, work=work)
    # A full or read-only cache only costs the next open a recount.
    stored = json.dumps({"format": _FORMAT, "census": asdict(result)}).encode()
    CENSUSES.save(f"{scenario_digest(data)}.json", stored)
    return result


def write_case_census(
    case_dir: Path, scenarios: dict[str, bytes], progress: Callable[[str], None] | None = None
) -> Path:
    """Count each named scenario and write the case's census file (for `case_builder`)."""
    out = {}
    for name, data in scenarios.items():
        out[scenario_digest(data)] = {"name": name, **asdict(census(parse_scenario(data, source=name)))}
        if progress is not None:
            progress(name)
    path = case_dir / CENSUS_FILE
    text = json.dumps({"format": _FORMAT, "scenarios": out}, indent=1) + "\n"
    if not path.is_file() or path.read_text() != text:  # a rebuild of the same case touches nothing
        path.write_text(text)
    return path
