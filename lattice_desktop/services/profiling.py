"""A stored run's (or a submission's) fuel profile on one case: made once, then read back.

The profile is keyed by the module's hash, the case's content hash and the case name, so
a second request (the CLI again, the app's Profile view, another run of the same module)
opens the stored one at once, once it checks out: a row whose figures do not hold together,
or whose total is not the graded fuel, is made again.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lattice_desktop.errors import Location, UserError
from lattice_desktop.manifest.case import CaseEntry, CaseManifest, load_case
from lattice_desktop.manifest.submission import load_submission
from lattice_desktop.profile.bounds import Bounds, TooLarge
from lattice_desktop.profile.instrument import Instrumented, instrument
from lattice_desktop.profile.model import Profile
from lattice_desktop.profile.run import ProfileRefused, largest_stress, profile_case
from lattice_desktop.profile.source_files import source_path, source_text
from lattice_desktop.profile.stored_form import BadProfile
from lattice_desktop.resources import resolve_case_path
from lattice_desktop.sandbox.build import load_shipped_module
from lattice_desktop.sandbox.engine import WASMTIME_VERSION
from lattice_desktop.store.profiles import load_profile, save_profile
from lattice_desktop.store.queries import StoredRun, load_run
from lattice_desktop.store.run_numbers import GRADED, no_such_run
from lattice_desktop.store.writer import Writer
from lattice_desktop.work import Work


@dataclass(frozen=True)
class ProfileTarget:
    """What to profile: a module's bytes on one case entry, and the grader's figure for it."""

    wasm: bytes
    case: CaseManifest
    entry: CaseEntry
    graded_fuel: int | None
    label: str  # "run 12 · lines" or the submission's name
    graded_digest: str | None = None  # the grader's SHA-256 of the answer, when known
    source_root: str | None = None  # the submission's folder: where its source files are

    def source_path(self, name: str) -> str:
        """Where a line table's file is, for a profiler to open: under the submission's
        folder when it is there (read as the module is), else the name as the table gives it."""
        return source_path(self.source_root, name)

    @property
    def module_sha256(self) -> str:
        return hashlib.sha256(self.wasm).hexdigest()


def run_target(run: StoredRun | int, case_name: str | None = None) -> ProfileTarget:
    """A stored run's module on `case_name` (default: its case's largest stress case)."""
    stored = load_run(run) if isinstance(run, int) else run
    if stored is None:
        assert isinstance(run, int)  # a StoredRun is its own run
        raise UserError(no_such_run(run, command="profile", takes=GRADED))
    case = load_case(stored.manifest_path)
    entry = _entry(case, case_name)
    if not os.path.lexists(stored.submission_path):
        raise UserError(
            f"run {stored.id}'s submission folder is gone, and profiling runs its module again: "
            "grade the submission where it is now and profile that run",
            Location(stored.submission_path),
        )
    wasm = _module(stored.submission_path, case)
    digest = hashlib.sha256(wasm).hexdigest()
    if stored.module_sha256 is not None and digest != stored.module_sha256:
        raise UserError(
            f"the module at {stored.submission_path} has changed since run {stored.id} was graded "
            f"(sha256 {digest[:12]}…, the run's {stored.module_sha256[:12]}…); grade it again to profile it"
        )
    result = next((r for r in stored.results if r.name == entry.name), None)
    if result is None or case.manifest_hash != stored.manifest_hash:
        result = None  # the case changed since: its figures are not this content's
    label = f"run {stored.id} · {stored.summary.submission}"
    root = _folder(stored.submission_path)
    if result is None:
        return ProfileTarget(wasm, case, entry, None, label, source_root=root)
    return ProfileTarget(wasm, case, entry, result.fuel, label, result.output_digest, root)


def submission_target(submission_path: str, case_path: str, case_name: str | None = None) -> ProfileTarget:
    """A submission's shipped module on a case file's `case_name` (default: largest stress)."""
    case = load_case(resolve_case_path(case_path))
    entry = _entry(case, case_name)
    wasm = _module(submission_path, case)
    folder = load_submission(submission_path).folder  # resolved: the sources are read from it
    return ProfileTarget(wasm, case, entry, None, folder.name, source_root=str(folder))


def stored_profile(target: ProfileTarget, *, bad: Callable[[str], None] | None = None) -> Profile | None:
    """The profile already stored for `target`, if any and if it checks out (a read; any
    thread). A row that does not is not returned; `bad` hears why."""
    key = (target.module_sha256, target.case.manifest_hash, target.entry.name, WASMTIME_VERSION)
    try:
        found = load_profile(*key)
    except BadProfile as exc:
        problem: str | None = str(exc)
    else:
        if found is None:
            return None
        problem = _graded_problem(found, target)
        if problem is None:
            return found.with_graded(target.graded_fuel)
    if bad is not None and problem is not None:
        bad(problem)
    return None


def _graded_problem(profile: Profile, target: ProfileTarget) -> str | None:
    """A stored profile of a run that returned must total the graded fuel."""
    if target.graded_fuel is not None and profile.complete and profile.total != target.graded_fuel:
        return f"the stored profile's total {profile.total:,} is not the graded {target.graded_fuel:,} fuel"
    return None


# Instrumented modules a caller keeps while it profiles one module on many cases (compare
# does, once per case that changed): instrumenting depends on the module and the case's
# bounds only, not on the case entry, and costs as much as profiling a small case.
Instrumentations = dict[tuple[str, Bounds], Instrumented]


def profile_target(
    target: ProfileTarget,
    *,
    writer: Writer | None,
    work: Work | None = None,
    instrumented: Instrumentations | None = None,
) -> Profile:
    """The stored profile, or a new one made in the sandbox and stored through `writer`
    (also in place of a stored row that does not check out). With `instrumented`, the
    module is instrumented once there and reused by later calls given the same dict."""
    work = work or Work()
    found = stored_profile(target, bad=lambda why: work.report(0.0, f"{why}; profiling again"))
    if found is not None:
        return found
    try:
        profile = profile_case(
            target.wasm,
            target.case,
            target.entry,
            work=work,
            graded_digest=target.graded_digest,
            instrumented=_instrumented(target, instrumented),
        )
    except ProfileRefused as exc:
        raise UserError(f"{target.label} cannot be profiled on {target.entry.name}: {exc}") from None
    if writer is not None:
        writer.call(save_profile, profile)
    return profile.with_graded(target.graded_fuel)


def _instrumented(target: ProfileTarget, kept: Instrumentations | None) -> Instrumented | None:
    """`target`'s module instrumented for its case's bounds, from `kept` or made into it
    (None without `kept`: `profile_case` instruments it itself)."""
    if kept is None:
        return None
    bounds = Bounds.of(target.case.sandbox)
    key = (target.module_sha256, bounds)
    if key not in kept:
        try:
            kept[key] = instrument(target.wasm, bounds=bounds)
        except TooLarge as exc:
            raise ProfileRefused(str(exc)) from None
    return kept[key]


def run_profile(
    run_id: int, case_name: str | None, writer: Writer | None, make: bool, *, work: Work | None = None
) -> Profile | None:
    """For the app: a run's stored profile on `case_name`, or (with `make`) a new one."""
    target = run_target(run_id, case_name)
    return profile_target(target, writer=writer, work=work) if make else stored_profile(target)


