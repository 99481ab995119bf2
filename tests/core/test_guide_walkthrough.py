"""docs/guide.md's case-author walk-through is true on today's code: its commands make the
held-out case, `scenario stats` prints the census it quotes, the ceiling and runways it sets
follow from the fuel it quotes by the bundled case's rule, and `case check` prints the
listings it shows, at the bundled case's version. (Written when the case moved to version 3
and the guide still quoted version 2's figures and a 256² factory that no longer catches
`scale_bug`; the case's version is read from the bundle, so the next move fails here until
the guide follows.)"""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest

from lattice_desktop.cli.main import main
from lattice_desktop.lattice.case_builder import HEADROOM, _round_up, runways_for
from lattice_desktop.manifest import load_case

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "guide.md").read_text()
PART_TWO = GUIDE[GUIDE.index("## Part two") :]
PROSE = " ".join(PART_TWO.split())  # its text with the line breaks of the page undone
BUNDLED = ROOT / "resources" / "cases" / "lattice"
VERSION = load_case(BUNDLED / "case.toml").version


def commands(prefix: str) -> list[list[str]]:
    """The walk-through's command lines that start with `prefix`, as argv lists."""
    lines = [line.strip() for line in PART_TWO.splitlines() if line.startswith(f"    {prefix}")]
    return [shlex.split(line.split("#")[0])[1:] for line in lines]


def manifest_header(fuel_limit: int) -> str:
    """The guide's [meta], [contract] and [sandbox], with the given ceiling."""
    (toml,) = re.findall(r"```toml\n(.*?)```", PART_TWO, re.DOTALL)
    header = toml[: toml.index("[[case]]")]
    return re.sub(r"fuel_limit = .*", f"fuel_limit = {fuel_limit:_}", header)


def stress_blocks(runways: dict[int, int] | None) -> str:
    """One [[case]] per held-out file, as the guide's example writes them."""
    out = []
    for path in sorted(Path("heldout").glob("*.lat")):
        width, height = map(int, path.stem.rsplit("-", 1)[1].split("x"))
        runway = f"fuel_runway = {runways[width]}\n" if runways else ""
        out.append(
            f'[[case]]\nname = "{path.stem}"\nkind = "stress"\ninput_file = "heldout/{path.name}"\n'
            f'expected_file = "heldout/{path.stem}.u64"\n{runway}size = {width * height}\n'
        )
    return "\n".join(out)


def write_manifest(fuel_limit: int, runways: dict[int, int] | None) -> None:
    bundled = (BUNDLED / "case.toml").read_text()
    smoke = [b for b in bundled.split("[[case]]")[1:] if 'kind = "smoke"' in b]
    text = manifest_header(fuel_limit) + "".join(f"[[case]]{b.rstrip()}\n\n" for b in smoke)
    Path("case.toml").write_text(text + stress_blocks(runways))


def stress_fuel(sample: str, capsys) -> dict[str, tuple[int, int]]:
    """Each stress case's (fuel, width) for a sample graded against ./case.toml."""
    capsys.readouterr()
    main(["grade", f"submissions/{sample}", "--case", "case.toml", "--json"])
    report = json.loads(capsys.readouterr().out)
    return {
        r["name"]: (r["fuel"], int(r["name"].rsplit("x", 1)[1]))
        for r in report["results"]
        if r["kind"] == "stress"
    }


def rule(capsys) -> tuple[int, dict[int, int], int, int]:
    """The ceiling and per-width runways by case_builder's rule, and the fuel they rest on."""
    lines = stress_fuel("lines", capsys)
    reference = stress_fuel("reference", capsys)
    ceiling = _round_up(max(f for f, _ in lines.values()) * HEADROOM)
    widths = sorted({w for _, w in reference.values()})
    most = [max(f for f, w in reference.values() if w == width) for width in widths]
    runways = dict(zip(widths, (int(r) for r in runways_for(most, ceiling)), strict=True))
    return ceiling, runways, max(f for f, _ in lines.values()), max(most)


def listing(start: str, end: str) -> list[str]:
    """The guide's quoted output from the line starting with `start` to the one with `end`."""
    lines = [line[4:] for line in PART_TWO.splitlines()]
    first = next(i for i, line in enumerate(lines) if line.startswith(start))
    last = next(i for i in range(first, len(lines)) if lines[i].startswith(end))
    return lines[first : last + 1]


