"""`case build`: a case's answers and figures, made from its sources alone.

The build works on a stage (casebuild/stage.py), so a failed build leaves the case as it
was and `--check` can compare without writing: run the input generator, compile the
reference, samples and slips from their sources, run the reference in the sandbox (the
grader's own runner) on every input, write its answers, calibrate the ceiling and runways
from its fuel (casebuild/calibrate.py), write those into case.toml, and load the result as
the grader would. Then every file of the stage that differs from the case is the build's
change: it is copied back, or with `check` only listed.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lattice_desktop.casebuild.answers import record_answer, write_placeholders
from lattice_desktop.casebuild.calibrate import Figures, calibrate
from lattice_desktop.casebuild.manifest_figures import Runway, with_figures
from lattice_desktop.casebuild.stage import on_stage
from lattice_desktop.casekit.compile import compile_submission
from lattice_desktop.casekit.kit_file import Kit, read_kit
from lattice_desktop.casekit.reading import reading_fuel
from lattice_desktop.errors import Location, UserError
from lattice_desktop.grading.grader import compile_for_case
from lattice_desktop.manifest import CaseEntry, CaseManifest, load_case, load_submission
from lattice_desktop.sandbox.compiler import CompiledModule
from lattice_desktop.sandbox.folder_run import run_jailed
from lattice_desktop.sandbox.runner import execute
from lattice_desktop.work import Work

REFERENCE_BUDGET = 2**62  # the reference is measured, not judged: only the wall clock stops it
GENERATOR_TIMEOUT_S = 600


@dataclass(frozen=True)
class Measured:
    """The reference on one case entry."""

    name: str
    kind: str
    size: int
    fuel: int


@dataclass(frozen=True)
class BuildReport:
    figures: Figures
    measured: tuple[Measured, ...]
    changed: tuple[str, ...]  # paths relative to the case folder that differ (written unless checking)


@dataclass(frozen=True)
class CaseCode:
    """Consent to run a case's own code (always jailed), and to run it unjailed where the
    jail cannot be set up."""

    allowed: bool = False
    unisolated: bool = False


def build_case(
    folder: Path,
    *,
    check: bool = False,
    code: CaseCode = CaseCode(),
    work: Work | None = None,
    say: Callable[[str], None] = print,
) -> BuildReport:
    """Build the case in `folder` (which holds case.toml and kit.toml); with `check`, only
    list what a build would change. The case's generator and build commands run only with
    `code.allowed`, jailed."""
    if not (folder / "kit.toml").is_file():
        raise UserError(
            f"{folder.resolve()}: no kit.toml, so there is nothing to build from "
            "(`lattice-desktop case new` makes a case that has one; docs/case-authoring.md)"
        )
    if not code.allowed:
        _refuse_to_run(folder)
    (figures, measured), changed = on_stage(
        folder, lambda stage: _build_stage(stage, code, work or Work(), say), check=check
    )
    return BuildReport(figures, measured, changed)


def case_code(folder: Path) -> list[str]:
    """What of the case in `folder` is code `case build` runs: the generator, and each own
    submission's build commands."""
    kit = read_kit(folder / "kit.toml")
    found = [f"python {kit.generator.name}"] if kit.generator is not None else []
    try:
        samples = load_case(folder / "case.toml").samples_dir
    except UserError:  # its inputs are not made yet: the samples are where a case keeps them
        samples = folder.resolve() / "submissions"
    for path in _own_submissions(kit, samples):
        shown = os.path.relpath(path, folder.resolve())
        found += [f"{shown}: {command}" for command in load_submission(path).commands]
    return found


def _refuse_to_run(folder: Path) -> None:
    code = case_code(folder)
    if code:
        raise UserError(
            f"{folder.resolve()}: building this case runs its own code; it runs only when you allow "
            "it (--allow-case-code), and then jailed like a submission's build. It would run:\n  "
            + "\n  ".join(code)
        )


