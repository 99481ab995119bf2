"""Issue 35: the third-party-style engine (about twice the reference's fuel) graded on the
whole bundled case: still over the ceiling, correct on the runway, on version 4.

    python benchmarks/third_party_engine.py [--workers 2]

Builds tests/lattice/third_party/ (its submission.toml's command, in a temp folder), grades
it on every smoke test and stress case, and prints per stress case its fuel, the ratio to
the reference's fuel noted in case.toml, the ceiling, the runway budget (ceiling × runway)
and the outcome, then the verdict. Exit status 0 when the verdict is over_ceiling with
every stress case correct and within its budget, else 1.
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lattice_desktop.grading.grader import grade
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Verdict
from lattice_desktop.resources import demo_case

SOURCE = Path(__file__).resolve().parents[1] / "tests" / "lattice" / "third_party"


def build(folder: Path) -> None:
    """Copy the submission into `folder` and run its build commands there."""
    for name in ("engine.c", "submission.toml"):
        shutil.copyfile(SOURCE / name, folder / name)
    for command in load_submission(folder).commands:
        args = shlex.split(command)
        if args[0] == "python":
            args[0] = sys.executable
        subprocess.run(args, cwd=folder, check=True, timeout=300)


def reference_fuel(manifest_text: str, name: str) -> int:
    """The reference's fuel on a stress case, from the builder's note in case.toml."""
    block = manifest_text.split(f'name = "{name}"')[1].split("[[case]]")[0]
    return int(block.split("reference: ")[1].split(" fuel")[0].replace(",", ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2, help="threads running cases")
    args = parser.parse_args(argv)
    case = load_case(demo_case())
    text = demo_case().read_text()
    with tempfile.TemporaryDirectory(prefix="third-party-") as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        build(folder)
        built = time.perf_counter() - start
        start = time.perf_counter()
        report = grade(case, load_submission(folder), workers=args.workers)
        graded = time.perf_counter() - start
    ceiling = case.sandbox.fuel_limit
    print(f"case {case.label}: ceiling {ceiling:,} fuel; built in {built:.1f} s, graded in {graded:.1f} s")
    smoke = [r for r in report.results if r.kind == "smoke"]
    passed = sum(r.outcome.correct for r in smoke)
    print(f"smoke tests: {passed} of {len(smoke)} correct")
    header = (
        f"{'case':<11} {'fuel':>17} {'reference':>16} {'ratio':>6} {'ceiling':>15} "
        f"{'runway':>6} {'budget':>17} {'used':>5}  outcome"
    )
    print(header)
    ok = report.verdict is Verdict.OVER_CEILING
    for entry in case.stress:
        result = next(r for r in report.results if r.name == entry.name)
        fuel = result.fuel or 0
        reference = reference_fuel(text, entry.name)
        budget = case.budget(entry)
        ok = ok and result.outcome.correct and fuel <= budget
        print(
            f"{entry.name:<11} {fuel:>17,} {reference:>16,} {fuel / reference:>5.2f}x {ceiling:>15,} "
            f"{entry.fuel_runway:>5g}x {budget:>17,} {fuel / budget:>5.0%}  {result.outcome.label}"
        )
    print(f"verdict: {report.verdict.value} (expected {load_submission(SOURCE).expected_verdict})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
