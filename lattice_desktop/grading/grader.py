"""Grade a submission against a case: smoke tests first, then fuel on the stress cases.

Plain Python: progress and cancellation go through one `Work` object, so the CLI, the
app's workers and the tests all drive the same function.
"""

from __future__ import annotations

import hashlib
import os
import struct
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime

import wasmtime

from lattice_desktop.errors import Cancelled
from lattice_desktop.grading.compare import compare, snapshot_interval
from lattice_desktop.grading.refused_grow import RECHECKED, judged_with_memory, raised_limit
from lattice_desktop.grading.report import CaseResult, GradeReport, GradingStep, verdict_of
from lattice_desktop.manifest.case import CaseEntry, CaseManifest, Sandbox
from lattice_desktop.manifest.submission import Submission
from lattice_desktop.outcomes import Outcome
from lattice_desktop.sandbox import engine
from lattice_desktop.sandbox.build import BuildResult, answer_folders, build_submission
from lattice_desktop.sandbox.compiler import CompiledModule, CompileError, compile_module
from lattice_desktop.sandbox.runner import Execution, check_linkage, execute
from lattice_desktop.sandbox.scratch import sweep_stale_scratch
from lattice_desktop.work import Work


def grade(
    case: CaseManifest,
    submission: Submission,
    *,
    allow_build: bool = False,
    allow_unisolated: bool = False,
    workers: int = 2,
    work: Work | None = None,
    smoke_gate: bool = True,
) -> GradeReport:
    """Build (if allowed), compile, run smoke tests, then stress cases; return the report.

    Each step is reported on `work` with a `GradingStep`; cancelling it raises `Cancelled`.
    Build commands run jailed; `allow_unisolated` lets them run where no jail is possible.

    With `smoke_gate` off the stress cases run even after a failed smoke test: a case
    author uses it to see how many stress cases a wrong sample fails on its own.
    """
    sweep_stale_scratch()  # what a grader killed mid-build or mid-compile left behind
    work = work or Work()
    started = datetime.now(UTC)
    total = len(case.cases)

    def report_progress(phase: str, message: str, done: int, result: CaseResult | None = None) -> None:
        work.report(done / total, message, GradingStep(phase, done, total, result))

    def finish(
        results: list[CaseResult], digest: str | None, build: BuildResult | None, cached: bool = False
    ) -> GradeReport:
        report_progress("done", "graded", total)
        return GradeReport(
            case,
            submission,
            digest,
            build,
            results,
            verdict_of(results),
            started,
            datetime.now(UTC),
            module_from_cache=cached,
        )

    # The build commands run only when allowed; otherwise the shipped module is graded.
    building = bool(submission.commands) and allow_build
    # With build commands not allowed and no module shipped, there is nothing to load: the
    # build step refuses, and saying "loading the shipped module" first would be untrue.
    ships = not submission.commands or os.path.lexists(submission.module_path)
    step = "building" if building else "loading the shipped module" if ships else "looking for a module"
    report_progress("build", step, 0)
    build = build_submission(
        submission,
        allowed=allow_build,
        timeout=case.sandbox.build_timeout,
        max_module_bytes=case.sandbox.max_module_bytes,
        work=work,
        allow_unisolated=allow_unisolated,
        hidden=answer_folders(case),
    )
    if not build.ok or build.module is None:
        return finish(all_failed(case, Outcome.BUILD_FAILURE, build.detail), None, build)
    digest = hashlib.sha256(build.module).hexdigest()
    work.raise_if_cancelled()
    report_progress("compile", "compiling", 0)
    compiled = compile_for_case(case, build.module, work)
    if not isinstance(compiled, CompiledModule):
        return finish(all_failed(case, *compiled), digest, build)

    done = [0]
    lock = threading.Lock()

    def run_one(entry: CaseEntry) -> CaseResult:
        result = grade_entry(case, entry, compiled.module, work)
        with lock:
            done[0] += 1
            count = done[0]
        report_progress(entry.kind, entry.name, count, result)
        return result

    results: list[CaseResult] = []
    with _pool(workers, work) as pool:
        work.on_cancel(lambda: pool.interrupt_until_done(case.sandbox.wall_clock))
        smoke = list(pool.map(run_one, case.smoke))
        results.extend(smoke)
        if all(r.outcome.correct for r in smoke) or not smoke_gate:
            # Biggest first so the pool is not left waiting on one long case at the end.
            stress = sorted(case.stress, key=lambda e: -e.size)
            by_name = {r.name: r for r in pool.map(run_one, stress)}
            results.extend(by_name[e.name] for e in case.stress)
        else:
            results.extend(skipped_after_smoke(case, smoke))
    work.raise_if_cancelled()
    return finish(results, digest, build, compiled.from_cache)


