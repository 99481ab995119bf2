"""A scenario's snapshot checksums: the expected ones, the submission's, and where they
first part (plain numpy arrays, shown by the Factory tab's snapshot list and timeline)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Snapshots:
    """Checksums at ticks interval, 2·interval, …; `got` is None when nothing was returned."""

    interval: int
    expected: np.ndarray  # uint64
    got: np.ndarray | None  # uint64

    @classmethod
    def from_bytes(cls, interval: int, expected: bytes, got: bytes | None) -> Snapshots:
        def u64s(data: bytes) -> np.ndarray:
            return np.frombuffer(data[: len(data) // 8 * 8], "<u8").astype(np.uint64)

        return cls(interval, u64s(expected), None if got is None else u64s(got))

    def __len__(self) -> int:
        return max(len(self.expected), 0 if self.got is None else len(self.got))

    def tick(self, row: int) -> int:
        return (row + 1) * self.interval

    def row_of(self, tick: int) -> int | None:
        return tick // self.interval - 1 if tick % self.interval == 0 and tick > 0 else None

    def status(self) -> np.ndarray:
        """Per row: 1 match, 0 mismatch, -1 unknown (no output to compare)."""
        n = len(self)
        if self.got is None:
            return np.full(n, -1, np.int8)
        out = np.zeros(n, np.int8)
        common = min(len(self.expected), len(self.got))
        out[:common] = self.expected[:common] == self.got[:common]
        return out

    @property
    def first_divergence(self) -> int | None:
        if self.got is None:
            return None
        wrong = np.nonzero(self.status() == 0)[0]
        return int(wrong[0]) if len(wrong) else None

    def next_differing(self, after: int) -> int | None:
        """The first snapshot tick past `after` whose checksums differ (None: none known)."""
        status = self.status()
        for row in np.nonzero(status == 0)[0].tolist():
            if self.tick(row) > after:
                return self.tick(row)
        return None