def _build_stage(
    stage: Path, code: CaseCode, work: Work, say: Callable[[str], None]
) -> tuple[Figures, tuple[Measured, ...]]:
    kit = read_kit(stage / "kit.toml")
    if kit.generator is not None:
        _generate(_inside(stage, kit.generator, kit), stage, code, work)
    write_placeholders(stage / "case.toml")
    case = load_case(stage / "case.toml")
    for submission in _own_submissions(kit, case.samples_dir):
        compile_submission(_inside(stage, submission, kit), allow_unisolated=code.unisolated, work=work)
    module = _compiled_reference(kit, case, work)
    measured = tuple(_answer(case, entry, module, work, say) for entry in case.cases)
    stress = [m for m in measured if m.kind == "stress"]
    if not stress:
        raise UserError("the case declares no stress case, so there is no fuel to calibrate", _at(case))
    fuel = [m.fuel for m in stress]
    reading = fuel
    if kit.reading_sample is not None:
        sample = _inside(stage, kit.reading_sample, kit)
        entries = [case.entry(m.name) for m in stress]
        reading = reading_fuel(
            sample, load_case(case.path), entries, budget=REFERENCE_BUDGET, work=work, say=say
        )
    figures = calibrate([m.size for m in stress], fuel, reading, kit.rule)
    note = f"case build: {kit.rule.headroom:g} × the reference's most fuel on a stress case, rounded up"
    sample_name = kit.reading_sample.name if kit.reading_sample is not None else None
    text = with_figures(
        case.path.read_text(),
        figures.ceiling,
        {
            m.name: Runway(r, _runway_note(m.fuel, sample_name, slow))
            for m, r, slow in zip(stress, figures.runways, reading, strict=True)
        },
        note=note,
    )
    case.path.write_text(text)
    load_case(case.path)  # what the grader will read: the figures must fit its limits
    return figures, measured


def _inside(stage: Path, path: Path, kit: Kit) -> Path:
    """`path` when it is inside the case folder (its stage); a link out of it is refused, so
    the case's code never runs on, nor writes back to, a folder outside the case."""
    if not path.resolve().is_relative_to(stage.resolve()):
        message = f"{path.name} leads outside the case folder (through a link); not run"
        raise UserError(message, Location(str(kit.path)))
    return path


def _generate(generator: Path, stage: Path, code: CaseCode, work: Work) -> None:
    """Run the case's input generator, jailed, on the stage (it writes the stress inputs)."""
    workdir = str(generator.resolve().parent.relative_to(stage.resolve()))
    command = f"{shlex.quote(sys.executable)} -I {shlex.quote(generator.name)}"
    try:
        run_jailed(
            stage,
            [command],
            where=str(generator),
            timeout=GENERATOR_TIMEOUT_S,
            workdir="" if workdir == "." else workdir,
            allow_unisolated=code.unisolated,
            work=work,
        )
    except UserError as exc:
        raise UserError(f"the input generator failed: {exc.message}", exc.location) from None


def _own_submissions(kit: Kit, samples: Path | None) -> list[Path]:
    """The reference, the samples and the slips: every submission the case ships."""
    found = [kit.reference, *(slip.folder for slip in kit.slips)]
    if samples is not None and samples.is_dir():
        found += sorted(p for p in samples.iterdir() if (p / "submission.toml").is_file())
    return sorted(set(found))


def _compiled_reference(kit: Kit, case: CaseManifest, work: Work) -> CompiledModule:
    reference = load_submission(kit.reference)
    compiled = compile_for_case(case, reference.module_path.read_bytes(), work)
    if not isinstance(compiled, CompiledModule):
        outcome, detail = compiled
        raise UserError(f"the reference cannot be graded: {outcome.label}: {detail}", _at(case))
    return compiled


def _answer(
    case: CaseManifest, entry: CaseEntry, module: CompiledModule, work: Work, say: Callable[[str], None]
) -> Measured:
    """Run the reference on one entry; write its answer, or confirm the one written inline."""
    run = execute(module.module, case.contract, case.sandbox, entry, budget=REFERENCE_BUDGET, work=work)
    if run.outcome is not None or run.output is None:
        raise UserError(f"the reference fails on '{entry.name}': {run.detail}", _at(case))
    record_answer(case, entry, run.output)
    fuel = run.fuel or 0
    say(f"{entry.kind:<6} {entry.name:<32} size {entry.size:>9,}  reference {fuel:>15,} fuel")
    return Measured(entry.name, entry.kind, entry.size, fuel)


def _runway_note(fuel: int, sample: str | None, slow: int) -> str:
    """The comment beside a runway: the fuel it was sized from."""
    if sample is None:
        return f"the reference: {fuel:,} fuel"
    return f"the reference: {fuel:,} fuel; the reading sample {sample}: {slow:,}"


def _at(case: CaseManifest) -> Location:
    return Location(str(case.path))
