"""The submission's own factory (spec §8), run in the grader's sandbox. No Qt here.

A submission is untrusted: its `lattice_records` runs like a graded case, in a fresh
limited Store with the case's fuel budget, memory limit and wall clock, and what it
returns is decoded strictly. Problems come back as `UserError`s to show inline.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import wasmtime

from lattice_desktop.errors import Location, UserError
from lattice_desktop.lattice import answer_cache
from lattice_desktop.lattice.records import check_placement, decode_pairs, decode_records
from lattice_desktop.lattice.scenario import Scenario
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
    digest: str  # sha256 of the module's bytes: answers are cached under it


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
        module_bytes = path.read_bytes()
        compiled = compile_module(module_bytes, max_bytes=case.sandbox.max_module_bytes,
                                  timeout=case.sandbox.compile_timeout)
    except CompileError as exc:
        return f"module does not compile: {exc}"
    if export not in {e.name for e in compiled.module.exports}:
        return f"the submission does not export {export} (spec §8)"
    budget = case.budget(case.entry(entry_name))
    return SubmissionRecords(compiled.module, export, case.sandbox, budget, submission.name,
                             hashlib.sha256(module_bytes).hexdigest())


def submission_records(sub: SubmissionRecords, scenario: bytes, tick: int) -> dict[int, int]:
    """The submission's records after `tick`; `UserError` when it traps or returns junk."""
    where = Location(f"{sub.name}: {sub.export}", key=f"tick {tick}")
    data = _call(sub, sub.export, scenario, (tick,), where)
    return decode_records(data, source=where.file or "")


def submission_pairs(sub: SubmissionRecords, scenario: Scenario, data: bytes, tick: int) -> np.ndarray:
    """The submission's records after `tick` as sorted (n, 2) uint64 pairs, checked like
    `decode_records` and placed on cells of the right kind (`RecordsError` otherwise)."""
    where = Location(f"{sub.name}: {sub.export}", key=f"tick {tick}")
    pairs = decode_pairs(_call(sub, sub.export, data, (tick,), where), source=where.file or "")
    check_placement(scenario, pairs, source=where.file or "")
    return pairs


def submission_checksums(sub: SubmissionRecords, scenario: bytes) -> list[int]:
    """The submission's snapshot checksums (its `lattice_run`) on `scenario`."""
    where = Location(f"{sub.name}: lattice_run")
    data = _call(sub, "lattice_run", scenario, (), where)
    if len(data) % 8:
        raise UserError("lattice_run returned a length that is not a multiple of 8", where)
    return list(struct.unpack(f"<{len(data) // 8}Q", data))


def _call(sub: SubmissionRecords, export: str, scenario: bytes, extra: tuple[int, ...],
          where: Location) -> bytes:
    """One call of a packed (ptr << 32 | len) export in a fresh limited Store (or its
    answer from an earlier session)."""
    cached = answer_cache.answer_path(sub.digest, export, scenario, extra)
    answer = answer_cache.load(cached)
    if answer is None:
        answer = _run(sub, export, scenario, extra, where)
        answer_cache.save(cached, answer)
    return answer


def _run(sub: SubmissionRecords, export: str, scenario: bytes, extra: tuple[int, ...],
         where: Location) -> bytes:
    store = wasmtime.Store(shared_engine())
    store.set_limits(memory_size=sub.sandbox.memory_limit, instances=1, tables=4, memories=1)
    store.set_fuel(sub.budget)
    store.set_epoch_deadline(seconds_to_epochs(sub.sandbox.wall_clock))
    try:
        exports = wasmtime.Instance(store, sub.module, []).exports(store)
        memory = exports["memory"]
        ptr = exports["alloc"](store, len(scenario)) & 0xFFFF_FFFF
        memory.write(store, scenario, ptr)
        packed = exports[export](store, ptr, len(scenario), *extra) & 0xFFFF_FFFF_FFFF_FFFF
    except wasmtime.Trap as trap:
        code = trap.trap_code.name.lower() if trap.trap_code is not None else "trap"
        raise UserError(f"the submission trapped ({code})", where) from None
    except (wasmtime.WasmtimeError, KeyError, TypeError) as exc:
        raise UserError(f"the submission could not be run: {exc}", where) from None
    out_ptr, out_len = packed >> 32, packed & 0xFFFF_FFFF
    if out_ptr + out_len > memory.data_len(store) or out_len > sub.sandbox.max_output_bytes:
        raise UserError("the submission's answer lies outside its memory", where)
    return memory.read(store, out_ptr, out_ptr + out_len)
