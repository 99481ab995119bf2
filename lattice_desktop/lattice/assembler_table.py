"""The assemblers of one factory state as arrays, read like the {cell: (remaining, output,
{type: count})} dict the Python rules give.

A 2048² factory holds tens of thousands of assemblers, and a state is made for every
frame shown while playing; building their dict in a Python loop cost a tenth of a second
a state. The table is made from the §8 records with numpy, the map reads its arrays, and
one cell's tuple is built only when asked for (a hover, a diff, a test's comparison).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np

from lattice_desktop.lattice.checksum import Kind
from lattice_desktop.lattice.scenario import Scenario

Held = tuple[int, int, dict[int, int]]  # remaining time, output item, {input type: count}


class AssemblerTable(Mapping[int, Held]):
    """Every assembler of a scenario, in grid order, with its state at one tick."""

    def __init__(
        self,
        cells: np.ndarray,
        remaining: np.ndarray,
        output: np.ndarray,
        buffers: tuple[np.ndarray, np.ndarray, np.ndarray],
    ) -> None:
        self.cells, self.remaining, self.output = cells, remaining, output
        # (cell, input type, count) of every buffer record, sorted by cell
        self._buffer_cells, self._buffer_types, self._buffer_counts = buffers

    @classmethod
    def idle(cls, cells: np.ndarray) -> AssemblerTable:
        """Assemblers at these cells (in grid order), none crafting, holding or offering anything."""
        none = np.zeros(0, np.int64)
        return cls(cells, np.zeros(len(cells), np.int64), np.zeros(len(cells), np.int64), (none, none, none))

    @classmethod
    def of(
        cls, scenario: Scenario, kind: np.ndarray, cell: np.ndarray, low: np.ndarray, values: np.ndarray
    ) -> AssemblerTable:
        """The table from decoded records (kind, cell, low 16 bits and value of each), as
        the slow decoder in tests/lattice/slow_state.py would lay them out; records naming no assembler of the
        scenario are left out (a trusted engine writes none)."""
        cells = np.sort(np.fromiter(scenario.assemblers, np.int64, len(scenario.assemblers)))
        n = len(cells)

        def placed(k: Kind) -> tuple[np.ndarray, np.ndarray]:
            rows = np.nonzero(kind == k)[0]
            if not n:
                return rows[:0], rows[:0]
            at = np.searchsorted(cells, cell[rows]).clip(0, n - 1)
            known = cells[at] == cell[rows]
            return at[known], rows[known]

        remaining, output = np.zeros(n, np.int64), np.zeros(n, np.int64)
        at, rows = placed(Kind.ASSEMBLER)
        remaining[at] = low[rows]
        at, rows = placed(Kind.ASSEMBLER_OUTPUT)
        output[at] = low[rows] & 0xFF
        at, rows = placed(Kind.ASSEMBLER_BUFFER)
        order = np.argsort(at, kind="stable")
        rows = rows[order]
        buffers = (cells[at[order]], low[rows] & 0xFF, values[rows])
        return cls(cells, remaining, output, buffers)

    def __getitem__(self, c: int) -> Held:
        i = int(np.searchsorted(self.cells, c))
        if i >= len(self.cells) or self.cells[i] != c:
            raise KeyError(c)
        lo, hi = np.searchsorted(self._buffer_cells, [c, c + 1]).tolist()
        types, counts = self._buffer_types[lo:hi].tolist(), self._buffer_counts[lo:hi].tolist()
        buffer = dict(zip(types, counts, strict=True))
        return int(self.remaining[i]), int(self.output[i]), buffer

    def __iter__(self) -> Iterator[int]:
        return iter(self.cells.tolist())

    def __len__(self) -> int:
        return len(self.cells)
