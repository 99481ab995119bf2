"""The world of spec §1–§2: directions, entities, and a scenario as plain values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum
from types import MappingProxyType


class Dir(IntEnum):
    """Directions, clockwise from north; y grows south (spec §1)."""

    N = 0
    E = 1
    S = 2
    W = 3

    def left(self) -> Dir:
        """Turned counter-clockwise: left(E) = N, left(S) = E."""
        return _CLOCKWISE[(self + 3) % 4]

    def right(self) -> Dir:
        return _CLOCKWISE[(self + 1) % 4]

    def opposite(self) -> Dir:
        return _CLOCKWISE[(self + 2) % 4]

    @property
    def dx(self) -> int:
        return (0, 1, 0, -1)[self]

    @property
    def dy(self) -> int:
        return (-1, 0, 1, 0)[self]


_CLOCKWISE = tuple(Dir)  # looked up by value: a call of Dir(value) costs a microsecond


class Entity(IntEnum):
    """What occupies a cell; the values are the viewer's uint8 entity codes."""

    EMPTY = 0
    WALL = 1
    BELT = 2
    SOURCE = 3
    SINK = 4
    ASSEMBLER = 5


GRID_CHARS = b".#^>v<SKA"
BELT_DIRS: dict[int, Dir] = {ord("^"): Dir.N, ord(">"): Dir.E, ord("v"): Dir.S, ord("<"): Dir.W}
BELT_CHARS: dict[Dir, str] = {d: chr(c) for c, d in BELT_DIRS.items()}
CHAR_ENTITY: dict[int, Entity] = {
    ord("."): Entity.EMPTY,
    ord("#"): Entity.WALL,
    ord("S"): Entity.SOURCE,
    ord("K"): Entity.SINK,
    ord("A"): Entity.ASSEMBLER,
    **dict.fromkeys(BELT_DIRS, Entity.BELT),
}


@dataclass(frozen=True, slots=True)
class Recipe:
    product: int
    time: int
    inputs: tuple[tuple[int, int], ...]  # (type, count), distinct types, 1..4 of them


@dataclass(frozen=True, slots=True)
class Source:
    dir: Dir
    type: int
    period: int


@dataclass(frozen=True, slots=True)
class Assembler:
    dir: Dir
    recipe_id: int


def _frozen(mapping: Mapping | None = None) -> Mapping:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class Scenario:
    """A parsed scenario. `grid` holds the W·H grid characters row by row (cell c = y·W + x)."""

    width: int
    height: int
    ticks: int
    snapshot: int
    grid: bytes
    items: Mapping[int, str] = field(default_factory=_frozen)
    recipes: Mapping[int, Recipe] = field(default_factory=_frozen)
    sources: Mapping[int, Source] = field(default_factory=_frozen)
    assemblers: Mapping[int, Assembler] = field(default_factory=_frozen)
    comments: tuple[str, ...] = ()  # the text after '#' of each comment line before `grid`

    def __post_init__(self) -> None:
        for name in ("items", "recipes", "sources", "assemblers"):
            value = getattr(self, name)
            if not isinstance(value, MappingProxyType):
                object.__setattr__(self, name, _frozen(value))

    @property
    def cells(self) -> int:
        return self.width * self.height

    @property
    def snapshots(self) -> int:
        """How many checksums a run produces: floor(T / S)."""
        return self.ticks // self.snapshot

    @property
    def behaviour(self) -> str:
        """The first comment line: the one-sentence behaviour a smoke scenario isolates."""
        return self.comments[0].strip() if self.comments else ""

    def entity(self, cell: int) -> Entity:
        return CHAR_ENTITY[self.grid[cell]]

    def char(self, x: int, y: int) -> str:
        return chr(self.grid[y * self.width + x])
