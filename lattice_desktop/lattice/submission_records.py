"""The submission's own factory (spec §8), run in the grader's sandbox. No Qt here.

A submission is untrusted: its `lattice_records` runs through `runner.call_bytes` exactly
like a graded case — fresh limited Store, the case's fuel budget, memory, table and output
limits, the wall-clock backstop and the import policy — and what it returns is decoded
strictly. Problems come back as `UserError`s to show inline.

Each answer costs a run of the submission from tick 0 (seconds on a big factory) and never
changes for the same module and call, so answers are kept on disk (`answer_cache`, a
bounded folder): only once decoded and checked, and checked again when read back.
"""

from __future__ import annotations

import hashlib
import re
import struct
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import wasmtime

from lattice_desktop.errors import Location, UserError
from lattice_desktop.lattice import answer_cache
from lattice_desktop.lattice.records import decode_pairs, decode_records
from lattice_desktop.lattice.scenario import Scenario
from lattice_desktop.lattice.view import check_placement
from lattice_desktop.manifest.case import CaseManifest
from lattice_desktop.manifest.submission import load_submission
from lattice_desktop.sandbox.build import load_shipped_module
from lattice_desktop.sandbox.compiler import CompileError, compile_module
from lattice_desktop.sandbox.guest import BytesExports, Limits, import_problem
from lattice_desktop.sandbox.runner import call_bytes
from lattice_desktop.work import Work

RECORDS_EXPORT = "lattice_records"
Checked = TypeVar("Checked")
_TICKS = re.compile(rb"^[ \t]*ticks[ \t]+([0-9]{1,20})[ \t]*\r?$", re.MULTILINE)
_SNAPSHOT = re.compile(rb"^[ \t]*snapshot[ \t]+([0-9]{1,20})[ \t]*\r?$", re.MULTILINE)


@dataclass(frozen=True)
class SubmissionRecords:
    """A compiled submission that exports records, and the limits it runs under."""

    module: wasmtime.Module
    exports: BytesExports
    limits: Limits
    name: str
    run_exports: BytesExports  # the contract's entry (lattice_run), for per-tick checksums
    digest: str  # sha256 of the module's bytes: its answers are cached under it


def open_submission(submission_path: str, case: CaseManifest, entry_name: str) -> SubmissionRecords:
    """The submission's records export; `UserError` saying why when there is none."""
    try:
        submission = load_submission(submission_path)
    except (UserError, OSError) as exc:
        raise UserError(f"submission unreadable: {exc}") from None
    try:
        shipped = load_shipped_module(submission, case.sandbox.max_module_bytes)
    except UserError:
        raise UserError(f"no built module at {submission.module_path}") from None
    if shipped.module is None:
        raise UserError(f"the module cannot be used: {shipped.detail}")
    export = case.contract.records or RECORDS_EXPORT
    try:
        compiled = compile_module(
            shipped.module, max_bytes=case.sandbox.max_module_bytes, timeout=case.sandbox.compile_timeout
        )
    except CompileError as exc:
        raise UserError(f"module does not compile: {exc}") from None
    problem = import_problem(compiled.module)
    if problem is not None:
        raise UserError(f"the submission cannot run: {problem}")
    if export not in {e.name for e in compiled.module.exports}:
        raise UserError(f"the submission does not export {export} (spec §8)")
    limits = Limits.of(case.sandbox, fuel=case.budget(case.entry(entry_name)))
    names = BytesExports(export, case.contract.memory, case.contract.alloc)
    run_names = BytesExports(case.contract.entry, case.contract.memory, case.contract.alloc)
    return SubmissionRecords(
        compiled.module, names, limits, submission.name, run_names, hashlib.sha256(shipped.module).hexdigest()
    )


def submission_records(
    sub: SubmissionRecords, scenario: bytes, tick: int, work: Work | None = None
) -> dict[int, int]:
    """The submission's records after `tick`; `UserError` when it traps or returns junk."""
    where = Location(f"{sub.name}: {sub.exports.entry}", key=f"tick {tick}")
    return _answer(
        sub,
        sub.exports,
        scenario,
        (tick,),
        where,
        work,
        lambda out: decode_records(out, source=where.file or ""),
    )


def submission_pairs(
    sub: SubmissionRecords, scenario: Scenario, data: bytes, tick: int, work: Work | None = None
) -> np.ndarray:
    """The submission's records after `tick` as sorted (n, 2) uint64 pairs, checked like
    `decode_records` and placed on cells of the right kind (`RecordsError` otherwise)."""
    where = Location(f"{sub.name}: {sub.exports.entry}", key=f"tick {tick}")

    def checked(output: bytes) -> np.ndarray:
        pairs = decode_pairs(output, source=where.file or "")
        check_placement(scenario, pairs, source=where.file or "")
        return pairs

    return _answer(sub, sub.exports, data, (tick,), where, work, checked)


def ticks_held(sub: SubmissionRecords, data: bytes, ticks: Iterable[int]) -> list[int]:
    """Those of `ticks` whose records the submission's answers on disk hold already (reading
    them costs no run of it), in order."""
    wanted = sorted(set(ticks))
    keys = answer_cache.keys_of(sub.digest, f"{sub.exports} {sub.limits}", data, [(t,) for t in wanted])
    return [t for t, key in zip(wanted, keys, strict=True) if answer_cache.held(key)]


def submission_checksums(sub: SubmissionRecords, data: bytes, work: Work | None = None) -> list[int]:
    """The submission's snapshot checksums (the contract's entry) on `data`."""
    where = Location(f"{sub.name}: {sub.run_exports.entry}")

    wanted = snapshot_count(data)

    def checked(output: bytes) -> list[int]:
        if len(output) % 8:
            raise UserError("the checksums' length is not a multiple of 8 bytes", where)
        if wanted is not None and len(output) != 8 * wanted:
            got = f"the submission returned {len(output) // 8:,} checksums"
            raise UserError(f"{got}; the scenario has {wanted:,} snapshots", where)
        return list(struct.unpack(f"<{len(output) // 8}Q", output))

    return _answer(sub, sub.run_exports, data, (), where, work, checked)


def snapshot_count(data: bytes) -> int | None:
    """floor(ticks / snapshot) of a scenario's header (spec §3), None where it names them not
    exactly once: the number of checksums a run of it returns."""
    header = data.split(b"\ngrid", 1)[0]
    ticks, snapshot = _TICKS.findall(header), _SNAPSHOT.findall(header)
    if len(ticks) != 1 or len(snapshot) != 1 or not int(snapshot[0]):
        return None
    return int(ticks[0]) // int(snapshot[0])


def _answer(
    sub: SubmissionRecords,
    names: BytesExports,
    data: bytes,
    extra: tuple[int, ...],
    where: Location,
    work: Work | None,
    check: Callable[[bytes], Checked],
) -> Checked:
    """One sandboxed call's output as `check` reads it (raising when it is junk), or the
    same call's from an earlier session, checked again. Only an output `check` accepted
    is kept, and a kept one that no longer checks out is forgotten."""
    key = answer_cache.answer_key(sub.digest, f"{names} {sub.limits}", data, extra)
    output = answer_cache.load(key)
    if output is not None:
        try:
            return check(output)
        except UserError:
            answer_cache.forget(key)
            raise
    run = call_bytes(sub.module, names, data, extra=extra, limits=sub.limits, work=work)
    if run.outcome is not None:
        raise UserError(f"the submission failed ({run.outcome.value}): {run.detail}", where)
    output = run.output or b""
    answer = check(output)
    answer_cache.save(key, output)
    return answer
