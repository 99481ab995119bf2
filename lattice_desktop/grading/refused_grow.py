"""Whether a failed case hit the memory limit, found by running it again with more memory.

wasmtime-py has no resource-limiter callback (`Store.set_limits` takes numbers only, and a
refused `memory.grow` simply returns -1 inside wasm), so nothing tells the grader that a
grow was refused. A run is deterministic, though: no imports, the same fuel, the same
input. Run again under a raised limit, a case behaves exactly as before up to the first
`memory.grow` the lower limit refused. So if the second run's memory grew past the limit,
or the second run ended any other way, a grow was refused; otherwise none was, and the
trap or the wrong answer is reported as itself.
"""

from __future__ import annotations

from dataclasses import replace

from lattice_desktop.grading.report import CaseResult
from lattice_desktop.outcomes import Outcome

# What a refused grow can turn into; a limit wasmtime reports itself is named already.
RECHECKED = (Outcome.TRAP, Outcome.WRONG_ANSWER, Outcome.CONTRACT_VIOLATION)
# A second run that ends in these says nothing about memory.
_INCONCLUSIVE = (Outcome.TIMEOUT, Outcome.INTERNAL_ERROR)


def raised_limit(limit: int) -> int:
    """The memory limit of the second run: twice the case's, room for an allocator that
    doubles its heap."""
    return 2 * limit


def same_run(first: CaseResult, again: CaseResult) -> bool:
    """Whether two runs of one case ended identically: how, where, on how much fuel, with
    which output."""
    return (first.outcome, first.trap_code, first.frames, first.fuel, first.output_digest) == (
        again.outcome,
        again.trap_code,
        again.frames,
        again.fuel,
        again.output_digest,
    )


def judged_with_memory(
    first: CaseResult, again: CaseResult, again_memory: int | None, *, limit: int, raised: int
) -> CaseResult:
    """`first` as a memory-limit failure when the second run (under `raised`) shows that a
    grow was refused at `limit`; otherwise `first` unchanged."""
    grew_past = again_memory is not None and again_memory > limit
    if not grew_past and (again.outcome in _INCONCLUSIVE or same_run(first, again)):
        return first
    grown = f"it grew to {again_memory / 2**20:.1f} MiB and " if grew_past and again_memory else ""
    seen = (
        f"memory.grow was refused at the {limit // 2**20} MiB memory limit "
        f"(run again with {raised // 2**20} MiB, {grown}{_ending(again)})"
    )
    return replace(first, outcome=Outcome.MEMORY_LIMIT, detail=f"{seen}; {first.detail}")


def _ending(result: CaseResult) -> str:
    if result.outcome is Outcome.PASS:
        return "passed"
    if result.outcome is Outcome.OVER_CEILING:
        return "was correct over the fuel ceiling"
    if result.outcome is Outcome.TRAP and result.trap_code:
        return f"trapped ({result.trap_code})"
    return f"ended in {result.outcome.label}"