def run_sources(run_id: int | None, names: list[str]) -> dict[str, str | None]:
    """For the Source and Lines views (a read, any thread): each named source file of a
    run's submission, None where the submission's folder does not hold it readably (read
    through `profile/source_files.py`, never following a link out of the folder)."""
    stored = load_run(run_id) if run_id is not None else None
    root = _folder(stored.submission_path) if stored is not None else None
    return {name: source_text(root, name) for name in names}


def _folder(submission_path: str) -> str:
    path = Path(submission_path)
    return str(path.parent if path.is_file() else path)


def _entry(case: CaseManifest, name: str | None) -> CaseEntry:
    if name is None:
        try:
            return largest_stress(case)
        except ProfileRefused as exc:
            raise UserError(str(exc)) from None
    try:
        return case.entry(name)
    except KeyError:
        names = ", ".join(e.name for e in case.cases)
        raise UserError(f"{case.label} has no case {name!r} (its cases: {names})") from None


def _module(submission_path: str, case: CaseManifest) -> bytes:
    path = Path(submission_path)
    submission = load_submission(path)
    shipped = load_shipped_module(submission, case.sandbox.max_module_bytes)
    if shipped.module is None:
        raise UserError(f"{submission.name}: the module cannot be used: {shipped.detail}")
    return shipped.module
