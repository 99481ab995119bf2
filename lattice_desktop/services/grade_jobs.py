"""Grading jobs as the app queues them: which submission against which case, the demo's
samples, and the worker side of one job (read the case, grade, store)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path

from lattice_desktop.manifest import Submission, load_case, load_submission
from lattice_desktop.resources import CASES
from lattice_desktop.sandbox.engine import WASMTIME_VERSION
from lattice_desktop.services.grading import StoredGrade, grade_and_store
from lattice_desktop.store.queries import settled_modules
from lattice_desktop.store.writer import Writer
from lattice_desktop.work import Work


@dataclass(frozen=True)
class GradeJob:
    """One submission to grade against one case. `allow_build` only after the user saw
    and confirmed the build commands."""

    case_path: Path
    submission: Submission
    allow_build: bool = False
    allow_unisolated: bool = False  # only after a second confirmation that named the reason

    @property
    def label(self) -> str:
        return f"{self.submission.name} · {self.submission.model}"


def shipped_module_job(case_path: Path, submission: Submission) -> GradeJob:
    """Grade the module a submission ships, without running its build commands."""
    return GradeJob(case_path, replace(submission, commands=()), allow_build=False)


def sample_jobs(case_path: Path, samples_dir: Path | None) -> list[GradeJob]:
    """The case's sample submissions that can be graded without building anything."""
    jobs: list[GradeJob] = []
    if samples_dir is None or not samples_dir.is_dir():
        return jobs
    for folder in sorted(p for p in samples_dir.iterdir() if (p / "submission.toml").is_file()):
        submission = load_submission(folder)
        if submission.module_path.is_file():
            jobs.append(shipped_module_job(case_path, submission))
    return jobs


def demo_cases(case_path: Path) -> list[Path]:
    """The cases a demo grades: the given one and, when it is a bundled case, every other
    bundled case after it (the first start shows each kind of case the app ships)."""
    path = case_path.resolve()
    if not path.is_relative_to(CASES.resolve()):
        return [case_path]
    others = [p for p in sorted(CASES.glob("*/case.toml")) if p.resolve() != path]
    return [case_path, *others]


def demo_jobs(case_path: Path) -> list[GradeJob]:
    """The sample submissions of the demo's cases (read on a worker: hashing inputs takes a while)."""
    jobs: list[GradeJob] = []
    for path in demo_cases(case_path):
        case = load_case(path)
        jobs += sample_jobs(case.path, case.samples_dir)
    return jobs


def unfinished_demo_jobs(case_path: Path) -> list[GradeJob]:
    """The demo's samples that no finished run of their case content has graded yet: what a
    first-start demo cut short (the app closed mid-way) still has to grade. A run that was
    cancelled, interrupted or failed inside Lattice Desktop does not count as graded; a
    hidden one does (the user has seen it). Read on a worker: it hashes the cases."""
    jobs: list[GradeJob] = []
    for path in demo_cases(case_path):
        case = load_case(path)
        graded = settled_modules(case.manifest_hash, WASMTIME_VERSION)
        jobs += [
            job
            for job in sample_jobs(case.path, case.samples_dir)
            if hashlib.sha256(job.submission.module_path.read_bytes()).hexdigest() not in graded
        ]
    return jobs


def run_job(job: GradeJob, writer: Writer, *, work: Work | None = None, workers: int = 2) -> StoredGrade:
    """The worker side: read the case (hashing its inputs can take a while), grade, store
    with `workers` threads."""
    case = load_case(job.case_path)
    return grade_and_store(
        case,
        job.submission,
        writer=writer,
        allow_build=job.allow_build,
        allow_unisolated=job.allow_unisolated,
        work=work,
        workers=workers,
    )