def compile_for_case(case: CaseManifest, wasm: bytes, work: Work) -> CompiledModule | tuple[Outcome, str]:
    """The compiled module, or why the module as a whole fails (invalid, badly linked)."""
    try:
        compiled = compile_module(
            wasm,
            max_bytes=case.sandbox.max_module_bytes,
            timeout=case.sandbox.compile_timeout,
            work=work,
        )
    except CompileError as exc:
        work.raise_if_cancelled()  # a compile killed by Cancel is not the module's fault
        return Outcome.INVALID_MODULE, str(exc)
    work.raise_if_cancelled()
    problem = check_linkage(compiled.module, case.contract)
    return compiled if problem is None else problem


def skipped_after_smoke(case: CaseManifest, smoke: Iterable[CaseResult]) -> list[CaseResult]:
    """The stress results of a submission that failed a smoke test: skipped, counted failed."""
    failed = ", ".join(r.name for r in smoke if not r.outcome.correct)
    return [
        unrun(case, entry, Outcome.SKIPPED, f"skipped: smoke test failed ({failed}); counted failed")
        for entry in case.stress
    ]


def grade_entry(case: CaseManifest, entry: CaseEntry, module: wasmtime.Module, work: Work) -> CaseResult:
    """Run one case entry on a compiled module and judge it: the one path every grader uses."""
    try:
        data = entry.input_bytes() if case.contract.abi == "bytes" else b""
        expected = entry.expected_bytes() if case.contract.abi == "bytes" else _pack(entry)
    except OSError as exc:
        return unrun(case, entry, Outcome.INTERNAL_ERROR, f"case file unreadable: {exc}")
    budget = case.budget(entry)

    def run_with(sandbox: Sandbox) -> tuple[CaseResult, int | None]:
        # An answer longer than the expected one plus a checksum is wrong whatever it holds:
        # only that much is copied out of wasm (its size and digest still cover all of it).
        run = execute(
            module,
            case.contract,
            sandbox,
            entry,
            budget=budget,
            work=work,
            input_bytes=data,
            keep_output=len(expected) + 8,
        )
        return _judge(case, entry, run, data, expected, budget), run.memory_in_use

    try:
        result = run_with(case.sandbox)[0]
        if result.outcome in RECHECKED:  # was a memory.grow refused? run it again to see
            limit = case.sandbox.memory_limit
            raised = raised_limit(limit)
            again, memory = run_with(replace(case.sandbox, memory_limit=raised))
            result = judged_with_memory(result, again, memory, limit=limit, raised=raised)
    except Cancelled:
        raise
    except Exception:  # a bug of ours: never blamed on the submission
        return unrun(case, entry, Outcome.INTERNAL_ERROR, traceback.format_exc(limit=8))
    return result


def _pack(entry: CaseEntry) -> bytes:
    return struct.pack(
        f"<{len(entry.scalar_expected)}q",
        *(v - (1 << 64) if v >= 1 << 63 else v for v in entry.scalar_expected),
    )


