"""The diagnosis of a stored wrong run (`lattice.explain`), for `explain` and the Results
tab: its first wrong scenario (or the one named), the first wrong tick there, and why.
Cached on disk under the run id and the case's content, so a second look is immediate."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from lattice_desktop.errors import UserError
from lattice_desktop.grading.report import CaseResult
from lattice_desktop.lattice import keyframe_cache
from lattice_desktop.lattice.explain.diagnosis import Diagnosis
from lattice_desktop.lattice.explain.find import explain_scenario
from lattice_desktop.lattice.rules import simulate
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.submission_records import open_submission, submission_checksums, submission_pairs
from lattice_desktop.manifest.case import load_case
from lattice_desktop.services.factory_opening import open_case
from lattice_desktop.store.queries import StoredRun
from lattice_desktop.work import Work

CACHE_VERSION = 1


class NotWrong(UserError):
    """The run has no wrong answer to explain."""


class NotLattice(UserError):
    """The run's case is not a Lattice factory: there is no rule of the spec to name."""


def wrong_result(run: StoredRun, case_name: str | None) -> CaseResult:
    """The scenario to explain: `case_name`, or the run's first wrong one."""
    wrong = [r for r in run.results if r.mismatch is not None]
    if case_name is not None:
        named = next((r for r in run.results if r.name == case_name), None)
        if named is None:
            names = ", ".join(r.name for r in run.results) or "none"
            raise UserError(f"run {run.id} has no case {case_name!r} (its cases: {names})")
        if named.mismatch is None:
            raise NotWrong(f"run {run.id} got {named.name} right ({named.outcome.label}): nothing to explain")
        return named
    if not wrong:
        raise NotWrong(
            f"run {run.id} has no wrong answer ({run.summary.verdict.value}): explain needs a run "
            "whose checksums differ from the expected ones"
        )
    return wrong[0]


def cache_path(run: StoredRun, case_hash: str, name: str) -> Path:
    parts = (CACHE_VERSION, run.id, run.module_sha256, run.submission_path, case_hash, name)
    key = hashlib.sha256("\0".join(map(str, parts)).encode()).hexdigest()
    return keyframe_cache.cache_dir().parent / "diagnoses" / f"{key}.json"


def explain_run(run: StoredRun, *, case_name: str | None = None, work: Work | None = None) -> Diagnosis:
    """The run's diagnosis (`NotWrong` when it has no wrong answer there); on a worker."""
    work = work or Work()
    result = wrong_result(run, case_name)
    try:
        case = load_case(run.manifest_path)
    except (UserError, OSError) as exc:
        raise UserError(f"run {run.id}'s case cannot be read: {exc}") from None
    entry = case.entry(result.name)
    data = entry.input_bytes()
    try:
        scenario = parse_scenario(data)
    except UserError as exc:
        raise NotLattice(f"{result.name} is not a Lattice scenario, so no rule can be named: {exc}") from None
    path = cache_path(run, case.manifest_hash, result.name)
    cached = _load(path, scenario.width)
    if cached is not None:
        return cached
    opened = open_case(run, case, result, work=work)
    if opened.specific:
        raise UserError(f"run {run.id} no longer matches its case: {'; '.join(opened.stale)}")
    row = opened.snapshots.first_divergence
    if row is None:
        raise NotWrong(f"run {run.id}'s checksums on {result.name} agree with the expected ones")
    sub = open_submission(run.submission_path, case, result.name)
    playback = opened.playback
    engine = playback.engine
    _, diagnosis = explain_scenario(
        data,
        case=result.name,
        agrees=row * scenario.snapshot,
        differs=(row + 1) * scenario.snapshot,
        reference_checksums=lambda d: (
            engine.run(d, work=work) if engine is not None else simulate(parse_scenario(d), work=work)
        ),
        submission_checksums=lambda d: submission_checksums(sub, d, work=work),
        reference_records=lambda t: playback.records_at(t, work),
        submission_records=lambda t: submission_pairs(sub, scenario, data, t, work=work),
        work=work,
    )
    _save(path, diagnosis)
    return diagnosis


def _load(path: Path, width: int) -> Diagnosis | None:
    try:
        return Diagnosis.from_json(json.loads(path.read_text("utf-8")), width=width)
    except (OSError, ValueError, KeyError, TypeError):
        return None  # absent or unreadable: worked out again


def _save(path: Path, diagnosis: Diagnosis) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".part{os.getpid()}")
        partial.write_text(json.dumps(diagnosis.to_json()), "utf-8")
        partial.replace(path)
    except OSError:
        pass  # a cache only saves time
