"""An icicle chart of a profile's call graph, laid out without Qt: bars of fuel by depth.

The roots are the functions the host called, each as wide as its fuel. Under a function,
each callee is drawn as wide as the fuel of its calls from that function (the edge's
inclusive fuel), and what is left is the function's own. That is exact for every bar whose
path has no shared callee. Under a callee that several functions call, its own callees are
split in proportion to this caller's share of its fuel (such bars are marked `exact=False`).
A callee already on the path (recursion) is not drawn again: its fuel is inside the
outermost activation's bar, as inclusive fuel counts it.
"""

from __future__ import annotations

from dataclasses import dataclass

from lattice_desktop.profile.model import HOST, Profile

MAX_DEPTH = 32


@dataclass(frozen=True)
class Bar:
    depth: int
    start: float  # fuel from the left edge
    width: float  # fuel
    index: int
    name: str
    exact: bool


def icicle(profile: Profile, *, min_width: float = 0.0, max_depth: int = MAX_DEPTH) -> list[Bar]:
    """The bars, parents before children; bars narrower than `min_width` fuel are left out."""
    bars: list[Bar] = []
    inclusive = {f.index: f.inclusive for f in profile.functions}
    callees = {f.index: profile.callees(f.index) for f in profile.functions}

    def place(index: int, start: float, width: float, depth: int, path: frozenset[int], exact: bool) -> None:
        if width <= min_width or width <= 0 or depth >= max_depth:
            return
        bars.append(Bar(depth, start, width, index, profile.name_of(index), exact))
        total = inclusive.get(index, 0)
        scale = width / total if total else 0.0
        children = [e for e in callees.get(index, []) if e.callee not in path and e.inclusive > 0]
        spent = sum(e.inclusive for e in children) * scale
        if spent > width:  # calls nested through recursion overlap: squeeze them in
            scale *= width / spent
        at = start
        for edge in children:
            child = edge.inclusive * scale
            place(edge.callee, at, child, depth + 1, path | {edge.callee}, exact and scale == 1.0)
            at += child

    at = 0.0
    for edge in sorted(profile.callees(HOST), key=lambda e: -e.inclusive):
        place(edge.callee, at, float(edge.inclusive), 0, frozenset({edge.callee}), True)
        at += edge.inclusive
    return bars
