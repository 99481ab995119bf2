"""A profile in the formats profilers open: callgrind (KCachegrind, QCachegrind, gprof2dot)
and speedscope's JSON, the latter only where it can be exact."""

from __future__ import annotations

import json
from collections.abc import Callable

from lattice_desktop.profile.model import HOST, Profile

EVENT = "Fuel"
MIN_SHARE = 1e-5  # an approximate flame graph leaves out paths under this share
MAX_STACK = 64


def callgrind(
    profile: Profile, *, module_label: str = "module.wasm", source_path: Callable[[str], str] = str
) -> str:
    """The profile as a callgrind file: one `fn=` block per function with its self fuel
    (per source line, under real `fl=`/`fi=` files, when the module has a line table), and
    one call record per edge with its calls and inclusive fuel. Calls from the host are the
    roots; they have no caller block. Calls are counted per caller, not per call site, so
    their cost sits at line 0. `source_path` turns a line table's file into the path
    written (where KCachegrind finds the source)."""
    lines = [
        "# callgrind format",
        "version: 1",
        "creator: lattice-desktop profile",
        f"cmd: {_clean(profile.case_name)} ({profile.module_sha256[:12]})",
        "positions: line",
        f"events: {EVENT}",
        f"summary: {profile.total}",
        f"totals: {profile.total}",
    ]
    files = _Names()
    ids = {f.index: n for n, f in enumerate(profile.functions, start=1)}
    home = {f.index: _home_file(profile, f.index) for f in profile.functions}
    path = {name: _clean(source_path(name)) if name else _clean(module_label) for name in set(home.values())}
    by_index = profile.by_index()
    for f in profile.functions:
        if not f.calls:
            continue
        main = path[home[f.index]]
        lines += ["", files.spec("fl", main), f"fn=({ids[f.index]}) {_clean(f.name)}"]
        lines += _cost_lines(profile, f.index, f.self_fuel, main, files, source_path)
        for edge in profile.callees(f.index):
            callee = by_index[edge.callee]
            lines += [
                files.spec("cfl", path[home[edge.callee]]),
                f"cfn=({ids[edge.callee]}) {_clean(callee.name)}",
                f"calls={edge.calls} 0",
                f"0 {edge.inclusive}",
            ]
    if profile.unattributed:
        lines += ["", files.spec("fl", _clean(module_label))]
        lines += [f"fn=({len(ids) + 1}) (cut short by a trap)", f"0 {profile.unattributed}"]
    return "\n".join(lines) + "\n"


