"""A regression report between two stored runs: per case the fuel of each, the change and
its percentage, verdict changes, and the functions that account for most of the change
(from the runs' stored fuel profiles, made through `services.profiling` when missing), with
each function's source lines where both modules carry a line table (`compare_lines`).

The CLI's `compare` and the app's Compare view both read this one report. A run is
"before" (A) and the other "after" (B): a positive change means B burns more fuel.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from functools import cache

from lattice_desktop.errors import UserError
from lattice_desktop.outcomes import Outcome
from lattice_desktop.profile.model import Profile
from lattice_desktop.services.compare_lines import LineChange, line_changes, no_lines_note
from lattice_desktop.services.profiling import (
    Instrumentations,
    profile_target,
    run_target,
    source_text,
    stored_profile,
)
from lattice_desktop.store.base import db_proxy
from lattice_desktop.store.queries import StoredRun, load_run
from lattice_desktop.store.run_numbers import GRADED, no_such_run
from lattice_desktop.store.writer import Writer
from lattice_desktop.work import Work

TOP_FUNCTIONS = 5
TOP_LINES = 3  # lines a report shows under each function (the JSON lists every one)


@dataclass(frozen=True)
class FunctionChange:
    """One function's self fuel in each run (matched by name; 0 where it did not run)."""

    name: str
    before: int
    after: int
    lines: tuple[LineChange, ...] = ()
    """Every source line whose fuel in this function changed, most of the change first;
    their changes add up to the function's (empty without line tables)."""

    @property
    def delta(self) -> int:
        return self.after - self.before


@dataclass(frozen=True)
class CaseChange:
    name: str
    kind: str
    size: int
    before_fuel: int | None
    after_fuel: int | None
    before_outcome: str
    after_outcome: str
    functions: tuple[FunctionChange, ...] = ()
    note: str = ""  # why there are no functions, when there are none
    lines_note: str = ""  # why the functions have no source lines, when they have none

    @property
    def delta(self) -> int | None:
        if self.before_fuel is None or self.after_fuel is None:
            return None
        return self.after_fuel - self.before_fuel

    @property
    def percent(self) -> float | None:
        delta = self.delta
        if delta is None or not self.before_fuel:
            return None
        return 100.0 * delta / self.before_fuel

    @property
    def verdict_changed(self) -> bool:
        return self.before_outcome != self.after_outcome

    @property
    def verdict_worse(self) -> bool:
        """B does worse on the case than A: over the ceiling where A passed, or failing where
        A was correct."""
        return _rank(self.after_outcome) < _rank(self.before_outcome)

    @property
    def gated(self) -> bool:
        """Whether its fuel counts against --fail-above: stress cases only, since grading
        scores smoke tests on correctness alone (their fuel is shown, never gated)."""
        return self.kind != "smoke"

    def worse_than(self, percent: float) -> bool:
        """Lost its verdict, or (a stress case) got worse by more than `percent` %."""
        fuel_worse = self.gated and self.percent is not None and self.percent > percent
        return self.verdict_worse or fuel_worse


def _rank(outcome: str) -> int:
    return {Outcome.PASS.value: 2, Outcome.OVER_CEILING.value: 1}.get(outcome, 0)


@dataclass(frozen=True)
class RunSide:
    run_id: int
    label: str  # "run 12 · lines"
    model: str
    case: str
    manifest_hash: str
    wasmtime_version: str
    verdict: str
    score: int | None


@dataclass(frozen=True)
class Comparison:
    before: RunSide
    after: RunSide
    cases: tuple[CaseChange, ...]
    notes: tuple[str, ...] = field(default=())

    def worse_than(self, percent: float) -> list[CaseChange]:
        return [c for c in self.cases if c.worse_than(percent)]

    def to_dict(self) -> dict[str, object]:
        """The JSON form: every figure exact, with each case's change and percentage."""
        cases = []
        for c in self.cases:
            data = asdict(c)
            data["functions"] = [
                asdict(f)
                | {
                    "delta": f.delta,
                    "lines": [asdict(ln) | {"delta": ln.delta, "place": ln.place} for ln in f.lines],
                }
                for f in c.functions
            ]
            cases.append(
                data
                | {
                    "delta": c.delta,
                    "percent": c.percent,
                    "verdict_changed": c.verdict_changed,
                    "fuel_gated": c.gated,
                }
            )
        return {
            "before": asdict(self.before),
            "after": asdict(self.after),
            "cases": cases,
            "notes": list(self.notes),
        }


def compare_runs(
    before_id: int, after_id: int, *, writer: Writer | None, profile: bool = True, work: Work | None = None
) -> Comparison:
    """Compare two stored runs case by case. With `profile`, the cases whose fuel changed
    are profiled in both runs where no stored profile exists (stored through `writer`; the
    two runs' profiles of a case are made at once, `_Profiler`); without it, only stored
    profiles are used."""
    work = work or Work()
    runs = [_load(before_id), _load(after_id)]
    before, after = runs
    notes = _notes(before, after)
    theirs = {r.name: r for r in after.results}
    pairs = [(r, theirs[r.name]) for r in before.results if r.name in theirs]
    changed = [(a, b) for a, b in pairs if a.fuel != b.fuel and a.fuel is not None and b.fuel is not None]
    cases = []
    done = 0
    with _Profiler(writer=writer, make=profile, work=work) as profiler:
        for a, b in pairs:
            functions: tuple[FunctionChange, ...] = ()
            note, lines_note = ("" if (a, b) in changed else "no change in fuel"), ""
            if (a, b) in changed:
                work.raise_if_cancelled()
                scale = (done / len(changed), (done + 1) / len(changed))
                functions, note, lines_note = _functions(before, after, a.name, profiler=profiler, span=scale)
                done += 1
            cases.append(
                CaseChange(
                    a.name,
                    a.kind,
                    a.size,
                    a.fuel,
                    b.fuel,
                    a.outcome.value,
                    b.outcome.value,
                    functions,
                    note,
                    lines_note,
                )
            )
    missing = sorted(set(theirs) ^ {r.name for r in before.results})
    if missing:
        notes.append("cases only one run has, left out: " + ", ".join(missing))
    return Comparison(_side(before), _side(after), tuple(cases), tuple(notes))


