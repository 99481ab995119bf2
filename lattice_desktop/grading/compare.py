"""Compare a submission's output with the expected answer and say where it first differs."""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

from lattice_desktop.formatting import short_hash
from lattice_desktop.manifest.case import Contract


@dataclass(frozen=True)
class Mismatch:
    """The first place the output differs: an element (snapshot) index, or a byte offset."""

    index: int
    expected: int | None
    got: int | None
    tick: int | None = None
    unit: str = "byte"

    def describe(self, *, short: bool = False) -> str:
        """One line; `short` abbreviates checksums to their first and last four digits."""
        if self.unit == "snapshot":
            # Snapshots are numbered from 1 for people (the first is taken at tick S).
            where = f"snapshot {self.index + 1}" + (f" · tick {self.tick}" if self.tick else "")
            hexed = short_hash if short else _hex
            return f"{where} · expected {hexed(self.expected)} · got {hexed(self.got)}"
        if self.unit == "result":
            return f"result {self.index}: expected {self.expected}, got {self.got}"
        return f"byte {self.index}: expected {_byte(self.expected)}, got {_byte(self.got)}"


def _hex(value: int | None) -> str:
    return "(none)" if value is None else f"{value:016x}"


def _byte(value: int | None) -> str:
    return "(end of output)" if value is None else f"0x{value:02x}"


def snapshot_interval(family: str | None, input_bytes: bytes) -> int | None:
    """Ticks between snapshots, for families whose output is one checksum per snapshot."""
    if family != "lattice-v1":
        return None
    match = re.search(rb"^[ \t]*snapshot[ \t]+(\d+)[ \t]*\r?$", input_bytes[:65536], re.M)
    return int(match.group(1)) if match else None


def compare(
    contract: Contract,
    output: bytes,
    expected: bytes,
    *,
    interval: int | None = None,
    size: int | None = None,
) -> tuple[bool, str, Mismatch | None]:
    """(equal?, a one-line reason when not, the first mismatch).

    `output` may be the first bytes of a longer answer whose full length is `size`.
    """
    size = len(output) if size is None else size
    if output == expected and size == len(output):
        return True, "", None
    if contract.abi == "scalar":
        got = struct.unpack(f"<{len(output) // 8}q", output)
        want = struct.unpack(f"<{len(expected) // 8}q", expected)
        for i, (a, b) in enumerate(zip(want, got, strict=False)):
            bits = 32 if contract.results[i] == "i32" else 64
            if (a - b) % (1 << bits):
                m = Mismatch(i, a, b, unit="result")
                return False, f"wrong answer: {m.describe()}", m
        return True, "", None
    if contract.output == "u64-list":
        if size % 8:
            return False, f"wrong answer: output is {size:,} bytes, not a list of u64", None
        # Past the expected length only the first extra checksum matters: never unpack a
        # huge wrong answer whole.
        kept = min(len(output), len(expected) + 8) // 8 * 8
        got = struct.unpack(f"<{kept // 8}Q", output[:kept])
        want = struct.unpack(f"<{len(expected) // 8}Q", expected)
        for i in range(max(len(got), len(want))):
            a = want[i] if i < len(want) else None
            b = got[i] if i < len(got) else None
            if a != b:
                tick = (i + 1) * interval if interval else None
                m = Mismatch(i, a, b, tick=tick, unit="snapshot")
                produced = size // 8
                count = "" if produced == len(want) else f" ({produced:,} checksums, expected {len(want):,})"
                return False, f"wrong answer: {m.describe()}{count}", m
    for i in range(max(len(output), len(expected))):
        a = expected[i] if i < len(expected) else None
        b = output[i] if i < len(output) else None
        if a != b:
            m = Mismatch(i, a, b)
            return False, f"wrong answer: {m.describe()}", m
    return True, "", None
