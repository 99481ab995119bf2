"""The runway of the bundled case: a correct engine four times as slow as the reference
gets a reading (over the ceiling), and running out of runway is its own reason."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lattice_desktop.cli.main import main
from lattice_desktop.grading.grader import grade
from lattice_desktop.lattice.build_engines import COMPILE_ARGS, ENGINES_DIR
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Outcome, Verdict
from lattice_desktop.resources import demo_case

FOUR_TIMES = Path(__file__).resolve().parents[1] / "lattice" / "engines" / "four_times.c"
KEEP = ("stress-64", "stress-128")  # the two cheapest stress cases


@pytest.fixture(scope="module")
def four_times(tmp_path_factory) -> Path:
    """The reference's simulation run four times over: exactly 4x its fuel, same answers."""
    folder = tmp_path_factory.mktemp("four_times")
    shutil.copyfile(FOUR_TIMES, folder / "engine.c")
    for name in ("reference.c", "lattice_common.h"):
        shutil.copyfile(ENGINES_DIR / name, folder / name)
    args = [a for a in COMPILE_ARGS if a != "-Wl,--export=lattice_run"]
    subprocess.run([sys.executable, *args], cwd=folder, check=True)
    (folder / "submission.toml").write_text(
        '[submission]\nmodel = "four-times"\n\n[build]\nmodule = "engine.wasm"\n'
    )
    return folder


def small_case(tmp_path: Path, *, runway: str | None = None) -> Path:
    """The bundled case with its smoke tests and only its two smallest stress cases."""
    source = demo_case().parent
    folder = tmp_path / "lattice"
    shutil.copytree(source, folder, ignore=shutil.ignore_patterns("submissions"))
    head, *blocks = (folder / "case.toml").read_text().split("[[case]]")
    kept = [b for b in blocks if 'kind = "smoke"' in b or any(f'name = "{n}"' in b for n in KEEP)]
    if runway is not None:
        kept = [b.replace("fuel_runway = ", f"fuel_runway = {runway}\n# was ") for b in kept]
    (folder / "case.toml").write_text("[[case]]".join([head, *kept]))
    return folder / "case.toml"


def test_every_stress_runway_covers_four_times_the_reference():
    # The reference's fuel as the grader meters it, recorded by the builder in case.toml.
    case = load_case(demo_case())
    text = demo_case().read_text()
    for entry in case.stress:
        block = text.split(f'name = "{entry.name}"')[1].split("[[case]]")[0]
        reference = int(block.split("reference: ")[1].split(" fuel")[0].replace(",", ""))
        assert case.budget(entry) >= 4 * reference, entry.name
    runways = [e.fuel_runway for e in case.stress]
    assert runways == sorted(runways, reverse=True) and len(set(runways)) == len(runways)


def test_four_times_the_reference_is_a_reading_not_incorrect(tmp_path, four_times):
    case = load_case(small_case(tmp_path))
    report = grade(case, load_submission(four_times))
    by_name = {r.name: r for r in report.results}
    assert all(by_name[e.name].outcome is Outcome.PASS for e in case.smoke)
    assert by_name["stress-128"].outcome is Outcome.OVER_CEILING
    assert by_name["stress-128"].fuel > case.sandbox.fuel_limit
    assert report.verdict is Verdict.OVER_CEILING


def test_exhausting_the_runway_is_its_own_reason(tmp_path, four_times, capsys):
    case_path = small_case(tmp_path, runway="2")
    case = load_case(case_path)
    report = grade(case, load_submission(four_times))
    short = next(r for r in report.results if r.name == "stress-128")
    assert short.outcome is Outcome.OUT_OF_FUEL and short.outcome.label == "runway exhausted"
    budget = f"{2 * case.sandbox.fuel_limit:,} fuel"  # the ceiling × the runway of 2
    assert short.detail.startswith(f"exhausted the runway at 2× the ceiling ({budget})")
    assert short.mismatch is None
    assert report.verdict is Verdict.INCORRECT
    assert main(["grade", str(four_times), "--case", str(case_path), "--db", str(tmp_path / "db")]) == 1
    out = capsys.readouterr().out
    assert "runway exhausted" in out and "wrong answer" not in out
    assert (
        f"why: stress-128 exhausted the runway at 2× the ceiling ({budget}), before giving an answer" in out
    )


def test_the_runway_rule_covers_four_times_the_hardest_need_and_shrinks_with_size():
    from lattice_desktop.lattice.case_builder import runways_for

    reference = [4 * 10**8, 3 * 10**9, 5 * 10**10]
    runways = runways_for(reference, ceiling=10**9)
    assert runways[-1] * 10**9 >= 4 * max(reference)
    assert runways == sorted(runways, reverse=True) and len(set(runways)) == 3
    assert runways_for([10**6], ceiling=10**9) == [1.0]  # never below 1
