"""The Lattice checksum (spec §5) and its records (spec §8), in wrapping u64 arithmetic.

A record is a (key, value) pair; the checksum adds one term per record, so two engines'
records can be compared cell by cell and either can be turned back into a checksum.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import IntEnum

MASK64 = (1 << 64) - 1


class Kind(IntEnum):
    """The record kinds: the top byte of a record key."""

    BELT_ITEM = 1
    SOURCE_ITEM = 2
    SINK_COUNT = 3
    ASSEMBLER = 4
    ASSEMBLER_OUTPUT = 5
    ASSEMBLER_BUFFER = 6


COUNTED_KINDS = frozenset({Kind.SINK_COUNT, Kind.ASSEMBLER_BUFFER})  # value n > 0
FLAG_KINDS = frozenset(Kind) - COUNTED_KINDS  # value always 1


def mix(z: int) -> int:
    """The splitmix64 finaliser of spec §5."""
    z = (z + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def make_key(kind: Kind, cell: int, low: int) -> int:
    """kind<<56 | c<<16 | low, where low is slot<<8 | type, a type or a remaining time."""
    return (kind << 56) | (cell << 16) | low


def belt_item_key(cell: int, slot: int, type_: int) -> int:
    return make_key(Kind.BELT_ITEM, cell, (slot << 8) | type_)


def source_item_key(cell: int, type_: int) -> int:
    return make_key(Kind.SOURCE_ITEM, cell, type_)


def sink_count_key(cell: int, type_: int) -> int:
    return make_key(Kind.SINK_COUNT, cell, type_)


def assembler_key(cell: int, remaining: int) -> int:
    return make_key(Kind.ASSEMBLER, cell, remaining)


def assembler_output_key(cell: int, output: int) -> int:
    return make_key(Kind.ASSEMBLER_OUTPUT, cell, output)


def assembler_buffer_key(cell: int, type_: int) -> int:
    return make_key(Kind.ASSEMBLER_BUFFER, cell, type_)


def key_kind(key: int) -> int:
    return key >> 56


def key_cell(key: int) -> int:
    return (key >> 16) & 0xFF_FFFF


def key_low(key: int) -> int:
    return key & 0xFFFF


def term(key: int, value: int) -> int:
    """One record's contribution to acc: mix(key), or mix(mix(key) + n) for counts."""
    kind = key >> 56
    if kind == Kind.SINK_COUNT or kind == Kind.ASSEMBLER_BUFFER:
        return mix((mix(key) + value) & MASK64)
    if kind in FLAG_KINDS and value == 1:
        return mix(key)
    raise ValueError(f"record {key:#018x} = {value}: kind {kind} needs value 1")


def accumulate(terms: Iterable[int]) -> int:
    return sum(terms) & MASK64


def finish(acc: int, tick: int) -> int:
    """checksum(t) = mix(acc xor t)."""
    return mix(acc ^ tick)


def checksum_from_records(records: Mapping[int, int], tick: int) -> int:
    """The checksum of the state the records describe, after `tick`."""
    return finish(accumulate(term(k, v) for k, v in records.items()), tick)
