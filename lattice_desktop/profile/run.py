"""Profile one case: instrument the module, run it through the sandbox, read its counters.

The instrumented module is as untrusted as the original: it is compiled in the child
process like any submission and runs through `sandbox.runner.execute` with the case's
memory, table, output and wall-clock limits and the import policy. Its fuel is held twice:
the module stops itself (a trap) once the *original* fuel passes the case's budget, checked
where wasmtime checks; and wasmtime's own limit is the budget times `OVERHEAD_BOUND`, the
most the instrumentation can add per unit of original fuel, as a backstop.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass

import wasmtime

from lattice_desktop.manifest.case import CaseEntry, CaseManifest
from lattice_desktop.outcomes import Outcome
from lattice_desktop.profile.bounds import Bounds, TooLarge
from lattice_desktop.profile.counters import read_counters
from lattice_desktop.profile.fuel_rule import START_COST
from lattice_desktop.profile.instrument import Instrumented, instrument
from lattice_desktop.profile.layout import Layout
from lattice_desktop.profile.model import HOST, EdgeStats, FunctionStats, LineStats, Profile
from lattice_desktop.profile.same_run import difference
from lattice_desktop.sandbox.compiler import CompileError, compile_module
from lattice_desktop.sandbox.engine import WASMTIME_VERSION, interrupt_all
from lattice_desktop.sandbox.runner import Execution, check_linkage, execute
from lattice_desktop.work import Work

# Instrumented fuel per unit of original fuel, at most: a call (2 original units: the call
# and the callee's entry) brings about 62 units of counting, and an indirect call 4 more per
# candidate callee; a straight-line stretch costs at least 1 and brings 4 (8 at a loop
# header). See docs/profiling.md.
OVERHEAD_BOUND = 40
PER_CANDIDATE = 2


class ProfileRefused(Exception):
    """The module cannot be profiled on this case; the message says why."""


@dataclass
class _Counters:
    """What the observer read from the instance's counter globals."""

    values: dict[str, int]


def largest_stress(case: CaseManifest) -> CaseEntry:
    """The default case to profile: the largest stress case (the last of equal size)."""
    if not case.stress:
        if not case.cases:
            raise ProfileRefused(f"{case.label} has no cases")
        return case.cases[-1]
    return max(reversed(case.stress), key=lambda e: e.size)


def profile_case(
    wasm: bytes,
    case: CaseManifest,
    entry: CaseEntry,
    *,
    work: Work | None = None,
    instrumented: Instrumented | None = None,
    graded_digest: str | None = None,
) -> Profile:
    """The exact fuel profile of `wasm` on `entry`; `ProfileRefused` when it cannot be made:
    a module past the case's bounds (before any work), or an instrumented run that ended
    otherwise than the graded run (`graded_digest`: the grader's digest of its answer)."""
    work = work or Work()
    work.report(0.02, "instrumenting")
    try:
        if instrumented is None:
            instrumented = instrument(wasm, bounds=Bounds.of(case.sandbox))
    except TooLarge as exc:
        raise ProfileRefused(str(exc)) from None
    budget = case.budget(entry)
    work.raise_if_cancelled()
    work.report(0.1, "compiling the instrumented module")
    module = _compiled(instrumented.wasm(budget), case, work)
    work.raise_if_cancelled()
    work.report(0.2, f"running {entry.name} instrumented")
    work.on_cancel(lambda: interrupt_all(case.sandbox.wall_clock))  # stop the running wasm
    counters = _Counters({})
    started = time.perf_counter()
    run = execute(
        module,
        case.contract,
        case.sandbox,
        entry,
        budget=budget * overhead_bound(instrumented.layout),
        work=work,
        keep_output=0,
        observe=_reader(instrumented.layout, counters),
    )
    wall = time.perf_counter() - started
    work.report(0.95, "reading the counters")
    if not counters.values:
        raise ProfileRefused(f"the instrumented module did not start: {run.detail}")
    total = counters.values["T"]
    outcome, detail = _ending(run, total, budget)
    problem = difference(wasm, case, entry, run, outcome=outcome, graded_digest=graded_digest, work=work)
    if problem is not None:
        raise ProfileRefused(problem)
    functions, edges = _tables(instrumented.layout, counters.values)
    work.report(1.0, "profiled")
    return Profile(
        module_sha256=hashlib.sha256(wasm).hexdigest(),
        case_name=entry.name,
        case_hash=case.manifest_hash,
        total=total,
        functions=functions,
        edges=edges,
        budget=budget,
        instrumented_fuel=run.fuel,
        outcome=outcome,
        detail=detail,
        wall_time=wall,
        wasmtime_version=WASMTIME_VERSION,
        line_table=instrumented.layout.line_table,
        lines=_lines(instrumented.layout, counters.values),
    )


