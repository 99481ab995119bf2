"""Where an instrumented module keeps its counters: per function, per call edge and per
counted stretch, named by a prefix the module does not use (`instrument`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from lattice_desktop.profile.source_lines import Place


@dataclass(frozen=True)
class Edge:
    caller: int
    callee: int


@dataclass(frozen=True)
class Site:
    """A counted stretch of one function: the fuel of one run of it, per operator offset
    (code-section-relative); or a per-byte operator whose counter holds the fuel it added."""

    function: int
    fuel: tuple[tuple[int, int], ...]


@dataclass
class Layout:
    """Where the counters are: export names, and what each function and edge is."""

    prefix: str
    functions: list[int]  # defined function indices, in order
    names: dict[int, str]  # readable name per function
    edges: list[Edge] = field(default_factory=list)
    start: int | None = None
    max_candidates: int = 0  # the most callees one call_indirect is checked against
    line_table: bool = False  # the module has DWARF lines: stretches are counted for them
    segments: list[Site] = field(default_factory=list)  # counter G<n>: runs of the stretch
    dynamic: list[Site] = field(default_factory=list)  # counter Y<n>: fuel added at run time
    entries: dict[int, int] = field(default_factory=dict)  # function → offset its entry is charged to
    places: dict[int, Place] = field(default_factory=dict)  # offset → source place

    def glob(self, kind: str, key: int) -> str:
        return f"{self.prefix}{kind}{key}"
