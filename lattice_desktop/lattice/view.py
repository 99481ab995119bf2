"""A drawable snapshot of a factory for the viewer: numpy arrays plus a few small dicts.

Built from spec §8 records, so the reference engine's state and any submission's
`lattice_records` output are drawn the same way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from lattice_desktop.errors import Location
from lattice_desktop.lattice.assembler_table import AssemblerTable, Held
from lattice_desktop.lattice.checksum import Kind, key_cell, key_kind
from lattice_desktop.lattice.records import RecordsError, key_cells
from lattice_desktop.lattice.world import BELT_DIRS, CHAR_ENTITY, Dir, Entity, Scenario

NO_DIR = 255  # direction code of cells without one (empty, wall, sink)


@dataclass(frozen=True)
class FactoryState:
    """The state after `tick`. Arrays are indexed [y, x]; dicts are keyed by cell index."""

    tick: int
    entity: np.ndarray  # (H, W) uint8 `Entity` codes
    direction: np.ndarray  # (H, W) uint8 `Dir` codes, NO_DIR where none
    slots: np.ndarray  # (H, W, 4) uint8 item per belt slot, 0 = empty
    source_buffer: np.ndarray  # (H, W) uint8 item in each source's buffer, 0 = empty
    sink_counts: dict[int, dict[int, int]]  # sink cell -> {type: count > 0}
    assemblers: Mapping[int, Held]  # cell -> (remaining, output, {k: b}); a dict or an AssemblerTable

    # The sparse things a frame paints, worked out once per state where the state is made
    # (`drawable`, on a worker): a 2048² frame then costs the GUI thread a pass over the
    # items, not over the grid's 4 million cells and a Python loop over its assemblers.

    @cached_property
    def items(self) -> tuple[np.ndarray, np.ndarray]:
        """(flat cells of the belts holding an item, the item nearest each one's exit)."""
        cells = np.flatnonzero(occupied(self.slots))
        return cells, lead_item(self.slots.reshape(-1, 4)[cells])

    @cached_property
    def held_sources(self) -> np.ndarray:
        """Flat cells of the sources holding an item in their buffer."""
        return np.flatnonzero(self.source_buffer)

    @cached_property
    def assembler_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(assembler cells in grid order, their remaining time, their output item)."""
        if isinstance(self.assemblers, AssemblerTable):
            return self.assemblers.cells, self.assemblers.remaining, self.assemblers.output
        cells = np.fromiter(sorted(self.assemblers), np.int64, len(self.assemblers))
        values = np.array([self.assemblers[c][:2] for c in cells.tolist()], np.int64).reshape(-1, 2)
        return cells, values[:, 0], values[:, 1]

    def drawable(self) -> FactoryState:
        """This state with `items`, `held_sources` and `assembler_arrays` worked out."""
        _ = self.items, self.held_sources, self.assembler_arrays
        return self


# The entity each record kind belongs on (spec §8).
NEEDS = {
    Kind.BELT_ITEM: Entity.BELT,
    Kind.SOURCE_ITEM: Entity.SOURCE,
    Kind.SINK_COUNT: Entity.SINK,
    Kind.ASSEMBLER: Entity.ASSEMBLER,
    Kind.ASSEMBLER_OUTPUT: Entity.ASSEMBLER,
    Kind.ASSEMBLER_BUFFER: Entity.ASSEMBLER,
}


def _misplaced(scenario: Scenario, flat_entity: np.ndarray, key: int) -> RecordsError | None:
    """Why one record cannot be placed on the grid (None: it can)."""
    w, h = scenario.width, scenario.height
    kind, c = key_kind(key), key_cell(key)
    where = Location("lattice_records", key=f"key {key:#018x}")
    if kind not in NEEDS:
        return RecordsError(f"unknown record kind {kind}", where)
    if c >= w * h or flat_entity[c] != NEEDS[Kind(kind)]:
        found = "off the grid" if c >= w * h else Entity(flat_entity[c]).name.lower()
        return RecordsError(f"a kind-{kind} record for cell ({c % w}, {c // w}), which is {found}", where)
    return None


def _twice(key: int) -> RecordsError:
    return RecordsError(
        "two remaining-time records for one assembler", Location("lattice_records", key=f"key {key:#018x}")
    )


def check_records(scenario: Scenario, pairs: np.ndarray, entity: np.ndarray | None = None) -> None:
    """Raise a `RecordsError` for the first (key, value) pair that names no cell of its kind,
    or a second timer for one assembler, without a Python loop over them: an untrusted
    engine's records are checked this way before the vectorised `state_from_records` draws
    them (which checks nothing)."""
    flat_entity = (entity if entity is not None else layout(scenario)[0]).reshape(-1)
    keys = pairs[:, 0].astype(np.uint64)
    kind = (keys >> np.uint64(56)).astype(np.int64)
    cell = key_cells(keys)
    needs = np.full(256, -2, np.int64)  # a kind that belongs nowhere
    for k, e in NEEDS.items():
        needs[k] = e
    on_grid = cell < flat_entity.size
    found = np.where(on_grid, flat_entity[np.where(on_grid, cell, 0)].astype(np.int64), -1)
    bad = found != needs[kind]
    timers = np.nonzero(kind == Kind.ASSEMBLER)[0]
    _, first = np.unique(cell[timers], return_index=True)
    repeated = np.ones(len(timers), bool)
    repeated[first] = False
    bad[timers[repeated]] = True
    wrong = np.nonzero(bad)[0]
    if len(wrong):
        key = int(keys[wrong[0]])
        raise _misplaced(scenario, flat_entity, key) or _twice(key)


def occupied(slots: np.ndarray) -> np.ndarray:
    """(H, W) bool: the belt holds an item in any of its four slots (read as one u32)."""
    if slots.dtype == np.uint8 and slots.shape[-1] == 4 and slots.flags.c_contiguous:
        return slots.view(np.uint32)[..., 0] != 0
    return (slots != 0).any(axis=-1)


def lead_item(slots: np.ndarray) -> np.ndarray:
    """Per belt, the item nearest its exit (slot 3 first), 0 when empty. The four slots
    are read as one little-endian u32 (slot 3 in the top byte) when they lie contiguous."""
    if slots.dtype != np.uint8 or slots.shape[-1] != 4 or not slots.flags.c_contiguous:
        lead = slots[..., 0].copy()
        for s in (1, 2, 3):
            lead = np.where(slots[..., s] != 0, slots[..., s], lead)
        return lead
    packed = slots.view("<u4")[..., 0]
    lead = packed >> 24
    for shift in (16, 8, 0):
        lead = np.where(lead != 0, lead, (packed >> shift) & 0xFF)
    return lead.astype(np.uint8)


def layout(scenario: Scenario) -> tuple[np.ndarray, np.ndarray]:
    """The (H, W) entity and direction codes of a scenario's grid."""
    grid = np.frombuffer(scenario.grid, np.uint8)
    entity_lut = np.zeros(256, np.uint8)
    direction_lut = np.full(256, NO_DIR, np.uint8)
    for char, code in CHAR_ENTITY.items():
        entity_lut[char] = code
    for char, d in BELT_DIRS.items():
        direction_lut[char] = d
    direction = direction_lut[grid]
    for c, s in scenario.sources.items():
        direction[c] = s.dir
    for c, a in scenario.assemblers.items():
        direction[c] = a.dir
    shape = (scenario.height, scenario.width)
    return entity_lut[grid].reshape(shape), direction.reshape(shape)


def describe_cell(scenario: Scenario, state: FactoryState, x: int, y: int) -> str:
    """Hover text for one cell: coordinates, entity, direction and what it holds."""
    if not (0 <= x < scenario.width and 0 <= y < scenario.height):
        return f"({x}, {y}): outside the grid"
    c = y * scenario.width + x
    entity = Entity(state.entity[y, x])
    head = f"({x}, {y}) cell {c}: {entity.name.lower()}"
    if state.direction[y, x] != NO_DIR:
        head += f" facing {Dir(state.direction[y, x]).name}"

    def item(t: int) -> str:
        name = scenario.items.get(t)
        return "-" if t == 0 else f"{name} ({t})" if name else f"item {t}"

    if entity == Entity.BELT:
        slots = ", ".join(f"{s}: {item(int(t))}" for s, t in enumerate(state.slots[y, x]))
        return f"{head}\nslots {slots}"
    if entity == Entity.SOURCE:
        s = scenario.sources[c]
        return (
            f"{head}\nmakes {item(s.type)} every {s.period} ticks"
            f"\nbuffer: {item(int(state.source_buffer[y, x]))}"
        )
    if entity == Entity.SINK:
        counts = state.sink_counts.get(c, {})
        text = ", ".join(f"{item(t)}: {n}" for t, n in sorted(counts.items())) or "nothing yet"
        return f"{head}\nreceived {text}"
    if entity == Entity.ASSEMBLER:
        recipe_id = scenario.assemblers[c].recipe_id
        recipe = scenario.recipes[recipe_id]
        remaining, output, buffer = state.assemblers.get(c, (0, 0, {}))
        inputs = ", ".join(f"{item(k)}: {buffer.get(k, 0)} ({n} per craft)" for k, n in recipe.inputs)
        timer = f"crafting, {remaining} of {recipe.time} ticks left" if remaining else "idle"
        return (
            f"{head}\nrecipe {recipe_id}: {item(recipe.product)} in {recipe.time} ticks"
            f"\nbuffer {inputs}\n{timer}; output: {item(output)}"
        )
    return head


def check_placement(scenario: Scenario, pairs: np.ndarray, *, source: str = "lattice_records") -> None:
    """Every record names a cell of its kind (a belt item a belt, …): `check_records`, its
    error located in `source`."""
    try:
        check_records(scenario, pairs)
    except RecordsError as exc:
        raise RecordsError(exc.message, dataclasses.replace(exc.location, file=source)) from None
