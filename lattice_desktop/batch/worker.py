"""What a worker process runs for one job: compile (cached by content hash), then grade one
case entry through the grader's own `grade_entry`. Results travel back as plain data.

wasmtime objects do not pickle, so a worker receives module bytes and keeps the compiled
module in `compile_module`'s per-process cache, on the process's one shared Engine.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass
from typing import Any

from lattice_desktop.grading.compare import Mismatch
from lattice_desktop.grading.grader import compile_for_case, grade_entry
from lattice_desktop.grading.report import CaseResult
from lattice_desktop.manifest.case import CaseEntry, CaseManifest
from lattice_desktop.outcomes import Outcome
from lattice_desktop.sandbox import engine
from lattice_desktop.work import Work

_cancels: dict[str, Work] = {}
_cancels_lock = threading.Lock()


@dataclass(frozen=True)
class JobResult:
    """A task's answer: one result per entry, or why the whole module fails (then no results)."""

    results: list[dict[str, Any]]
    module_failure: tuple[str, str] | None = None  # (outcome value, detail)
    from_cache: bool = False


def run_jobs(batch_id: str, case: CaseManifest, entries: list[CaseEntry], module: bytes) -> JobResult:
    """Grade each of `entries` on `module` for `case` (one task may carry several small jobs);
    raises Cancelled once the batch is cancelled."""
    work = _token(batch_id)
    work.raise_if_cancelled()
    compiled = compile_for_case(case, module, work)
    if isinstance(compiled, tuple):
        outcome, detail = compiled
        return JobResult([], (outcome.value, detail))
    results = []
    for entry in entries:
        results.append(result_to_data(grade_entry(case, entry, compiled.module, work)))
        work.raise_if_cancelled()
    return JobResult(results, from_cache=compiled.from_cache)


def hold(value: object) -> object:
    """A shared value as a task's result, so the cluster can rebuild it if a worker dies."""
    return value


def cancel_batch(batch_id: str, wall_clock: float) -> None:
    """Stop this process's jobs of `batch_id`: later ones refuse to start, running wasm is
    interrupted (a job of another batch sees a spurious interrupt and simply reruns)."""
    _token(batch_id).cancel()
    engine.interrupt_all(wall_clock)


def _token(batch_id: str) -> Work:
    with _cancels_lock:
        return _cancels.setdefault(batch_id, Work())


def result_to_data(r: CaseResult) -> dict[str, Any]:
    """A case result as builtins only, so any worker can send it to any client."""
    data = asdict(r)  # field by field, so a new field of CaseResult travels without a change here
    data["outcome"] = r.outcome.value
    data["frames"] = list(r.frames)
    return data


def result_from_data(data: dict[str, Any]) -> CaseResult:
    m = data["mismatch"]
    return CaseResult(
        **{
            **data,
            "outcome": Outcome(data["outcome"]),
            "frames": tuple(data["frames"]),
            "mismatch": None if m is None else Mismatch(**m),
        }
    )