class _Names:
    """Callgrind's name compression: a file's name is written once, then its number."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def spec(self, key: str, name: str) -> str:
        if name in self.ids:
            return f"{key}=({self.ids[name]})"
        self.ids[name] = len(self.ids) + 1
        return f"{key}=({self.ids[name]}) {name}"


def _home_file(profile: Profile, index: int) -> str:
    """The file a function is filed under: where most of its fuel is ("" without lines)."""
    per: dict[str, int] = {}
    for s in profile.lines_of(index):
        per[s.file] = per.get(s.file, 0) + s.fuel
    return min(per, key=lambda name: (-per[name], name)) if per else ""


def _cost_lines(
    profile: Profile, index: int, self_fuel: int, main: str, files: _Names, source_path: Callable[[str], str]
) -> list[str]:
    """A function's self fuel per line: its home file's lines, then each inlined file's
    under `fi=`, then `fe=` back home for the call records."""
    own = profile.lines_of(index)
    if not own:
        return [f"0 {self_fuel}"]
    out: list[str] = []
    current = main
    for s in sorted(own, key=lambda s: (_clean(source_path(s.file)) != main, s.file, s.line)):
        name = _clean(source_path(s.file))
        if name != current:
            out.append(files.spec("fi" if name != main else "fe", name))
            current = name
        out.append(f"{s.line} {s.fuel}")
    if current != main:
        out.append(files.spec("fe", main))
    return out


def speedscope_problem(profile: Profile) -> str | None:
    """Why the profile cannot be one exact flame graph, or None when it can: every function
    that ran must be reached along one call path (direct recursion is folded into its frame)."""
    for f in profile.functions:
        if not f.calls:
            continue
        callers = {e.caller for e in profile.callers(f.index) if e.caller != f.index}
        if len(callers) > 1:
            names = ", ".join(sorted(profile.name_of(c) for c in callers))
            return (
                f"{f.name} is called from {len(callers)} places ({names}): its fuel per path is not counted"
            )
    if _path_cycle(profile):
        return "functions call each other recursively: a call path has no end"
    return None


def speedscope(profile: Profile, *, name: str, approximate: bool = False) -> str:
    """The profile as a speedscope 'sampled' file: one stack per call path, weighted by its
    self fuel. Where that would not be exact (`speedscope_problem`) it raises ValueError,
    unless `approximate`: then a shared function's fuel is split between its callers in
    proportion to the fuel of their calls, and the file says so in its name."""
    problem = speedscope_problem(profile)
    if problem is not None and not approximate:
        raise ValueError(problem)
    order = [f for f in profile.functions if f.calls]
    frame_of = {f.index: n for n, f in enumerate(order)}
    stacks = _exact_stacks(profile) if problem is None else _apportioned_stacks(profile)
    samples = [[frame_of[i] for i in stack if i in frame_of] for stack, _ in stacks]
    weights = [weight for _, weight in stacks]
    title = name if problem is None else f"{name} (APPROXIMATE: {problem}; split in proportion)"
    document = {
        "$schema": "https://www.speedscope.app/file-format-schema.json",
        "shared": {"frames": [{"name": f.name} for f in order]},
        "profiles": [
            {
                "type": "sampled",
                "name": title,
                "unit": "none",
                "startValue": 0,
                "endValue": sum(weights),
                "samples": samples,
                "weights": weights,
            }
        ],
        "name": title,
        "exporter": "lattice-desktop profile" + ("" if problem is None else " (approximate flame graph)"),
    }
    return json.dumps(document, indent=1)


def call_stacks(profile: Profile) -> tuple[list[tuple[list[int], float]], str | None]:
    """The call stacks (function indices, outermost first) with the self fuel of each, as
    the flame graph draws them: exact where `speedscope_problem` is None (returned second),
    else split in proportion to the fuel of the calls."""
    problem = speedscope_problem(profile)
    return (_exact_stacks(profile) if problem is None else _apportioned_stacks(profile)), problem


def _exact_stacks(profile: Profile) -> list[tuple[list[int], float]]:
    """A call tree's stacks: each function under its one caller, weighted by its self fuel."""
    parent = {
        e.callee: e.caller
        for f in profile.functions
        for e in profile.callers(f.index)
        if e.caller != e.callee
    }
    stacks: list[tuple[list[int], float]] = []
    for f in profile.functions:
        if not f.calls:
            continue
        stack, at = [], f.index
        while at != HOST:
            stack.append(at)
            at = parent.get(at, HOST)
        stacks.append((stack[::-1], f.self_fuel))
    return stacks


def _apportioned_stacks(profile: Profile) -> list[tuple[list[int], float]]:
    """Stacks from the host down, each callee's share of a path's fuel in proportion to the
    fuel of its calls from that caller (a function already on the path is not entered
    again: recursion is inside the outermost frame). Paths under MIN_SHARE of the total
    stay in their caller's frame, so the file stays small whatever the graph's shape."""
    by_index = profile.by_index()
    floor = MIN_SHARE * profile.attributed
    stacks: list[tuple[list[int], float]] = []

    def walk(path: list[int], fuel: float) -> None:
        index = path[-1]
        inclusive = by_index[index].inclusive
        scale = fuel / inclusive if inclusive else 0.0
        children = [e for e in profile.callees(index) if e.callee not in path and e.inclusive]
        spent = sum(e.inclusive for e in children) * scale
        if spent > fuel:  # calls nested through recursion overlap: squeeze them in
            scale *= fuel / spent
        own = fuel
        for edge in children:
            share = edge.inclusive * scale
            if share >= floor and len(path) < MAX_STACK:
                walk([*path, edge.callee], share)
                own -= share
        stacks.append((path, round(own, 3)))

    for edge in profile.callees(HOST):
        walk([edge.callee], float(edge.inclusive))
    return stacks


def _path_cycle(profile: Profile) -> bool:
    graph: dict[int, set[int]] = {}
    for e in profile.edges:
        if e.caller != e.callee and e.caller != HOST:
            graph.setdefault(e.caller, set()).add(e.callee)
    state: dict[int, int] = {}

    def visit(node: int) -> bool:
        state[node] = 1
        for nxt in graph.get(node, ()):
            if state.get(nxt) == 1 or (nxt not in state and visit(nxt)):
                return True
        state[node] = 2
        return False

    return any(node not in state and visit(node) for node in list(graph))


def _clean(name: str) -> str:
    return name.replace("\n", " ").replace("\r", " ")