def quoted_block(start: str) -> list[str]:
    """The guide's quoted output from the line starting with `start` to the blank line after it."""
    lines = [line[4:] for line in PART_TWO.splitlines()]
    first = next(i for i, line in enumerate(lines) if line.startswith(start))
    return lines[first : lines.index("", first)]


@pytest.fixture
def heldout_case(tmp_path, monkeypatch) -> Path:
    """Step 1 and the copy of step 2, run as the guide writes them, in the case's folder."""
    folder = tmp_path / "heldout-case"
    folder.mkdir()
    monkeypatch.chdir(folder)
    for name in ("smoke", "expected", "submissions"):
        shutil.copytree(BUNDLED / name, name)
    for argv in commands("lattice-desktop scenario"):
        assert main(argv) == 0, argv
    return folder


def test_the_census_it_quotes_is_what_scenario_stats_prints(heldout_case, capsys):
    (argv,) = commands("lattice-desktop scenario stats")
    capsys.readouterr()
    assert main(argv) == 0
    shown = quoted_block(f"{argv[-1]}  ")
    assert len(shown) > 10 and capsys.readouterr().out.splitlines() == shown


def test_the_walkthrough_figures_are_todays(heldout_case, capsys):
    assert f"version = {VERSION} " in manifest_header(1)  # "the bundled case's version"
    write_manifest(10_000_000_000, None)
    ceiling, runways, lines_most, reference_most = rule(capsys)
    small, large = sorted(runways)
    assert f"({lines_most:,})" in PROSE and f"({reference_most:,})" in PROSE
    assert f"`fuel_limit = {ceiling:_}`" in PROSE
    assert f"`fuel_runway = {runways[large]}` to the {large}² case" in PROSE
    assert f"`fuel_runway = {runways[small]}` to the four {small}² ones" in PROSE

    write_manifest(ceiling, runways)
    capsys.readouterr()
    assert main(["case", "check", "case.toml"]) == 0
    shown = listing(f"lattice {VERSION}/heldout", "all samples got")
    assert capsys.readouterr().out.splitlines() == shown


def test_the_first_try_reads_as_no_answer_to_judge(heldout_case, capsys):
    write_manifest(40_000_000, None)
    capsys.readouterr()
    main(["grade", "submissions/reference", "--case", "case.toml"])
    (quoted,) = listing("seed-100-96x96    ✗ runway exhausted", "seed-100")
    assert quoted in [line.strip() for line in capsys.readouterr().out.splitlines()]


def test_without_the_big_factory_the_check_fails_as_shown(heldout_case, capsys):
    (big,) = Path("heldout").glob("*-256x256.*lat")
    for path in Path("heldout").glob(f"{big.stem}.*"):
        path.unlink()
    write_manifest(10_000_000_000, None)
    ceiling, runways, _, _ = rule(capsys)
    (runway,) = runways.values()
    assert (
        f"ceiling {ceiling // 1_000_000} M and, all four being the largest size, runway {runway} each"
        in PROSE
    )
    write_manifest(ceiling, runways)
    capsys.readouterr()
    assert main(["case", "check", "case.toml"]) == 1
    out = capsys.readouterr().out.splitlines()
    fail, summary = listing("  FAIL scale_bug", "1 of 5 samples")
    assert fail in out and out[-1] == summary


def test_a_big_factory_stopping_before_tick_256_would_not_catch_scale_bug(heldout_case, capsys):
    for path in Path("heldout").glob("*-256x256.*"):
        path.unlink()
    (big,) = [argv for argv in commands("lattice-desktop scenario generate") if "256" in argv]
    ticks = big.index("--ticks") + 1
    assert main([*big[:ticks], "240", *big[ticks + 1 :]]) == 0
    assert main(["scenario", "expect", "heldout"]) == 0
    write_manifest(10_000_000_000, None)
    ceiling, runways, _, _ = rule(capsys)
    write_manifest(ceiling, runways)
    capsys.readouterr()
    assert main(["case", "check", "case.toml"]) == 1
    assert "with `--ticks 240` in place of 300 for seed 106 the check of step 4 fails" in PROSE
    assert capsys.readouterr().out.splitlines()[-1].endswith(": scale_bug")
