"""`case build`: a case's answers and figures, made from its sources alone.

The build works on a copy of the case folder (a stage), so a failed build leaves the case
as it was and `--check` can compare without writing: run the input generator, compile the
reference, samples and slips from their sources, run the reference in the sandbox (the
grader's own runner) on every input, write its answers, calibrate the ceiling and runways
from its fuel (calibrate.py), write those into case.toml, and load the result as the grader
would. Then every file of the stage that differs from the case is the build's change: it
is copied back, or with `check` only listed.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import tomli

from lattice_desktop.casekit.calibrate import Figures, calibrate
from lattice_desktop.casekit.compile import compile_submission
from lattice_desktop.casekit.kit_file import Kit, read_kit
from lattice_desktop.casekit.manifest_figures import with_figures
from lattice_desktop.errors import Location, ManifestProblems, UserError
from lattice_desktop.grading.grader import compile_for_case
from lattice_desktop.manifest import CaseEntry, CaseManifest, load_case, load_submission
from lattice_desktop.sandbox.compiler import CompiledModule
from lattice_desktop.sandbox.runner import execute
from lattice_desktop.work import Work

REFERENCE_BUDGET = 2**62  # the reference is measured, not judged: only the wall clock stops it
NOT_COPIED = ("__pycache__", ".zig-cache", "zig-cache", "*.pyc")
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


def build_case(
    folder: Path, *, check: bool = False, work: Work | None = None, say: Callable[[str], None] = print
) -> BuildReport:
    """Build the case in `folder` (which holds case.toml and kit.toml); with `check`, only
    list what a build would change."""
    folder = folder.resolve()
    if not (folder / "kit.toml").is_file():
        raise UserError(
            f"{folder}: no kit.toml, so there is nothing to build from "
            "(`lattice-desktop case new` makes a case that has one; docs/case-authoring.md)"
        )
    with tempfile.TemporaryDirectory(prefix="case-build-") as tmp:
        stage = Path(tmp) / folder.name
        shutil.copytree(folder, stage, ignore=shutil.ignore_patterns(*NOT_COPIED))
        try:
            figures, measured = _build_stage(stage, work or Work(), say)
        except UserError as exc:
            raise _relocated(exc, stage, folder) from None
        changed = _differences(stage, folder)
        if not check:
            for rel in changed:
                target = folder / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(stage / rel, target)
    return BuildReport(figures, measured, tuple(changed))


def _build_stage(stage: Path, work: Work, say: Callable[[str], None]) -> tuple[Figures, tuple[Measured, ...]]:
    kit = read_kit(stage / "kit.toml")
    if kit.generator is not None:
        _generate(kit.generator, stage)
    _placeholders(stage / "case.toml")
    case = load_case(stage / "case.toml")
    for submission in _own_submissions(kit, case):
        compile_submission(submission)
    module = _compiled_reference(kit, case, work)
    measured = tuple(_answer(case, entry, module, work, say) for entry in case.cases)
    stress = [m for m in measured if m.kind == "stress"]
    if not stress:
        raise UserError("the case declares no stress case, so there is no fuel to calibrate", _at(case))
    fuel = [m.fuel for m in stress]
    figures = calibrate([m.size for m in stress], fuel, fuel, kit.rule)
    note = f"case build: {kit.rule.headroom:g} × the reference's most fuel on a stress case, rounded up"
    text = with_figures(
        case.path.read_text(),
        figures.ceiling,
        {m.name: (r, m.fuel) for m, r in zip(stress, figures.runways, strict=True)},
        note=note,
    )
    case.path.write_text(text)
    load_case(case.path)  # what the grader will read: the figures must fit its limits
    return figures, measured


def _generate(generator: Path, stage: Path) -> None:
    """Run the case's input generator in the stage (it writes the stress inputs)."""
    try:
        done = subprocess.run(
            [sys.executable, generator.name],
            check=False,
            cwd=generator.parent,
            capture_output=True,
            text=True,
            timeout=GENERATOR_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        raise UserError(f"ran past {GENERATOR_TIMEOUT_S} s", Location(str(generator))) from None
    if done.returncode != 0:
        log = (done.stdout + done.stderr).strip()[-2000:]
        raise UserError(
            f"the input generator failed (exit {done.returncode}):\n{log}", Location(str(generator))
        )


def _placeholders(manifest: Path) -> None:
    """An empty file for each expected answer not written yet, so the manifest loads; the
    reference's answer replaces it below."""
    try:
        cases = tomli.loads(manifest.read_text()).get("case", [])
    except (OSError, tomli.TOMLDecodeError):
        return  # load_case says what is wrong, with the line
    for entry in cases if isinstance(cases, list) else []:
        name = entry.get("expected_file") if isinstance(entry, dict) else None
        if isinstance(name, str) and name.strip():
            path = (manifest.parent / name).resolve()
            if manifest.parent.resolve() in path.parents and not path.exists():
                path.parent.mkdir(parents=True, exist_ok=True)
                path.touch()


def _own_submissions(kit: Kit, case: CaseManifest) -> list[Path]:
    """The reference, the samples and the slips: every submission the case ships."""
    found = [kit.reference, *(slip.folder for slip in kit.slips)]
    if case.samples_dir is not None and case.samples_dir.is_dir():
        found += sorted(p for p in case.samples_dir.iterdir() if (p / "submission.toml").is_file())
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
    if case.contract.output == "u64-list" and len(run.output) % 8:
        raise UserError(
            f"the reference's answer to '{entry.name}' is {len(run.output)} bytes, not a list of u64",
            _at(case),
        )
    if entry.expected_path is not None:
        entry.expected_path.write_bytes(run.output)
    elif run.output != _inline_expected(case, entry):
        raise UserError(
            f"case '{entry.name}': the reference answers {_shown(case, run.output)}, "
            f"the manifest expects {_shown(case, _inline_expected(case, entry))}",
            _at(case),
        )
    fuel = run.fuel or 0
    say(f"{entry.kind:<6} {entry.name:<32} size {entry.size:>9,}  reference {fuel:>15,} fuel")
    return Measured(entry.name, entry.kind, entry.size, fuel)


def _inline_expected(case: CaseManifest, entry: CaseEntry) -> bytes:
    if case.contract.abi == "scalar":
        return b"".join((v % 2**64).to_bytes(8, "little") for v in entry.scalar_expected)
    return entry.expected_bytes()


def _shown(case: CaseManifest, data: bytes) -> str:
    if case.contract.output == "u64-list" and len(data) % 8 == 0:
        return str([int.from_bytes(data[i : i + 8], "little") for i in range(0, len(data), 8)][:8])
    return repr(data[:64])


def _at(case: CaseManifest) -> Location:
    return Location(str(case.path))


def _differences(stage: Path, folder: Path) -> list[str]:
    """The stage's files whose bytes the case folder does not hold yet."""
    out = []
    for path in sorted(stage.rglob("*")):
        rel = path.relative_to(stage)
        if path.is_file() and not any(part in NOT_COPIED or part.endswith(".pyc") for part in rel.parts):
            target = folder / rel
            if not target.is_file() or target.read_bytes() != path.read_bytes():
                out.append(str(rel))
    return out


def _relocated(exc: UserError, stage: Path, folder: Path) -> UserError:
    """The error with the stage's paths named as the case's own."""
    where = exc.location
    if where.file is None or isinstance(exc, ManifestProblems):  # several locations: all in its text
        return UserError(str(exc).replace(str(stage), str(folder)))
    message = exc.message.replace(str(stage), str(folder))
    return UserError(message, replace(where, file=where.file.replace(str(stage), str(folder))))