def _judge(
    case: CaseManifest, entry: CaseEntry, run: Execution, data: bytes, expected: bytes, budget: int
) -> CaseResult:
    ceiling = case.sandbox.fuel_limit
    interval = snapshot_interval(case.family, data)
    measured = replace(  # what every outcome below shares; each sets its own outcome
        unrun(case, entry, Outcome.PASS, ""),
        budget=budget,
        fuel=run.fuel,
        trap_code=run.trap_code,
        frames=run.frames,
        snapshot_interval=interval,
        wall_time=run.wall_time,
    )
    if run.outcome is not None:
        return replace(measured, outcome=run.outcome, detail=run.detail)
    output = run.output or b""
    size = len(output) if run.output_size is None else run.output_size
    digest = run.output_digest or hashlib.sha256(output).hexdigest()
    checksums = output if case.contract.output == "u64-list" and size % 8 == 0 else None
    same, reason, mismatch = compare(case.contract, output, expected, interval=interval, size=size)
    if not same:
        # Keep what Results and Diff show (every expected snapshot and one past), not the
        # whole answer: a 16 MiB wrong answer per case must not grow the database by as much.
        kept = None if checksums is None else checksums[: len(expected) + 8]
        return replace(
            measured,
            outcome=Outcome.WRONG_ANSWER,
            detail=reason,
            output_digest=digest,
            checksums=kept,
            mismatch=mismatch,
        )
    fuel = run.fuel or 0
    if entry.is_smoke or fuel <= ceiling:
        return replace(measured, outcome=Outcome.PASS, output_digest=digest, checksums=checksums)
    over = 100.0 * (fuel - ceiling) / ceiling
    return replace(
        measured,
        outcome=Outcome.OVER_CEILING,
        output_digest=digest,
        checksums=checksums,
        detail=f"correct on the runway: {fuel - ceiling:,} fuel ({over:.1f}%) over the ceiling",
    )


def unrun(case: CaseManifest, entry: CaseEntry, outcome: Outcome, detail: str) -> CaseResult:
    return CaseResult(
        name=entry.name,
        kind=entry.kind,
        behaviour=entry.behaviour,
        size=entry.size,
        outcome=outcome,
        ceiling=case.sandbox.fuel_limit,
        budget=case.budget(entry),
        detail=detail,
    )


def all_failed(case: CaseManifest, outcome: Outcome, detail: str) -> list[CaseResult]:
    """A module-level failure: every smoke test fails with it, the stress cases are skipped."""
    has_smoke = bool(case.smoke)
    results = []
    for entry in case.cases:
        if entry.is_smoke or not has_smoke:
            results.append(unrun(case, entry, outcome, detail))
        else:
            results.append(unrun(case, entry, Outcome.SKIPPED, f"skipped: {outcome.label}"))
    return results


class _pool:
    """A thread pool whose threads have a native stack deep enough for wasm.

    `threading.stack_size` applies to threads created while it is set, and the pool
    creates its threads lazily, so the size stays set for the pool's lifetime.
    """

    def __init__(self, workers: int, work: Work) -> None:
        self.workers = max(1, workers)
        self.work = work

    def __enter__(self) -> _pool:
        self._previous = threading.stack_size(engine.WORKER_STACK)
        self._executor = ThreadPoolExecutor(self.workers, "grade")
        self._done = threading.Event()
        return self

    def map(
        self, fn: Callable[[CaseEntry], CaseResult], entries: Iterable[CaseEntry]
    ) -> Iterator[CaseResult]:
        return self._executor.map(fn, entries)

    def interrupt_until_done(self, max_seconds: float) -> None:
        """Cancel's hook: stop every running call now, and again every 50 ms until the pool
        is done. One push of the epoch misses a call that checked for Cancel just before it
        and set its deadline just after; that call would run to its wall-clock limit."""
        engine.interrupt_all(max_seconds)

        def again() -> None:
            while not self._done.wait(0.05):
                engine.interrupt_all(max_seconds)

        threading.Thread(target=again, name="grade-cancel", daemon=True).start()

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        if kind is not None:  # Ctrl+C or an error: stop the running cases before waiting for them
            self.work.cancel()
        self._executor.shutdown(wait=True, cancel_futures=True)
        self._done.set()
        threading.stack_size(self._previous)
