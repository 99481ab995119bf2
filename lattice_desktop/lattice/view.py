"""A drawable snapshot of a factory for the viewer: numpy arrays plus a few small dicts.

Built from spec §8 records, so the reference engine's state and any submission's
`lattice_records` output are drawn the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from lattice_desktop.errors import Location
from lattice_desktop.lattice.checksum import Kind, key_cell, key_kind
from lattice_desktop.lattice.records import RecordsError
from lattice_desktop.lattice.rules import Factory
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
    assemblers: dict[int, tuple[int, int, dict[int, int]]]  # cell -> (remaining, output, {k: b})

    @classmethod
    def from_factory(cls, factory: Factory) -> FactoryState:
        return cls.from_records(factory.scenario, factory.records(), tick=factory.tick)

    @classmethod
    def from_records(cls, scenario: Scenario, records: Mapping[int, int], *, tick: int) -> FactoryState:
        """Lay records over the scenario's grid; `RecordsError` if one cannot be placed."""
        w, h = scenario.width, scenario.height
        entity, direction = layout(scenario)
        flat_entity = entity.reshape(-1)
        slots = np.zeros((h * w, 4), np.uint8)
        source_buffer = np.zeros(h * w, np.uint8)
        sink_counts: dict[int, dict[int, int]] = {}
        assemblers: dict[int, tuple[int, int, dict[int, int]]] = {c: (0, 0, {}) for c in scenario.assemblers}
        needs = {
            Kind.BELT_ITEM: Entity.BELT,
            Kind.SOURCE_ITEM: Entity.SOURCE,
            Kind.SINK_COUNT: Entity.SINK,
            Kind.ASSEMBLER: Entity.ASSEMBLER,
            Kind.ASSEMBLER_OUTPUT: Entity.ASSEMBLER,
            Kind.ASSEMBLER_BUFFER: Entity.ASSEMBLER,
        }
        seen_assembler: set[int] = set()
        for key, value in records.items():
            kind, c, low = key_kind(key), key_cell(key), key & 0xFFFF
            where = Location("lattice_records", key=f"key {key:#018x}")
            if kind not in needs:
                raise RecordsError(f"unknown record kind {kind}", where)
            if c >= w * h or flat_entity[c] != needs[kind]:
                found = "off the grid" if c >= w * h else Entity(flat_entity[c]).name.lower()
                raise RecordsError(
                    f"a kind-{kind} record for cell ({c % w}, {c // w}), which is {found}",
                    where,
                )
            if kind == Kind.BELT_ITEM:
                slots[c, (low >> 8) & 3] = low & 0xFF
            elif kind == Kind.SOURCE_ITEM:
                source_buffer[c] = low & 0xFF
            elif kind == Kind.SINK_COUNT:
                sink_counts.setdefault(c, {})[low & 0xFF] = value
            else:
                remaining, output, buffer = assemblers[c]
                if kind == Kind.ASSEMBLER:
                    if c in seen_assembler:
                        raise RecordsError("two remaining-time records for one assembler", where)
                    seen_assembler.add(c)
                    remaining = low
                elif kind == Kind.ASSEMBLER_OUTPUT:
                    output = low & 0xFF
                else:
                    buffer = {**buffer, low & 0xFF: value}
                assemblers[c] = (remaining, output, buffer)
        return cls(
            tick=tick,
            entity=entity,
            direction=direction,
            slots=slots.reshape(h, w, 4),
            source_buffer=source_buffer.reshape(h, w),
            sink_counts=sink_counts,
            assemblers=assemblers,
        )


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
