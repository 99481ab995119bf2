"""Proof that each smoke test sees its own behaviour: every slip (a small wrong submission
naming the behaviour it breaks) must fail exactly the smoke tests of that behaviour.

A slip that passes one of them shows a smoke test blind to the mistake it is there for; a
slip that also fails another behaviour's test shows tests that are not isolated (or a slip
that breaks more than it says). A smoke test that no slip of its behaviour fails is unproven.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from lattice_desktop.casekit.kit_file import Slip
from lattice_desktop.grading.grader import grade
from lattice_desktop.manifest import CaseManifest, load_submission


@dataclass(frozen=True)
class SlipResult:
    name: str
    breaks: str
    should_fail: tuple[str, ...]  # the smoke tests of the behaviour it names
    failed: tuple[str, ...]  # the smoke tests it failed
    problem: str = ""  # why it could not be judged (it names no behaviour of the case)

    @property
    def blind(self) -> tuple[str, ...]:
        """Smoke tests of its behaviour that it passed: each is blind to this slip."""
        return tuple(n for n in self.should_fail if n not in self.failed)

    @property
    def stray(self) -> tuple[str, ...]:
        """Smoke tests of other behaviours that it failed."""
        return tuple(n for n in self.failed if n not in self.should_fail)

    @property
    def ok(self) -> bool:
        return not self.problem and bool(self.should_fail) and not self.blind and not self.stray


def behaviour_tests(case: CaseManifest, breaks: str) -> tuple[str, ...]:
    """The smoke tests of the behaviour `breaks` names: a smoke test's name stands for its
    behaviour; otherwise it is the behaviour's own text."""
    named = [e.behaviour for e in case.smoke if e.name == breaks]
    behaviour = named[0] if named else breaks
    return tuple(e.name for e in case.smoke if e.behaviour == behaviour)


def check_slip(case: CaseManifest, slip: Slip, *, allow_build: bool = False, workers: int = 2) -> SlipResult:
    """Run the slip on the smoke tests alone (the stress cases would tell nothing more)."""
    should = behaviour_tests(case, slip.breaks)
    name = slip.folder.name
    if not should:
        return SlipResult(
            name,
            slip.breaks,
            (),
            (),
            f"kit.toml:{slip.line}: '{slip.breaks}' names no smoke test or behaviour",
        )
    smoke_only = replace(case, cases=case.smoke)
    report = grade(smoke_only, load_submission(slip.folder), allow_build=allow_build, workers=workers)
    failed = tuple(r.name for r in report.results if not r.outcome.correct)
    return SlipResult(name, slip.breaks, should, failed)


def unexercised(case: CaseManifest, results: list[SlipResult]) -> list[str]:
    """Smoke tests that no slip of their own behaviour fails: nothing proves they see it."""
    proven = {n for r in results for n in r.failed if n in r.should_fail}
    return [e.name for e in case.smoke if e.name not in proven]