def _load(run_id: int) -> StoredRun:
    run = load_run(run_id)
    if run is None:
        raise UserError(no_such_run(run_id, command="compare", takes=GRADED))
    if not run.results:
        raise UserError(f"run {run_id} has no results to compare ({run.summary.verdict.value})")
    return run


def _side(run: StoredRun) -> RunSide:
    s = run.summary
    return RunSide(
        run.id,
        f"run {run.id} · {s.submission}",
        s.model,
        s.labelled_case,
        run.manifest_hash,
        run.wasmtime_version,
        s.verdict.value,
        s.score,
    )


def _notes(before: StoredRun, after: StoredRun) -> list[str]:
    notes = []
    if before.manifest_hash != after.manifest_hash:
        notes.append(
            f"the runs were graded on different case content ({before.manifest_hash[:12]}… and "
            f"{after.manifest_hash[:12]}…): cases are matched by name"
        )
    if before.wasmtime_version != after.wasmtime_version:
        notes.append(
            f"graded with different wasmtime versions ({before.wasmtime_version} and "
            f"{after.wasmtime_version}): fuel is comparable only within one version"
        )
    return notes


class _Profiler:
    """Each changed case's profiles in both runs, the two made at once: B's on a second
    thread (bound to the caller's database; wasm runs without the GIL) while A's is made
    here, as the grader runs two cases at once. Each module is instrumented once for all
    the cases (`Instrumentations`). An error or Ctrl+C here cancels `work`, which stops B's
    run too, before the thread is waited for."""

    def __init__(self, *, writer: Writer | None, make: bool, work: Work) -> None:
        self.writer, self.make, self.work = writer, make, work
        self.instrumented: Instrumentations = {}

    def __enter__(self) -> _Profiler:
        self._beside = ThreadPoolExecutor(
            1, "compare-profile", initializer=db_proxy.bind_thread, initargs=(db_proxy.obj,)
        )
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        if kind is not None:
            self.work.cancel()
        self._beside.shutdown(wait=True, cancel_futures=True)

    def beside(self, run: StoredRun, case: str, span: tuple[float, float]) -> Future[Side]:
        return self._beside.submit(self.side, run, case, span)

    def side(self, run: StoredRun, case: str, span: tuple[float, float]) -> Side:
        """One run's profile of `case` and its submission's folder, or why there is none."""
        self.work.report(span[0], f"profiling run {run.id} on {case}", case)
        try:
            target = run_target(run, case)
            part = self.work.part(*span)
            found = (
                profile_target(target, writer=self.writer, work=part, instrumented=self.instrumented)
                if self.make
                else stored_profile(target)
            )
        except UserError as exc:
            return f"no profile: {exc}"
        if found is None:
            return f"run {run.id} has no stored profile of {case} (compare without --no-profile to make one)"
        return found, target.source_root


Side = tuple[Profile, str | None] | str  # a profile and its sources' folder, or why there is none


def _functions(
    before: StoredRun, after: StoredRun, case: str, *, profiler: _Profiler, span: tuple[float, float]
) -> tuple[tuple[FunctionChange, ...], str, str]:
    """The functions that account for most of one case's change (with their lines), or a
    note saying why not; and a note saying why they have no lines, when they have none."""
    low, high = span
    middle = (low + high) / 2
    theirs_made = profiler.beside(after, case, (middle, high))
    sides = [profiler.side(before, case, (low, middle)), theirs_made.result()]
    profiles: list[Profile] = []
    roots: list[str | None] = []
    for side in sides:  # A's reason first, as when B was profiled only after A
        if isinstance(side, str):
            return (), side, ""
        profiles.append(side[0])
        roots.append(side[1])
    ours, theirs = profiles

    @cache
    def sources(name: str) -> tuple[str | None, str | None]:
        return source_text(roots[0], name), source_text(roots[1], name)

    functions = top_changes(ours, theirs, sources=sources)
    lines_note = no_lines_note(ours, theirs, before.id, after.id) if functions else ""
    if not lines_note and functions and not any(f.lines for f in functions):
        lines_note = "no source lines: a run was cut short, so its lines do not add up to its functions"
    return functions, "", lines_note


def top_changes(
    before: Profile,
    after: Profile,
    *,
    top: int = TOP_FUNCTIONS,
    sources: Callable[[str], tuple[str | None, str | None]] | None = None,
) -> tuple[FunctionChange, ...]:
    """The functions whose self fuel changed most in the direction of the total change
    (then the others by size), `top` of them, each with its lines where both profiles have
    them (`sources` gives a file's text in each run, to pair lines of two versions)."""
    ours = {f.name: f.self_fuel for f in before.functions if f.calls}
    theirs = {f.name: f.self_fuel for f in after.functions if f.calls}
    changes = [FunctionChange(n, ours.get(n, 0), theirs.get(n, 0)) for n in sorted(set(ours) | set(theirs))]
    direction = 1 if after.total >= before.total else -1
    changes = [c for c in changes if c.delta]
    changes.sort(key=lambda c: (-(c.delta * direction), c.name))
    return tuple(replace(c, lines=line_changes(before, after, c.name, sources)) for c in changes[:top])
