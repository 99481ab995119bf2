"""§8 records of a trusted engine to a drawable `FactoryState`, at the cost of a frame.

A 2048² factory's state is about a million records, nine in ten of them belt items. The
decoder scatters every record into the slot grid at once (the other kinds into a spare
byte), then decodes sources, sinks and assemblers from the tenth of the records left. The
key's two 32-bit halves are read in place instead of shifting 64-bit words, and the sinks'
counts stay arrays (`SinkTable`) instead of a dict of dicts built in a Python loop, which
alone cost more than the engine's step. Measured in benchmarks/factory_scale.py.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np

from lattice_desktop.lattice.assembler_table import AssemblerTable
from lattice_desktop.lattice.scenario import Scenario
from lattice_desktop.lattice.view import FactoryState


class SinkTable(Mapping[int, dict[int, int]]):
    """Every sink's counts at one tick, read like {sink cell: {type: count}}; a cell's dict
    is built only when asked for (a hover, a test's comparison)."""

    def __init__(self, cells: np.ndarray, types: np.ndarray, counts: np.ndarray) -> None:
        order = np.argsort(cells, kind="stable")
        self._cells, self._types, self._counts = cells[order], types[order], counts[order]
        self._unique = np.unique(self._cells)

    def __getitem__(self, c: int) -> dict[int, int]:
        lo, hi = np.searchsorted(self._cells, [c, c + 1]).tolist()
        if lo == hi:
            raise KeyError(c)
        return dict(zip(self._types[lo:hi].tolist(), self._counts[lo:hi].tolist(), strict=True))

    def __iter__(self) -> Iterator[int]:
        return iter(self._unique.tolist())

    def __len__(self) -> int:
        return len(self._unique)


def decode_state(
    scenario: Scenario, pairs: np.ndarray, *, tick: int, grid: tuple[np.ndarray, np.ndarray]
) -> FactoryState:
    """The state the (n, 2) u64 (key, value) records describe, with its sparse layers worked
    out (`FactoryState.drawable`). Records are not validated (see `checked_state`)."""
    w, h = scenario.width, scenario.height
    entity, direction = grid
    keys = np.ascontiguousarray(pairs[:, 0], dtype="<u8")
    halves = keys.view("<u4").reshape(-1, 2)  # [low 32 bits, high 32 bits] of each key
    low32, high32 = halves[:, 0], halves[:, 1]
    kind = (high32 >> 24).astype(np.uint8)
    cell32 = (low32 >> 16) | ((high32 & 0xFF) << 16)

    # Every record is scattered into the slots, the others into one spare byte at the end:
    # cheaper than picking the belt records out first.
    spare = h * w * 4
    slots = np.zeros(spare + 1, np.uint8)
    at = np.where(kind == 1, cell32 * 4 + ((low32 >> 8) & 3), spare)
    slots[at] = (low32 & 0xFF).astype(np.uint8)
    slots = slots[:spare]

    rows = np.flatnonzero(kind != 1)  # the tenth that is not a belt item
    kind, cell = kind[rows], cell32[rows].astype(np.int64)
    low16 = (low32[rows] & 0xFFFF).astype(np.int64)
    values = pairs[rows, 1]

    source_buffer = np.zeros(h * w, np.uint8)
    held = kind == 2
    source_buffer[cell[held]] = (low16[held] & 0xFF).astype(np.uint8)
    sinks = kind == 3
    sink_counts = SinkTable(cell[sinks], low16[sinks] & 0xFF, values[sinks].astype(np.int64))
    assemblers = AssemblerTable.of(scenario, kind, cell, low16, values)
    state = FactoryState(
        tick=tick,
        entity=entity,
        direction=direction,
        slots=slots.reshape(h, w, 4),
        source_buffer=source_buffer.reshape(h, w),
        sink_counts=sink_counts,  # type: ignore[arg-type]  # a read-only Mapping, as the dict is read
        assemblers=assemblers,
    )
    # The sources holding an item, from their few records rather than a pass over the grid
    # (the same cells `held_sources` would find: one record a source, type 0 is no item).
    state.__dict__["held_sources"] = np.unique(cell[held][(low16[held] & 0xFF) != 0])
    return state.drawable()
