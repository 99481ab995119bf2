"""A flame graph of a profile's call graph, laid out without Qt: bars of fuel by depth.

The profile is per function and per call edge, not per calling context, so the graph is
built from the edges. The roots are the functions the host called, each as wide as its
fuel. Under a function, each callee is drawn as wide as the fuel of its calls from that
function (the edge's inclusive fuel), and what is left is the function's own. That is
exact for every bar whose path has no shared callee. Under a callee that several functions
call, its own callees are split in proportion to this caller's share of its fuel (such
bars are marked `exact=False`). A callee already on the path (recursion) is not drawn
again: its fuel is inside the outermost activation's bar, as inclusive fuel counts it.

The sandwich of one function is two such graphs: its callers merged, the function at the
bottom and each caller as wide as the fuel of its calls into it (exact one level up,
apportioned above that), and its callees below, rooted at the function's inclusive fuel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lattice_desktop.profile.model import HOST, EdgeStats, Profile

MAX_DEPTH = 64


@dataclass(frozen=True)
class Bar:
    depth: int
    start: float  # fuel from the left edge
    width: float  # fuel
    index: int
    name: str
    exact: bool
    path: tuple[str, ...] = ()  # the names from the root down to this bar, for matching runs

    @property
    def end(self) -> float:
        return self.start + self.width


Edges = Callable[[int], list[EdgeStats]]


def icicle(profile: Profile, *, min_width: float = 0.0, max_depth: int = MAX_DEPTH) -> list[Bar]:
    """The bars from the host down, parents before children; bars narrower than
    `min_width` fuel are left out."""
    inclusive = {f.index: f.inclusive for f in profile.functions}
    callees = {f.index: profile.callees(f.index) for f in profile.functions}
    layout = _Layout(profile, lambda i: callees.get(i, []), lambda e: e.callee, min_width, max_depth)
    at = 0.0
    for edge in sorted(profile.callees(HOST), key=lambda e: -e.inclusive):
        layout.place(edge.callee, at, float(edge.inclusive), 0, (), True, inclusive)
        at += edge.inclusive
    return layout.bars


@dataclass(frozen=True)
class Sandwich:
    """One function's callers (depth 0 is the function, each depth up one caller further
    away) and its callees (depth 0 is the function), on one scale: its inclusive fuel."""

    index: int
    callers: list[Bar]
    callees: list[Bar]


def sandwich(profile: Profile, index: int, *, max_depth: int = MAX_DEPTH) -> Sandwich:
    """The sandwich view of function `index`."""
    stats = profile.by_index().get(index)
    width = float(stats.inclusive if stats is not None else 0)
    into = {f.index: sum(e.inclusive for e in profile.callers(f.index)) for f in profile.functions}
    callers = _Layout(profile, profile.callers, lambda e: e.caller, 0.0, max_depth)
    callers.place(index, 0.0, width, 0, (), True, into)
    inclusive = {f.index: f.inclusive for f in profile.functions}
    callees = _Layout(profile, profile.callees, lambda e: e.callee, 0.0, max_depth)
    callees.place(index, 0.0, width, 0, (), True, inclusive)
    return Sandwich(index, callers.bars, callees.bars)


class _Layout:
    """Places a function's bar, then its neighbours' (callees, or callers) in the next row,
    each as wide as its edge's inclusive fuel scaled to the bar."""

    def __init__(
        self,
        profile: Profile,
        edges: Edges,
        other_end: Callable[[EdgeStats], int],
        min_width: float,
        max_depth: int,
    ) -> None:
        self.profile, self.edges, self.other_end = profile, edges, other_end
        self.min_width, self.max_depth = min_width, max_depth
        self.bars: list[Bar] = []

    def place(
        self,
        index: int,
        start: float,
        width: float,
        depth: int,
        path: tuple[str, ...],
        exact: bool,
        total_of: dict[int, int],
        on_path: frozenset[int] = frozenset(),
    ) -> None:
        if width <= self.min_width or width <= 0 or depth >= self.max_depth:
            return
        name = self.profile.name_of(index)
        here = (*path, name)
        self.bars.append(Bar(depth, start, width, index, name, exact, here))
        total = total_of.get(index, 0)
        scale = width / total if total else 0.0
        on_path = on_path | {index}
        children = [e for e in self.edges(index) if self.other_end(e) not in on_path and e.inclusive > 0]
        spent = sum(e.inclusive for e in children) * scale
        if spent > width:  # calls nested through recursion overlap: squeeze them in
            scale *= width / spent
        at = start
        for edge in children:
            child = edge.inclusive * scale
            end = self.other_end(edge)
            self.place(end, at, child, depth + 1, here, exact and scale == 1.0, total_of, on_path)
            at += child


@dataclass(frozen=True)
class Found:
    """What a search matched: the functions, and the fuel spent inside any of them (a
    match nested under another match counted once)."""

    indices: frozenset[int]
    fuel: float


def search(bars: list[Bar], text: str) -> Found:
    """The bars whose function name contains `text` (case-insensitive)."""
    needle = text.strip().casefold()
    if not needle:
        return Found(frozenset(), 0.0)
    matched = [b for b in bars if needle in b.name.casefold()]
    paths = {b.path for b in matched}
    outermost = [b for b in matched if not any(b.path[:i] in paths for i in range(1, len(b.path)))]
    return Found(frozenset(b.index for b in matched), sum(b.width for b in outermost))


def widths_by_path(bars: list[Bar]) -> dict[tuple[str, ...], float]:
    """Each bar's fuel keyed by its names from the root: how two runs' graphs are matched."""
    return {b.path: b.width for b in bars}


def ancestors(bars: list[Bar], bar: Bar) -> list[Bar]:
    """The bars above `bar` on its path, the root first (the breadcrumb back)."""
    by_path = {b.path: b for b in bars}
    return [by_path[bar.path[:i]] for i in range(1, len(bar.path)) if bar.path[:i] in by_path]
