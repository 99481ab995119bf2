"""Build one mutant and judge it: against every smoke test, then the stress cases smallest
first until one fails, then (only if nothing failed it) on generated inputs.

The reference runs on every smoke test and generated input up front (they are small), but
on a stress case only when the first mutant reaches it, once per process: a run whose
mutants all fail a small stress case never pays for the reference on the largest.

Runs in a worker process as well as in the caller's: everything it needs comes in a
`Setup` (plain data, so it can be sent to a process) and it answers with a `Verdict`.
A mutant is built like the reference — its [build] commands in a folder of its own, with
the kit's compiler, under a time limit — and graded in the grader's sandbox, on a fuel
budget that is a multiple of the reference's on the same input, so a mutant that loops
runs out of fuel and counts as failing that input.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from lattice_desktop.casekit.compile import compile_submission
from lattice_desktop.casekit.mutants.operators import Mutant
from lattice_desktop.errors import UserError
from lattice_desktop.grading.grader import compile_for_case
from lattice_desktop.manifest import CaseManifest, load_case
from lattice_desktop.sandbox.compiler import CompiledModule
from lattice_desktop.sandbox.runner import execute
from lattice_desktop.work import Work

BUILD_TIMEOUT_S = 120
SMOKE_FUEL = (20, 2_000_000)  # budget = 20 × the reference's fuel + 2 M
STRESS_FUEL = (4, 2_000_000)
KILLED_BY_SMOKE = "killed_by_smoke"
KILLED_BY_STRESS = "killed_only_by_stress"
SURVIVED = "survived"
EQUIVALENT = "equivalent"
STILLBORN = "stillborn"  # did not build: not a mutant the tests could see


@dataclass(frozen=True)
class Expected:
    """The reference on one input: its answer and its fuel."""

    name: str
    output: bytes
    fuel: int


@dataclass(frozen=True)
class Setup:
    case_path: Path
    reference: Path
    smoke: tuple[Expected, ...]
    stress: tuple[str, ...]  # the stress cases' names, smallest first (run on demand)
    samples: tuple[tuple[bytes, Expected], ...]  # generated input, the reference on it
    code_hash: str  # the reference's code sections
    wasm: bytes  # the reference as built, for its stress runs


@dataclass(frozen=True)
class Verdict:
    key: str
    status: str
    smoke: tuple[str, ...] = ()  # the smoke tests that fail it
    stress: str = ""  # the first stress case that fails it
    samples: int = 0  # generated inputs it was compared on
    differs_on: int = -1  # the first generated input it answers otherwise, -1 if none
    detail: str = ""


def code_hash(wasm: bytes) -> str:
    """A hash of the module's sections but its custom ones (names, DWARF): two builds
    with the same code hash run the same instructions."""
    h = hashlib.sha256()
    at = 8
    while at < len(wasm):
        section = wasm[at]
        size, width = _leb(wasm, at + 1)
        body_end = at + 1 + width + size
        if section != 0:
            h.update(wasm[at:body_end])
        at = body_end
    return h.hexdigest()


def _leb(data: bytes, at: int) -> tuple[int, int]:
    value = shift = width = 0
    while True:
        byte = data[at + width]
        value |= (byte & 0x7F) << shift
        shift += 7
        width += 1
        if byte < 0x80:
            return value, width


def build(reference: Path, sources: dict[str, str], into: Path) -> bytes:
    """Stage the reference's folder with `sources` in place of its own, build it there."""
    for p in reference.iterdir():
        if p.is_file() and p.suffix != ".wasm":
            shutil.copyfile(p, into / p.name)
    for name, text in sources.items():
        (into / name).write_text(text)
    return compile_submission(into, timeout_s=BUILD_TIMEOUT_S).read_bytes()


def reference_setup(
    case: CaseManifest, reference: Path, sources: dict[str, str], samples: list[bytes], work: Work
) -> Setup:
    """Build the reference from its sources and run it on every smoke test and sample (on
    the stress cases later, as `reference_on` is asked)."""
    with tempfile.TemporaryDirectory(prefix="mutant-reference-") as tmp:
        wasm = build(reference, sources, Path(tmp))

    def run(name: str, data: bytes) -> Expected:
        return _reference_run(case, reference, wasm, name, data, work)

    stress = sorted(case.stress, key=lambda e: (e.size, e.name))
    return Setup(
        case_path=case.path,
        reference=reference,
        smoke=tuple(run(e.name, e.input_bytes()) for e in case.smoke),
        stress=tuple(e.name for e in stress),
        samples=tuple((data, run(f"generated input {i}", data)) for i, data in enumerate(samples)),
        code_hash=code_hash(wasm),
        wasm=wasm,
    )