def _compiled(encoded: bytes, case: CaseManifest, work: Work) -> wasmtime.Module:
    """The instrumented module compiled like any submission, within the case's module size."""
    try:
        compiled = compile_module(
            encoded, max_bytes=case.sandbox.max_module_bytes, timeout=case.sandbox.compile_timeout, work=work
        )
    except CompileError as exc:
        raise ProfileRefused(f"the instrumented module does not compile: {exc}") from exc
    problem = check_linkage(compiled.module, case.contract)
    if problem is not None:
        raise ProfileRefused(f"the module cannot run: {problem[1]}")
    return compiled.module


def _ending(run: Execution, total: int, budget: int) -> tuple[str, str]:
    """How the instrumented run ended, read as the original's would have."""
    if run.outcome is None:
        return "returned", ""
    if total > budget:
        return "out_of_fuel", f"used more than the case's budget of {budget:,} fuel"
    if run.outcome is Outcome.OUT_OF_FUEL:
        raise ProfileRefused(
            f"the instrumented run used up its backstop of fuel ({run.fuel:,}) with only "
            f"{total:,} of the original's counted; the counting cost more than its bound"
        )
    return run.outcome.value, run.detail


def overhead_bound(layout: Layout) -> int:
    """How many times the budget the instrumented module may burn in wasmtime."""
    return OVERHEAD_BOUND + PER_CANDIDATE * layout.max_candidates


def _reader(layout: Layout, counters: _Counters) -> Callable[[wasmtime.Store, wasmtime.Instance], None]:
    def read(store: wasmtime.Store, instance: wasmtime.Instance) -> None:
        counters.values = read_counters(store, instance, layout)

    return read


def _lines(layout: Layout, values: dict[str, int]) -> tuple[LineStats, ...]:
    """Fuel per function and source line: each counted stretch's runs times its fuel per
    operator, and what each per-byte operator added, at the operator's line."""
    if not layout.line_table:
        return ()
    fuel: dict[tuple[int, str, int], int] = {}

    def add(function: int, offset: int, amount: int) -> None:
        place = layout.places[offset]
        key = (function, place.file, place.line)
        fuel[key] = fuel.get(key, 0) + amount

    for n, site in enumerate(layout.segments):
        for offset, each in site.fuel:
            add(site.function, offset, values[f"G{n}"] * each)
    for n, site in enumerate(layout.dynamic):
        add(site.function, site.fuel[0][0], values[f"Y{n}"])
    if layout.start is not None and layout.start in layout.entries:
        add(layout.start, layout.entries[layout.start], START_COST)
    return tuple(
        LineStats(f, file, line, amount) for (f, file, line), amount in sorted(fuel.items()) if amount
    )


def _tables(
    layout: Layout, values: dict[str, int]
) -> tuple[tuple[FunctionStats, ...], tuple[EdgeStats, ...]]:
    extra = {layout.start: START_COST} if layout.start is not None else {}
    functions = tuple(
        FunctionStats(
            index=i,
            name=layout.names[i],
            calls=values[f"C{i}"],
            self_fuel=values[f"S{i}"] + extra.get(i, 0),
            inclusive=values[f"I{i}"] + extra.get(i, 0),
        )
        for i in layout.functions
    )
    edges = [
        EdgeStats(e.caller, e.callee, values[f"EC{n}"], values[f"EI{n}"])
        for n, e in enumerate(layout.edges)
        if values[f"EC{n}"]
    ]
    from_wasm = {f.index: [0, 0] for f in functions}
    for e in edges:
        from_wasm[e.callee][0] += e.calls
        from_wasm[e.callee][1] += e.inclusive
    for f in functions:  # what wasm callers do not account for came from the host
        calls = f.calls - from_wasm[f.index][0]
        inclusive = f.inclusive - from_wasm[f.index][1]
        if calls > 0:
            edges.append(EdgeStats(HOST, f.index, calls, inclusive))
    return functions, tuple(edges)
