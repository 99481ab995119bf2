"""The submission's own factory (spec §8), run in the grader's sandbox. No Qt here.

A submission is untrusted: its `lattice_records` runs like a graded case, in a fresh
limited Store with the case's fuel budget, memory limit and wall clock, and what it
returns is decoded strictly. Problems come back as `UserError`s to show inline.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import wasmtime

from lattice_desktop.errors import Location, UserError
from lattice_desktop.lattice.records import decode_records
from lattice_desktop.manifest.case import CaseManifest, Sandbox
from lattice_desktop.manifest.submission import load_submission
from lattice_desktop.sandbox.compiler import CompileError, compile_module
from lattice_desktop.sandbox.engine import seconds_to_epochs, shared_engine

RECORDS_EXPORT = "lattice_records"


@dataclass(frozen=True)
class SubmissionRecords:
    """A compiled submission that exports records, and the limits it runs under."""

    module: wasmtime.Module
    export: str
    sandbox: Sandbox
    budget: int
    name: str


def open_submission(submission_path: str, case: CaseManifest, entry_name: str) -> SubmissionRecords | str:
    """The submission's records export, or a sentence saying why there is none."""
    try:
        submission = load_submission(submission_path)
    except (UserError, OSError) as exc:
        return f"submission unreadable: {exc}"
    path = Path(submission.module_path)
    if not path.is_file():
        return f"no built module at {path}"
    export = case.contract.records or RECORDS_EXPORT
    try:
        compiled = compile_module(path.read_bytes(), max_bytes=case.sandbox.max_module_bytes,
                                  timeout=case.sandbox.compile_timeout)
    except CompileError as exc:
        return f"module does not compile: {exc}"
    if export not in {e.name for e in compiled.module.exports}:
        return f"the submission does not export {export} (spec §8)"
    budget = case.budget(case.entry(entry_name))
    return SubmissionRecords(compiled.module, export, case.sandbox, budget, submission.name)


def submission_records(sub: SubmissionRecords, scenario: bytes, tick: int) -> dict[int, int]:
    """The submission's records after `tick`; `UserError` when it traps or returns junk."""
    where = Location(f"{sub.name}: {sub.export}", key=f"tick {tick}")
    store = wasmtime.Store(shared_engine())
    store.set_limits(memory_size=sub.sandbox.memory_limit, instances=1, tables=4, memories=1)
    store.set_fuel(sub.budget)
    store.set_epoch_deadline(seconds_to_epochs(sub.sandbox.wall_clock))
    try:
        exports = wasmtime.Instance(store, sub.module, []).exports(store)
        memory = exports["memory"]
        ptr = exports["alloc"](store, len(scenario)) & 0xFFFF_FFFF
        memory.write(store, scenario, ptr)
        packed = exports[sub.export](store, ptr, len(scenario), tick) & 0xFFFF_FFFF_FFFF_FFFF
    except wasmtime.Trap as trap:
        code = trap.trap_code.name.lower() if trap.trap_code is not None else "trap"
        raise UserError(f"the submission trapped ({code})", where) from None
    except (wasmtime.WasmtimeError, KeyError, TypeError) as exc:
        raise UserError(f"the submission could not be run: {exc}", where) from None
    out_ptr, out_len = packed >> 32, packed & 0xFFFF_FFFF
    if out_ptr + out_len > memory.data_len(store) or out_len > sub.sandbox.max_output_bytes:
        raise UserError("the records lie outside the submission's memory", where)
    return decode_records(memory.read(store, out_ptr, out_ptr + out_len), source=where.file or "")
