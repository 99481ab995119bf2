"""The run header of a run graded on a case shipped under the bundled case's name says its
field is ranked apart, as the leaderboard and `grade` do (issue 19 item 9: every view)."""

from __future__ import annotations

from lattice_desktop.cli.main import main
from lattice_desktop.manifest import load_case
from lattice_desktop.resources import CASES
from lattice_desktop.store.database import open_database
from lattice_desktop.store.pages import load_run_page
from lattice_desktop.ui.runs.header import RunHeader
from tests.hostile.test_impostor_case import LINES, impostor


def test_the_header_of_an_impostors_run_says_it_is_ranked_apart(qtbot, tmp_path):
    db = ["--db", str(tmp_path / "runs.db")]
    real = load_case(CASES / "lattice" / "case.toml")
    assert main(["grade", str(LINES), "--case", "lattice", *db]) == 0
    assert main(["grade", str(impostor(tmp_path / "impostor", real.version)), *db]) == 0
    open_database(tmp_path / "runs.db")
    header = RunHeader()
    qtbot.addWidget(header)
    honest, fake = load_run_page(1), load_run_page(2)
    assert honest is not None and fake is not None
    header.show_page(honest)
    assert "registered" not in header.standing.text()
    header.show_page(fake)
    assert header.standing.text() == "#1 of 1 · 100th percentile · unregistered case, ranked apart"
    assert header.standing.toolTip().startswith(
        f"unregistered content {fake.run.manifest_hash[:12]} — NOT the registered lattice {real.version} "
        f"(content {real.manifest_hash[:12]})"
    )
