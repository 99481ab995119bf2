"""The reading engine of a kit's calibration: the reference, or a slower sample it names.

A runway is sized so that a correct engine up to `reading` times slower than the reading
engine still finishes. With the reference as that engine, a case whose samples include a
slower correct one (a quadratic beside an n log n reference) needs `reading` found by
trial; `reading_sample` in kit.toml's [calibration] names that sample instead, and the
build measures it on every stress case, so `reading` is the margin over a run it has
seen (`reading = 1.5`: an engine half as slow again as that sample still gets a reading).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from lattice_desktop.errors import Location, UserError
from lattice_desktop.grading.grader import compile_for_case
from lattice_desktop.manifest import CaseEntry, CaseManifest, load_submission
from lattice_desktop.sandbox.compiler import CompiledModule
from lattice_desktop.sandbox.runner import execute
from lattice_desktop.work import Work


def reading_fuel(
    sample: Path,
    case: CaseManifest,
    stress: Sequence[CaseEntry],
    *,
    budget: int,
    work: Work,
    say: Callable[[str], None],
) -> list[int]:
    """The sample's fuel on each stress case (in order); a `UserError` when it fails on one
    or answers one differently from the reference (whose answers are written by now)."""
    submission = load_submission(sample)
    where = Location(str(submission.manifest_path))
    if not submission.module_path.is_file():
        raise UserError(f"the reading sample has no {submission.module}", where)
    compiled = compile_for_case(case, submission.module_path.read_bytes(), work)
    if not isinstance(compiled, CompiledModule):
        outcome, detail = compiled
        raise UserError(f"the reading sample cannot be graded: {outcome.label}: {detail}", where)
    fuel = []
    for entry in stress:
        run = execute(compiled.module, case.contract, case.sandbox, entry, budget=budget, work=work)
        if run.outcome is not None or run.output is None:
            raise UserError(f"the reading sample fails on '{entry.name}': {run.detail}", where)
        if run.output != entry.expected_bytes():
            raise UserError(f"the reading sample's answer to '{entry.name}' is not the reference's", where)
        fuel.append(run.fuel or 0)
        say(f"reading {entry.name:<32} {submission.name:<16} {fuel[-1]:>15,} fuel")
    return fuel
