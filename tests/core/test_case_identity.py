"""Issue 36 items 1 and 2: a case's identity in every output. A submission ships its own
`lattice` (cut down, so its content differs) at the bundled version and at a version never
published; every command-line output that names the case labels both copies as
unregistered, and neither shares a board, a rank or a percentile with `lines` on the real
case."""

from __future__ import annotations

import csv
import io
import json

import pytest

from lattice_desktop.cli.main import main
from lattice_desktop.manifest import load_case
from lattice_desktop.manifest.case_identity import identify, registered_cases
from lattice_desktop.store.database import open_database
from lattice_desktop.store.field import leaderboard, standing
from tests.core.case_probe import BUNDLED, NEVER, REAL, SAME, UNPUBLISHED, Probe, build_probe, lattice_copy


@pytest.fixture(scope="module")
def probe(tmp_path_factory) -> Probe:
    return build_probe(tmp_path_factory.mktemp("probe"))


def notes(probe: Probe) -> dict[str, str]:
    """The one label each copy must carry, built from its parts (not from the code under test)."""
    return {
        SAME: f"unregistered content {probe.same[:12]} — NOT the registered lattice {BUNDLED} "
        f"(content {probe.real[:12]})",
        NEVER: f"unregistered content {probe.never[:12]} — lattice {UNPUBLISHED} is not a registered case",
    }


