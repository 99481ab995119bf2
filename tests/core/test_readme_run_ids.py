"""The README's examples that name a run by id hold on the demo's database: built here as
the app's first start builds it (the bundled harness runs, then the demo's samples in
order; tests/ui/test_guide_and_demo_resume.py checks the app keeps that order), each such
command is run as written and does what its comment says, never a usage error. Once
`profile 3` and `compare 3 7` named harness runs and failed with "there is no run 3"."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from lattice_desktop.cli.main import main
from lattice_desktop.resources import demo_case
from lattice_desktop.services.grade_jobs import demo_jobs, run_job
from lattice_desktop.services.harness_import import bundled_examples, import_traces
from lattice_desktop.store.database import open_database
from lattice_desktop.store.run_numbers import stored_kind
from lattice_desktop.store.writer import Writer

README = Path(__file__).resolve().parents[2] / "README.md"
TAKES_IDS = {"show", "profile", "compare", "explain", "hide", "unhide", "delete", "export"}
GRADED_ONLY = {"profile", "compare", "explain"}


def run_ids(words: list[str]) -> list[int]:
    """The run ids a command line names: its numbers that are not an option's value."""
    return [
        int(w) for i, w in enumerate(words) if re.fullmatch(r"\d+", w) and not words[i - 1].startswith("--")
    ]


def readme_commands_with_ids() -> list[list[str]]:
    commands = []
    for line in README.read_text(encoding="utf-8").splitlines():
        if not line.startswith("    lattice-desktop "):
            continue
        words = shlex.split(line, comments=True)[1:]
        if words and words[0] in TAKES_IDS and run_ids(words):
            commands.append(words)
    return commands


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("demo") / "demo.db"
    writer = Writer(open_database(db))
    try:
        box, traces = bundled_examples()
        assert import_traces(writer, box, traces).stored == list(range(1, len(traces) + 1))
        for job in demo_jobs(demo_case()):
            run_job(job, writer)
    finally:
        writer.close()
    return db


def test_the_readme_names_runs_by_id_and_says_which_they_are():
    commands = readme_commands_with_ids()
    assert {c[0] for c in commands} >= {"show", "profile", "compare"}, commands
    text = README.read_text(encoding="utf-8")
    assert "the demo's database" in text


@pytest.mark.slow
def test_every_readme_command_naming_a_run_id_works_on_the_demos_database(
    demo_db, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)  # the files the examples write (lines.out, report.html) land here
    for words in readme_commands_with_ids():
        ids = run_ids(words)
        open_database(demo_db)
        kinds = {stored_kind(i) for i in ids}
        assert None not in kinds, (words, kinds)
        if words[0] in GRADED_ONLY:
            assert kinds == {"graded"}, (words, kinds)
        status = main([*words, "--db", str(demo_db)])
        out = capsys.readouterr()
        assert status == 0, (words, status, out.err)
        assert "error" not in out.err, (words, out.err)
        if words[:2] == ["show", "9"]:  # as its comment says: the `lines` sample
            assert "lines" in out.out, out.out
        if words[:2] == ["explain", "12"]:  # stuck_rings: its rings do not turn
            assert '"ring_rotation"' in out.out.split('"rules"', 1)[1][:400], out.out
        if words[:2] == ["show", "6"]:  # the bundled schema_violation trace
            assert "schema-001" in out.out, out.out
