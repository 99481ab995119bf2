"""§8 records of a trusted engine to a drawable `FactoryState`, at the cost of a frame.

A 2048² factory's state is about a million records, nine in ten of them belt items. The
decoder splits the belt records off once (one pass over a byte per record) and lays them
into the slot grid with one scatter; everything else — sources, sinks, assemblers, a tenth
of the records — is decoded from that small remainder. The key's two 32-bit halves are
read in place instead of shifting 64-bit words, and the sinks' counts are kept as arrays
(`SinkTable`) rather than built into a dict of dicts in a Python loop, which alone cost
more than the engine's step. Measured in benchmarks/factory_scale.py.
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
    high = halves[:, 1]
    kind = (high >> 24).astype(np.uint8)
    belt = kind == 1

    slots = np.zeros(h * w * 4, np.uint8)
    low = halves[belt, 0]
    cell = (low >> 16) | ((high[belt] & 0xFF) << 16)
    slots[cell * 4 + ((low >> 8) & 3)] = (low & 0xFF).astype(np.uint8)

    rest = ~belt
    kind, low32, high32 = kind[rest], halves[rest, 0], high[rest]
    values = np.ascontiguousarray(pairs[rest, 1])
    cell = ((low32 >> 16) | ((high32 & 0xFF) << 16)).astype(np.int64)
    low16 = (low32 & 0xFFFF).astype(np.int64)

    source_buffer = np.zeros(h * w, np.uint8)
    held = kind == 2
    source_buffer[cell[held]] = (low16[held] & 0xFF).astype(np.uint8)
    sinks = kind == 3
    sink_counts = SinkTable(cell[sinks], low16[sinks] & 0xFF, values[sinks].astype(np.int64))
    assemblers = AssemblerTable.of(scenario, kind, cell, low16, values)
    return FactoryState(
        tick=tick,
        entity=entity,
        direction=direction,
        slots=slots.reshape(h, w, 4),
        source_buffer=source_buffer.reshape(h, w),
        sink_counts=sink_counts,  # type: ignore[arg-type]  # a read-only Mapping, as the dict is read
        assemblers=assemblers,
    ).drawable()
