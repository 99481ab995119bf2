"""A stored run's (or a submission's) fuel profile on one case: made once, then read back.

The profile is keyed by the module's hash, the case's content hash and the case name, so
a second request (the CLI again, the app's Profile view, another run of the same module)
opens the stored one at once.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from lattice_desktop.errors import UserError
from lattice_desktop.manifest.case import CaseEntry, CaseManifest, load_case
from lattice_desktop.manifest.submission import load_submission
from lattice_desktop.profile.model import Profile
from lattice_desktop.profile.run import ProfileRefused, largest_stress, profile_case
from lattice_desktop.resources import resolve_case_path
from lattice_desktop.sandbox.build import load_shipped_module
from lattice_desktop.sandbox.engine import WASMTIME_VERSION
from lattice_desktop.store.profiles import load_profile, save_profile
from lattice_desktop.store.queries import StoredRun, load_run
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

    @property
    def module_sha256(self) -> str:
        return hashlib.sha256(self.wasm).hexdigest()


def run_target(run: StoredRun | int, case_name: str | None = None) -> ProfileTarget:
    """A stored run's module on `case_name` (default: its case's largest stress case)."""
    stored = load_run(run) if isinstance(run, int) else run
    if stored is None:
        raise UserError(f"there is no run {run} (see `lattice-desktop runs`)")
    case = load_case(stored.manifest_path)
    entry = _entry(case, case_name)
    wasm = _module(stored.submission_path, case)
    digest = hashlib.sha256(wasm).hexdigest()
    if stored.module_sha256 is not None and digest != stored.module_sha256:
        raise UserError(
            f"the module at {stored.submission_path} has changed since run {stored.id} was graded "
            f"(sha256 {digest[:12]}…, the run's {stored.module_sha256[:12]}…); grade it again to profile it"
        )
    graded = next((r.fuel for r in stored.results if r.name == entry.name), None)
    if case.manifest_hash != stored.manifest_hash:
        graded = None  # the case changed since: its figure is not this content's
    return ProfileTarget(wasm, case, entry, graded, f"run {stored.id} · {stored.summary.submission}")


def submission_target(submission_path: str, case_path: str, case_name: str | None = None) -> ProfileTarget:
    """A submission's shipped module on a case file's `case_name` (default: largest stress)."""
    case = load_case(resolve_case_path(case_path))
    entry = _entry(case, case_name)
    wasm = _module(submission_path, case)
    return ProfileTarget(wasm, case, entry, None, load_submission(submission_path).name)


def stored_profile(target: ProfileTarget) -> Profile | None:
    """The profile already stored for `target`, if any (a read; any thread)."""
    found = load_profile(target.module_sha256, target.case.manifest_hash, target.entry.name, WASMTIME_VERSION)
    return None if found is None else found.with_graded(target.graded_fuel)


def profile_target(target: ProfileTarget, *, writer: Writer | None, work: Work | None = None) -> Profile:
    """The stored profile, or a new one made in the sandbox and stored through `writer`."""
    found = stored_profile(target)
    if found is not None:
        return found
    try:
        profile = profile_case(target.wasm, target.case, target.entry, work=work)
    except ProfileRefused as exc:
        raise UserError(f"{target.label} cannot be profiled on {target.entry.name}: {exc}") from None
    if writer is not None:
        writer.call(save_profile, profile)
    return profile.with_graded(target.graded_fuel)


def run_profile(
    run_id: int, case_name: str | None, writer: Writer | None, make: bool, *, work: Work | None = None
) -> Profile | None:
    """For the app: a run's stored profile on `case_name`, or (with `make`) a new one."""
    target = run_target(run_id, case_name)
    return profile_target(target, writer=writer, work=work) if make else stored_profile(target)


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
