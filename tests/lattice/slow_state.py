"""The plain-loop decoder of spec §8 records into a `FactoryState`: the oracle that the
app's vectorised `state_from_records` and `check_records` are checked against."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from lattice_desktop.lattice.checksum import Kind, key_cell, key_kind
from lattice_desktop.lattice.rules import Factory
from lattice_desktop.lattice.view import FactoryState, _misplaced, _twice, layout
from lattice_desktop.lattice.world import Scenario


def state_of(factory: Factory) -> FactoryState:
    return slow_state(factory.scenario, factory.records(), tick=factory.tick)


def slow_state(scenario: Scenario, records: Mapping[int, int], *, tick: int) -> FactoryState:
    """Lay records over the scenario's grid one by one; `RecordsError` if one cannot be placed."""
    w, h = scenario.width, scenario.height
    entity, direction = layout(scenario)
    flat_entity = entity.reshape(-1)
    slots = np.zeros((h * w, 4), np.uint8)
    source_buffer = np.zeros(h * w, np.uint8)
    sink_counts: dict[int, dict[int, int]] = {}
    assemblers: dict[int, tuple[int, int, dict[int, int]]] = {c: (0, 0, {}) for c in scenario.assemblers}
    seen_assembler: set[int] = set()
    for key, value in records.items():
        kind, c, low = key_kind(key), key_cell(key), key & 0xFFFF
        problem = _misplaced(scenario, flat_entity, key)
        if problem is not None:
            raise problem
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
                    raise _twice(key)
                seen_assembler.add(c)
                remaining = low
            elif kind == Kind.ASSEMBLER_OUTPUT:
                output = low & 0xFF
            else:
                buffer = {**buffer, low & 0xFF: value}
            assemblers[c] = (remaining, output, buffer)
    return FactoryState(
        tick=tick,
        entity=entity,
        direction=direction,
        slots=slots.reshape(h, w, 4),
        source_buffer=source_buffer.reshape(h, w),
        sink_counts=sink_counts,
        assemblers=assemblers,
    )