def _reference_run(
    case: CaseManifest, reference: Path, wasm: bytes, name: str, data: bytes, work: Work
) -> Expected:
    module = _module(case, wasm, work)  # compiled once: the module cache keeps it
    if isinstance(module, str):
        raise UserError(f"{reference}: the reference cannot be graded: {module}")
    entry = case.cases[0]
    done = execute(
        module.module, case.contract, case.sandbox, entry, budget=2**62, work=work, input_bytes=data
    )
    if done.outcome is not None or done.output is None:
        raise UserError(f"{reference}: the reference fails on {name}: {done.detail}")
    return Expected(name, done.output, done.fuel or 0)


_STRESS: dict[tuple[str, str, str], Expected] = {}  # (reference's code, case's content, name) -> run


def reference_on(setup: Setup, case: CaseManifest, name: str, work: Work) -> Expected:
    """The reference on stress case `name`: run the first time this process asks."""
    key = (setup.code_hash, case.manifest_hash, name)
    if key not in _STRESS:
        data = next(e for e in case.stress if e.name == name).input_bytes()
        _STRESS[key] = _reference_run(case, setup.reference, setup.wasm, name, data, work)
    return _STRESS[key]


def _module(case: CaseManifest, wasm: bytes, work: Work) -> CompiledModule | str:
    compiled = compile_for_case(case, wasm, work)
    if isinstance(compiled, CompiledModule):
        return compiled
    outcome, detail = compiled
    return f"{outcome.label}: {detail}"


_CASES: dict[Path, CaseManifest] = {}


def judge(setup: Setup, mutant: Mutant, sources: dict[str, str], work: Work | None = None) -> Verdict:
    work = work or Work()
    key = mutant.key
    with tempfile.TemporaryDirectory(prefix="mutant-") as tmp:
        try:
            wasm = build(setup.reference, mutant.apply(sources), Path(tmp))
        except UserError as exc:
            return Verdict(key, STILLBORN, detail=str(exc).splitlines()[-1][:300])
    code = code_hash(wasm)
    if code == setup.code_hash:
        return Verdict(key, EQUIVALENT, detail="compiles to the reference's own code")
    case = _CASES.get(setup.case_path) or _CASES.setdefault(setup.case_path, load_case(setup.case_path))
    seen = (setup.code_hash, case.manifest_hash, code)
    if seen not in _GRADED:  # two mutants that build to the same code get the same verdict
        _GRADED[seen] = _grade(setup, case, wasm, work)
    return replace(_GRADED[seen], key=key)


_GRADED: dict[tuple[str, str, str], Verdict] = {}  # (reference's code, case's content, mutant's code)


def _grade(setup: Setup, case: CaseManifest, wasm: bytes, work: Work) -> Verdict:
    """The verdict on a built mutant that is not the reference's own code (its key left blank)."""
    key = ""
    module = _module(case, wasm, work)
    if isinstance(module, str):
        first = setup.stress[0] if setup.stress else ""  # a module refused fails every case
        return Verdict(key, KILLED_BY_SMOKE, tuple(e.name for e in setup.smoke), first, detail=module)
    entries = {e.name: e for e in case.cases}

    def fails(expected: Expected, data: bytes, fuel: tuple[int, int]) -> bool:
        budget = expected.fuel * fuel[0] + fuel[1]
        entry = case.cases[0]
        done = execute(
            module.module,
            case.contract,
            case.sandbox,
            entry,
            budget=budget,
            work=work,
            input_bytes=data,
            keep_output=len(expected.output) + 8,
        )
        return done.outcome is not None or done.output != expected.output

    smoke = tuple(e.name for e in setup.smoke if fails(e, entries[e.name].input_bytes(), SMOKE_FUEL))
    stress = next(
        (
            name
            for name in setup.stress
            if fails(reference_on(setup, case, name, work), entries[name].input_bytes(), STRESS_FUEL)
        ),
        "",
    )
    if smoke:
        return Verdict(key, KILLED_BY_SMOKE, smoke, stress)
    if stress:
        return Verdict(key, KILLED_BY_STRESS, smoke, stress)
    for i, (data, expected) in enumerate(setup.samples):
        if fails(expected, data, SMOKE_FUEL):
            return Verdict(key, SURVIVED, samples=i + 1, differs_on=i)
    return Verdict(key, EQUIVALENT, samples=len(setup.samples))
