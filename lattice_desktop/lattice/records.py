"""State records (spec §8) as bytes, and the differences between two engines' records."""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from lattice_desktop.errors import Location, UserError
from lattice_desktop.lattice.checksum import COUNTED_KINDS, Kind, key_cell, key_kind

_PAIR = struct.Struct("<QQ")


class RecordsError(UserError):
    """Records returned by an engine's `lattice_records` that do not follow spec §8."""


def decode_records(data: bytes, *, source: str = "lattice_records") -> dict[int, int]:
    """Decode little-endian (u64 key, u64 value) pairs into {key: value}.

    Rejects a length that is not a whole number of pairs, duplicate keys, unknown kinds,
    and values that kind cannot have (flags are 1, counts are > 0).
    """
    if len(data) % _PAIR.size:
        raise RecordsError(
            f"{len(data)} bytes is not a whole number of 16-byte (key, value) records",
            Location(source),
        )
    records: dict[int, int] = {}
    for index, (key, value) in enumerate(_PAIR.iter_unpack(data)):
        where = Location(source, key=f"record {index} (key {key:#018x})")
        if key in records:
            raise RecordsError("duplicate key", where)
        kind = key_kind(key)
        if not Kind.BELT_ITEM <= kind <= Kind.ASSEMBLER_BUFFER:
            raise RecordsError(f"unknown record kind {kind}", where)
        if kind in COUNTED_KINDS and value == 0:
            raise RecordsError("a count record must have a value above 0", where)
        if kind not in COUNTED_KINDS and value != 1:
            raise RecordsError(f"a kind-{kind} record must have value 1, got {value}", where)
        records[key] = value
    return records


def encode_records(records: Mapping[int, int]) -> bytes:
    """The bytes `lattice_records` returns for these records (sorted by key)."""
    return b"".join(_PAIR.pack(k, v) for k, v in sorted(records.items()))


@dataclass(frozen=True)
class RecordDiff:
    """One record that differs: None on the side that lacks it."""

    key: int
    expected: int | None
    got: int | None

    @property
    def kind(self) -> int:
        return key_kind(self.key)

    @property
    def cell(self) -> int:
        return key_cell(self.key)


def diff_records(expected: Mapping[int, int], got: Mapping[int, int]) -> list[RecordDiff]:
    """Every record present on one side only or with different values, sorted by key."""
    return [
        RecordDiff(key, expected.get(key), got.get(key))
        for key in sorted(expected.keys() | got.keys())
        if expected.get(key) != got.get(key)
    ]


def differing_cells(diffs: Iterable[RecordDiff]) -> frozenset[int]:
    """The cells where two factories differ, for the viewer to mark."""
    return frozenset(d.cell for d in diffs)
