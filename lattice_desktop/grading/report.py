"""What grading produces: each case's result, the whole run's report and verdict, and the
step grading reports as it goes. Plain values: the store, the CLI, the batch and the app
read them without importing the grader itself."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from lattice_desktop.grading.compare import Mismatch
from lattice_desktop.manifest.case import CaseManifest
from lattice_desktop.manifest.submission import Submission
from lattice_desktop.outcomes import Outcome, Verdict
from lattice_desktop.sandbox import engine
from lattice_desktop.sandbox.build import BuildResult


@dataclass(frozen=True)
class CaseResult:
    name: str
    kind: str
    behaviour: str
    size: int
    outcome: Outcome
    ceiling: int
    budget: int
    fuel: int | None = None
    detail: str = ""
    trap_code: str | None = None
    frames: tuple[str, ...] = ()
    output_digest: str | None = None
    checksums: bytes | None = None  # the output, when it is a list of snapshot checksums
    mismatch: Mismatch | None = None
    snapshot_interval: int | None = None
    wall_time: float = 0.0

    @property
    def overshoot(self) -> int | None:
        """Fuel burned past the ceiling by a correct answer found on the runway."""
        if self.outcome is Outcome.OVER_CEILING and self.fuel is not None:
            return self.fuel - self.ceiling
        return None

    @property
    def percent_of_ceiling(self) -> float | None:
        return None if self.fuel is None else 100.0 * self.fuel / self.ceiling

    @property
    def is_smoke(self) -> bool:
        return self.kind == "smoke"


@dataclass
class GradeReport:
    case: CaseManifest
    submission: Submission
    module_sha256: str | None
    build: BuildResult | None
    results: list[CaseResult]
    verdict: Verdict
    started: datetime
    finished: datetime
    wasmtime_version: str = engine.WASMTIME_VERSION
    fuel_settings: str = engine.FUEL_SETTINGS
    module_from_cache: bool = False

    @property
    def stress_fuel(self) -> int | None:
        fuels = [r.fuel for r in self.results if not r.is_smoke]
        known = [f for f in fuels if f is not None]
        return sum(known) if fuels and len(known) == len(fuels) else None

    @property
    def score(self) -> int | None:
        """Total stress fuel, for a correct run only."""
        return self.stress_fuel if self.verdict is Verdict.CORRECT else None

    @property
    def overshoot(self) -> int | None:
        overs = [r.overshoot for r in self.results if r.overshoot is not None]
        return sum(overs) if overs else None

    @property
    def failed_smoke(self) -> list[CaseResult]:
        return [r for r in self.results if r.is_smoke and not r.outcome.correct]


@dataclass(frozen=True)
class GradingStep:
    """What grading reports with each step of its `Work`: the phase, `done` of `total`
    cases finished, and the case just graded."""

    phase: str  # build | compile | smoke | stress | done
    done: int
    total: int
    result: CaseResult | None = None


def verdict_of(results: Iterable[CaseResult]) -> Verdict:
    outcomes = [r.outcome for r in results]
    if Outcome.INTERNAL_ERROR in outcomes:
        return Verdict.INTERNAL_ERROR
    if Outcome.BUILD_FAILURE in outcomes:  # no module was graded: its own verdict
        return Verdict.BUILD_FAILED
    if all(o is Outcome.PASS for o in outcomes):
        return Verdict.CORRECT
    if all(o.correct for o in outcomes):
        return Verdict.OVER_CEILING
    return Verdict.INCORRECT