def cli(capsys, *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_registered_content_is_the_bundled_case_of_that_name_version_and_variant(tmp_path):
    real = load_case(REAL / "case.toml")
    assert registered_cases()[("lattice", real.version, "standard")] == real.manifest_hash
    copy = load_case(lattice_copy(tmp_path / "copy", real.version) / "case.toml")
    never = load_case(lattice_copy(tmp_path / "never", UNPUBLISHED) / "case.toml")
    assert identify("lattice", real.version, "standard", real.manifest_hash).registered
    assert identify("lattice", real.version, "standard", real.manifest_hash).note == ""
    for case in (copy, never):
        identity = identify(case.name, case.version, case.variant, case.manifest_hash)
        assert not identity.registered and identity.note.startswith("unregistered content")
    assert not identify("lattice", real.version, "fast", real.manifest_hash).registered  # another variant
    assert not identify("echo", 1, "standard", "ab" * 32).registered  # a name nobody registered


def test_grade_text_and_json_carry_the_identity(probe, capsys, tmp_path):
    said = notes(probe)
    for model, content in ((SAME, probe.same), (NEVER, probe.never)):
        sub = probe.folder / model
        db = ["--db", str(tmp_path / "again.db")]
        text = cli(capsys, "grade", str(sub), *db)
        assert said[model] in text
        data = json.loads(cli(capsys, "grade", str(sub), "--json", *db))
        assert data["case"]["registered"] is False
        assert data["case"]["case_content"] == content
        assert data["case"]["unregistered"] == said[model]


def test_runs_text_and_json_label_each_copy(probe, capsys):
    said = notes(probe)
    lines = cli(capsys, "runs", *probe.args).splitlines()[1:]
    by_model = {model: next(line for line in lines if model in line) for model in probe.run_ids}
    assert "unregistered" not in by_model["sample-lines"]
    for model in (SAME, NEVER):
        assert said[model] in by_model[model]
    rows = {r["model"]: r for r in json.loads(cli(capsys, "runs", "--json", *probe.args))}
    assert rows["sample-lines"]["registered"] is True and rows["sample-lines"]["case_content"] == probe.real
    assert rows[SAME]["registered"] is False and rows[SAME]["case_content"] == probe.same
    assert rows[NEVER]["registered"] is False and rows[NEVER]["case_content"] == probe.never
    assert rows[NEVER]["unregistered"] == said[NEVER]


def test_show_text_and_json_label_each_copy(probe, capsys):
    said = notes(probe)
    assert "unregistered" not in cli(capsys, "show", "1", *probe.args)
    for model, content in ((SAME, probe.same), (NEVER, probe.never)):
        run = str(probe.run_ids[model])
        assert said[model] in cli(capsys, "show", run, *probe.args)
        data = json.loads(cli(capsys, "show", run, "--json", *probe.args))
        assert data["registered"] is False and data["case_content"] == content
    assert json.loads(cli(capsys, "show", "1", "--json", *probe.args))["registered"] is True


def test_no_copy_shares_a_board_rank_or_percentile_with_the_real_case(probe):
    open_database(probe.db)
    for run_id in probe.run_ids.values():
        place = standing(run_id)
        assert place is not None and (place.rank, place.of) == (1, 1)
    default = leaderboard("lattice")
    assert [e.model for e in default.entries] == ["sample-lines"] and not default.unregistered
    for version, content, model in ((BUNDLED, probe.same, SAME), (UNPUBLISHED, probe.never, NEVER)):
        board = leaderboard("lattice", version, content=content)
        assert [e.model for e in board.entries] == [model] and board.unregistered


def test_leaderboard_text_and_json_label_each_copy(probe, capsys):
    said = notes(probe)
    heading, *rows = cli(capsys, "leaderboard", "lattice", *probe.args).splitlines()
    assert "unregistered" not in heading and "sample-lines" in rows[0]
    assert not any("impostor" in row for row in rows)
    never = cli(capsys, "leaderboard", "lattice", "--version", str(UNPUBLISHED), *probe.args)
    assert said[NEVER] in never.splitlines()[0] and NEVER in never
    data = json.loads(
        cli(capsys, "leaderboard", "lattice", "--version", str(UNPUBLISHED), "--json", *probe.args)
    )
    assert data["registered"] is False and data["case_content"] == probe.never
    assert data["unregistered"] == said[NEVER]
    data = json.loads(
        cli(capsys, "leaderboard", "lattice", "--content", probe.same[:12], "--json", *probe.args)
    )
    assert data["registered"] is False and [e["model"] for e in data["entries"]] == [SAME]
    data = json.loads(cli(capsys, "leaderboard", "lattice", "--json", *probe.args))
    assert data["registered"] is True and data["case_content"] == probe.real


def test_csv_exports_carry_the_identity(probe, capsys):
    said = notes(probe)

    def table(*argv: str) -> list[dict[str, str]]:
        return list(csv.DictReader(io.StringIO(cli(capsys, "export", *argv, "--csv", "-", *probe.args))))

    for model, content in ((SAME, probe.same), (NEVER, probe.never)):
        rows = table("run", str(probe.run_ids[model]))
        assert rows and all(r["registered"] == "no" and r["case_content"] == content for r in rows)
        assert all(said[model] in r["case"] for r in rows)
    assert all(r["registered"] == "yes" for r in table("run", "1"))
    runs = {r["model"]: r for r in table("runs")}
    assert runs["sample-lines"]["registered"] == "yes" and runs["sample-lines"]["unregistered"] == ""
    assert runs[NEVER]["unregistered"] == said[NEVER]
    board = table("leaderboard", "lattice", "--version", str(UNPUBLISHED))
    assert [r["model"] for r in board] == [NEVER]
    assert board[0]["registered"] == "no" and board[0]["unregistered"] == said[NEVER]
    assert all(r["registered"] == "yes" for r in table("leaderboard", "lattice"))


def test_html_exports_carry_the_label(probe, capsys):
    said = notes(probe)
    for model in (SAME, NEVER):
        page = cli(capsys, "export", "run", str(probe.run_ids[model]), "--html", "-", *probe.args)
        assert said[model] in page
    runs = cli(capsys, "export", "runs", "--html", "-", *probe.args)
    assert said[SAME] in runs and said[NEVER] in runs
    board = cli(
        capsys, "export", "leaderboard", "lattice", "--version", str(UNPUBLISHED), "--html", "-", *probe.args
    )
    assert said[NEVER] in board
    assert "unregistered" not in cli(capsys, "export", "run", "1", "--html", "-", *probe.args)


def test_grade_batch_text_and_json_carry_the_identity(probe, capsys, tmp_path):
    said = notes(probe)
    sub = probe.folder / NEVER
    db = ["--db", str(tmp_path / "batch.db"), "--workers", "1"]
    text = cli(capsys, "grade-batch", str(sub), "--case", str(sub / "case"), *db)
    assert said[NEVER] in text.splitlines()[0]
    data = json.loads(
        cli(capsys, "grade-batch", str(sub), "--case", str(sub / "case"), "--regrade", "--json", *db)
    )
    (run,) = data["runs"]
    assert run["case"]["registered"] is False and run["case"]["case_content"] == probe.never
    assert run["case"]["unregistered"] == said[NEVER]


def test_every_published_version_stays_registered_and_lists_the_bundle_as_it_is():
    """After the bundle moves to a new version, runs of the versions it published before are
    still runs of the registered case; the list itself names the bundled content of today."""
    import tomli

    from lattice_desktop.manifest import load_case
    from lattice_desktop.manifest.case_identity import identify
    from lattice_desktop.resources import CASES

    bundled = load_case(CASES / "lattice" / "case.toml")
    published = tomli.loads((CASES / "lattice" / "published.toml").read_text())["published"]
    assert {
        "version": bundled.version,
        "variant": bundled.variant,
        "content": bundled.manifest_hash,
    } in published
    older = [p for p in published if p["version"] < bundled.version]
    assert older, "the bundle has published no earlier version"
    for entry in older:
        assert identify("lattice", entry["version"], entry["variant"], entry["content"]).registered
        forged = identify("lattice", entry["version"], entry["variant"], "0" * 64)
        assert not forged.registered and "NOT the registered" in forged.note
