"""Whether an instrumented run is a profile of the graded run at all.

The instrumented module computes what the original computes, but it is not the same program
to wasmtime: its frames are larger (a deep recursion can overflow the stack where the
original did not), it burns more fuel and takes more time. A run that ended otherwise than
the original's is no profile of the graded run, so it is refused rather than stored. A run
that returned needs no second run: the counting code touches no memory, so the answer is the
original's (and where the grader's digest of it is known, that is checked too).
"""

from __future__ import annotations

from lattice_desktop.manifest.case import CaseEntry, CaseManifest
from lattice_desktop.sandbox.compiler import CompileError, compile_module
from lattice_desktop.sandbox.runner import Execution, execute
from lattice_desktop.work import Work


def ended(run: Execution) -> str:
    """How a run ended, in words: `returned`, or its outcome and trap code."""
    if run.outcome is None:
        return "returned"
    code = f" ({run.trap_code})" if run.trap_code and run.trap_code != run.outcome.value else ""
    return f"{run.outcome.value}{code}"


def difference(
    wasm: bytes,
    case: CaseManifest,
    entry: CaseEntry,
    instrumented: Execution,
    *,
    outcome: str,
    graded_digest: str | None,
    work: Work,
) -> str | None:
    """Why the instrumented run is not the graded run's profile, or None when it is.

    `outcome` is the profile's reading of the instrumented run (`out_of_fuel` when it
    stopped itself at the case's budget)."""
    if outcome == "returned":
        if graded_digest is not None and instrumented.output_digest != graded_digest:
            return "the instrumented run's answer differs from the graded run's"
        return None
    try:
        original = _original_run(wasm, case, entry, work)
    except CompileError as exc:
        return f"the module itself does not compile: {exc}"
    said = "out_of_fuel" if outcome == "out_of_fuel" else ended(instrumented)
    if original.outcome is None:
        return (
            f"the instrumented run ended {said} ({instrumented.detail or 'no detail'}) where the graded "
            "run returned: the instrumentation's larger frames or extra fuel changed how it ends"
        )
    if ended(original) != said:
        return f"the instrumented run ended {said} where the graded run ended {ended(original)}"
    return None


def _original_run(wasm: bytes, case: CaseManifest, entry: CaseEntry, work: Work) -> Execution:
    """The uninstrumented module on `entry`, exactly as the grader runs it."""
    compiled = compile_module(
        wasm, max_bytes=case.sandbox.max_module_bytes, timeout=case.sandbox.compile_timeout, work=work
    )
    return execute(compiled.module, case.contract, case.sandbox, entry, budget=case.budget(entry), work=work)
