"""The submission's own factory (spec §8), run in the grader's sandbox. No Qt here.

A submission is untrusted: its `lattice_records` runs through `runner.call_bytes` exactly
like a graded case — fresh limited Store, the case's fuel budget, memory, table and output
limits, the wall-clock backstop and the import policy — and what it returns is decoded
strictly. Problems come back as `UserError`s to show inline.
"""

from __future__ import annotations

from dataclasses import dataclass

import wasmtime

from lattice_desktop.errors import Location, UserError
from lattice_desktop.lattice.records import decode_records
from lattice_desktop.manifest.case import CaseManifest
from lattice_desktop.manifest.submission import load_submission
from lattice_desktop.sandbox.build import load_shipped_module
from lattice_desktop.sandbox.compiler import CompileError, compile_module
from lattice_desktop.sandbox.guest import BytesExports, Limits, import_problem
from lattice_desktop.sandbox.runner import call_bytes
from lattice_desktop.work import Work

RECORDS_EXPORT = "lattice_records"


@dataclass(frozen=True)
class SubmissionRecords:
    """A compiled submission that exports records, and the limits it runs under."""

    module: wasmtime.Module
    exports: BytesExports
    limits: Limits
    name: str


def open_submission(submission_path: str, case: CaseManifest, entry_name: str) -> SubmissionRecords | str:
    """The submission's records export, or a sentence saying why there is none."""
    try:
        submission = load_submission(submission_path)
    except (UserError, OSError) as exc:
        return f"submission unreadable: {exc}"
    try:
        shipped = load_shipped_module(submission, case.sandbox.max_module_bytes)
    except UserError:
        return f"no built module at {submission.module_path}"
    if shipped.module is None:
        return f"the module cannot be used: {shipped.detail}"
    export = case.contract.records or RECORDS_EXPORT
    try:
        compiled = compile_module(shipped.module, max_bytes=case.sandbox.max_module_bytes,
                                  timeout=case.sandbox.compile_timeout)
    except CompileError as exc:
        return f"module does not compile: {exc}"
    problem = import_problem(compiled.module)
    if problem is not None:
        return f"the submission cannot run: {problem}"
    if export not in {e.name for e in compiled.module.exports}:
        return f"the submission does not export {export} (spec §8)"
    limits = Limits.of(case.sandbox, fuel=case.budget(case.entry(entry_name)))
    names = BytesExports(export, case.contract.memory, case.contract.alloc)
    return SubmissionRecords(compiled.module, names, limits, submission.name)


def submission_records(sub: SubmissionRecords, scenario: bytes, tick: int,
                       cancel: Work | None = None) -> dict[int, int]:
    """The submission's records after `tick`; `UserError` when it traps or returns junk."""
    where = Location(f"{sub.name}: {sub.exports.entry}", key=f"tick {tick}")
    run = call_bytes(sub.module, sub.exports, scenario, extra=(tick,), limits=sub.limits, cancel=cancel)
    if run.outcome is not None:
        raise UserError(f"the submission's records failed ({run.outcome.value}): {run.detail}", where)
    return decode_records(run.output or b"", source=where.file or "")
