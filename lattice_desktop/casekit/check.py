"""`case check`: grade a case's samples against their expected verdicts and, when the case
ships a kit, its slips against their behaviours; then say what is weak in the case.

Plain data for the command line to print. A case is sound when every sample gets the
verdict it declares, every slip fails exactly the smoke tests of its behaviour, and every
smoke test is failed by a slip of its own behaviour (the last two only where kit.toml
declares slips: a case without any is judged on its samples, as before the kit).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lattice_desktop.casekit.kit_file import Kit
from lattice_desktop.casekit.slips import SlipResult, check_slip, unexercised
from lattice_desktop.grading.grader import grade
from lattice_desktop.grading.report import GradeReport
from lattice_desktop.manifest import CaseManifest, Submission, load_submission


@dataclass(frozen=True)
class SampleResult:
    folder: Path
    expected: str | None  # None: it declares no expected verdict, so it was not graded
    report: GradeReport | None
    skipped: str = ""  # why it was not graded

    @property
    def ok(self) -> bool:
        return self.report is not None and self.report.verdict.value == self.expected


def sample_folders(case: CaseManifest) -> list[Path]:
    folder = case.samples_dir
    return sorted(p for p in (folder.iterdir() if folder else []) if (p / "submission.toml").is_file())


def check_sample(
    case: CaseManifest, folder: Path, *, allow_build: bool, workers: int, smoke_gate: bool
) -> SampleResult:
    sample: Submission = load_submission(folder)
    if sample.expected_verdict is None:
        return SampleResult(folder, None, None, "no expected_verdict in its submission.toml")
    if sample.expected_verdict == "build_failed" and not allow_build:
        return SampleResult(
            folder, "build_failed", None, "expects build_failed, which only --build can confirm"
        )
    report = grade(case, sample, allow_build=allow_build, workers=workers, smoke_gate=smoke_gate)
    return SampleResult(folder, sample.expected_verdict, report)


def check_slips(
    case: CaseManifest,
    kit: Kit | None,
    *,
    allow_build: bool,
    workers: int,
    each: Callable[[SlipResult], None] = lambda _: None,
) -> list[SlipResult]:
    results = []
    for slip in kit.slips if kit else ():
        result = check_slip(case, slip, allow_build=allow_build, workers=workers)
        each(result)
        results.append(result)
    return results


def weaknesses(
    case: CaseManifest, samples: list[SampleResult], slips: list[SlipResult], kit: Kit | None
) -> list[str]:
    """Everything weak in the case, one sentence each; empty when it is sound."""
    weak = [
        f"sample {s.folder.name} expected {s.expected}, got {s.report.verdict.value}"
        for s in samples
        if s.report is not None and not s.ok
    ]
    if kit is not None and samples and not any(s.expected == "correct" for s in samples):
        weak.append("no sample is expected to be correct: nothing shows the ceiling can be met")
    for r in slips:
        if r.problem:
            weak.append(f"slip {r.name}: {r.problem}")
        if r.blind:
            weak.append(f"slip {r.name} passes {', '.join(r.blind)}: blind to a slip of its own behaviour")
        if r.stray:
            weak.append(f"slip {r.name} also fails {', '.join(r.stray)}, of another behaviour: not isolated")
    if kit is not None:
        weak += [f"smoke test {name}: no slip of its behaviour fails it" for name in unexercised(case, slips)]
    return weak
