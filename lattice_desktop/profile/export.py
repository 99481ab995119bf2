"""A profile in the formats profilers open: callgrind (KCachegrind, QCachegrind, gprof2dot)
and speedscope's JSON, the latter only where it can be exact."""

from __future__ import annotations

import json

from lattice_desktop.profile.model import HOST, Profile

EVENT = "Fuel"


def callgrind(profile: Profile, *, module_label: str = "module.wasm") -> str:
    """The profile as a callgrind file: one `fn=` block per function with its self fuel, and
    one call record per edge with its calls and inclusive fuel. Calls from the host are the
    roots; they have no caller block."""
    lines = [
        "# callgrind format",
        "version: 1",
        "creator: lattice-desktop profile",
        f"cmd: {profile.case_name} ({profile.module_sha256[:12]})",
        "positions: line",
        f"events: {EVENT}",
        f"summary: {profile.total}",
        f"totals: {profile.total}",
        "",
        f"fl=(1) {_clean(module_label)}",
    ]
    ids = {f.index: n for n, f in enumerate(profile.functions, start=1)}
    for f in profile.functions:
        if not f.calls:
            continue
        lines += ["", f"fn=({ids[f.index]}) {_clean(f.name)}", f"0 {f.self_fuel}"]
        for edge in profile.callees(f.index):
            callee = profile.by_index()[edge.callee]
            lines += [
                f"cfn=({ids[edge.callee]}) {_clean(callee.name)}",
                f"calls={edge.calls} 0",
                f"0 {edge.inclusive}",
            ]
    if profile.unattributed:
        lines += ["", f"fn=({len(ids) + 1}) (cut short by a trap)", f"0 {profile.unattributed}"]
    return "\n".join(lines) + "\n"


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


def speedscope(profile: Profile, *, name: str) -> str:
    """The profile as a speedscope 'sampled' file: one stack per function, weighted by its
    self fuel. Raise ValueError where that would not be exact (see `speedscope_problem`)."""
    problem = speedscope_problem(profile)
    if problem is not None:
        raise ValueError(problem)
    parent = {
        e.callee: e.caller
        for f in profile.functions
        for e in profile.callers(f.index)
        if e.caller != e.callee
    }
    order = [f for f in profile.functions if f.calls]
    frame_of = {f.index: n for n, f in enumerate(order)}
    samples, weights = [], []
    for f in order:
        stack, at = [], f.index
        while at != HOST and at in frame_of:
            stack.append(frame_of[at])
            at = parent.get(at, HOST)
        samples.append(stack[::-1])
        weights.append(f.self_fuel)
    document = {
        "$schema": "https://www.speedscope.app/file-format-schema.json",
        "shared": {"frames": [{"name": f.name} for f in order]},
        "profiles": [
            {
                "type": "sampled",
                "name": name,
                "unit": "none",
                "startValue": 0,
                "endValue": profile.attributed,
                "samples": samples,
                "weights": weights,
            }
        ],
        "name": name,
        "exporter": "lattice-desktop profile",
    }
    return json.dumps(document, indent=1)


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
