"""`compare --markdown FILE`: the changed cases and the functions behind them, and the
--fail-above verdict, as tables a CI job summary shows (rendered as GitHub renders them)."""

from __future__ import annotations

import json

from lattice_desktop.cli.compare_cmd import EXIT_REGRESSED
from lattice_desktop.cli.main import main
from tests.ci_formats import markdown_tables
from tests.profile.test_compare import runs  # noqa: F401  (the fixture)
from tests.profile.test_compare_gate import smoke_slower  # noqa: F401  (the fixture)


def test_a_regression_shows_its_cases_functions_and_the_failed_gate(runs, tmp_path, capsys):  # noqa: F811
    _, db, reports = runs
    light, heavy = str(reports["light"]["run_id"]), str(reports["heavy"]["run_id"])
    md = tmp_path / "summary.md"
    code = main(["compare", light, heavy, "--fail-above", "2", "--markdown", str(md), "--json", *db])
    assert code == EXIT_REGRESSED
    data = json.loads(capsys.readouterr().out)
    text = md.read_text(encoding="utf-8")
    assert "**❌ FAIL** (--fail-above 2%): " + ", ".join(data["worse"]) in text
    cases, functions = markdown_tables(text)
    assert cases[0] == ["case", "kind", "A fuel", "B fuel", "change", "%", "verdict", "gated"]
    changed = [c for c in data["cases"] if c["delta"]]
    assert [row[0] for row in cases[1:]] == [c["name"] for c in changed]
    for row, c in zip(cases[1:], changed, strict=True):
        assert row[2:6] == [
            f"{c['before_fuel']:,}",
            f"{c['after_fuel']:,}",
            f"{c['delta']:+,}",
            f"{c['percent']:+.2f}%",
        ]
        gate = "yes" if c["fuel_gated"] else "verdict only (smoke)"
        assert row[7] == ("❌ worse" if c["name"] in data["worse"] else gate)
    listed = {(row[0], row[1]): int(row[4].replace(",", "")) for row in functions[1:]}
    expected = {(c["name"], f["name"]): f["delta"] for c in changed for f in c["functions"]}
    assert listed == expected and {"a", "shared", "leaf"} <= {name for _, name in listed}


def test_a_slower_smoke_test_is_listed_but_passes_the_gate(smoke_slower, tmp_path, capsys):  # noqa: F811
    (before, after), db = smoke_slower
    md = tmp_path / "summary.md"
    assert (
        main(["compare", before, after, "--fail-above", "2", "--no-profile", "--markdown", str(md), *db]) == 0
    )
    capsys.readouterr()
    text = md.read_text(encoding="utf-8")
    assert "**✅ ok** (--fail-above 2%)" in text
    (cases,) = markdown_tables(text)
    assert [(row[0], row[1], row[7]) for row in cases[1:]] == [("small", "smoke", "verdict only (smoke)")]


def test_the_heading_says_which_run_is_a_and_which_is_b(runs, tmp_path, capsys):  # noqa: F811
    _, db, reports = runs
    light, heavy = reports["light"]["run_id"], reports["heavy"]["run_id"]
    md = tmp_path / "summary.md"
    main(["compare", str(light), str(heavy), "--no-profile", "--markdown", str(md), *db])
    capsys.readouterr()
    heading = md.read_text(encoding="utf-8").splitlines()[0]
    # The tables' columns are "A fuel" and "B fuel": A is the first run given, B the second.
    assert heading.index(f"A: run {light} ") < heading.index(f"B: run {heavy} "), heading
