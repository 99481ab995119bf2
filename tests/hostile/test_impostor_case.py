"""A submission that ships its own `lattice` case (the bundled version) and is graded last does not become the
default board of `lattice`: the default is the bundled content, and the impostor's board is
ranked apart and says that its content is not the registered one."""

from __future__ import annotations

from lattice_desktop.cli.main import main
from lattice_desktop.manifest import load_case
from lattice_desktop.manifest.case_identity import current_registered
from lattice_desktop.resources import CASES
from lattice_desktop.store.database import open_database
from lattice_desktop.store.field import leaderboard
from lattice_desktop.store.pages import load_run_page
from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission

LINES = CASES / "lattice" / "submissions" / "lines"


def impostor(folder, version: int):
    """A submission with a trivial case of its own under the bundled case's name and version."""
    write_submission(folder, ECHO, model="impostor")
    write_case(
        folder / "case", ECHO_CASES, meta=f'name = "lattice"\nversion = {version}\nvariant = "standard"'
    )
    manifest = folder / "submission.toml"
    manifest.write_text(
        manifest.read_text().replace('model = "impostor"', 'model = "impostor"\ncase = "case"')
    )
    return folder


def test_an_impostor_case_graded_last_is_not_the_default_board(tmp_path, capsys):
    db = ["--db", str(tmp_path / "runs.db")]
    real = load_case(CASES / "lattice" / "case.toml")
    assert main(["grade", str(LINES), "--case", "lattice", *db]) == 0
    fake = impostor(tmp_path / "impostor", real.version)
    assert main(["grade", str(fake), *db]) == 0  # ✓ correct on its own case, graded last
    said = capsys.readouterr().out
    assert f"NOT the registered lattice {real.version} (content {real.manifest_hash[:12]})" in said

    assert main(["leaderboard", "lattice", *db]) == 0
    heading, *rows = capsys.readouterr().out.splitlines()
    assert f"content {real.manifest_hash[:12]}" in heading and "1 other content" in heading
    assert rows[0].startswith("#1") and "sample-lines" in rows[0]
    assert not any("impostor" in row for row in rows)

    fake_hash = load_case(fake / "case" / "case.toml").manifest_hash
    assert main(["leaderboard", "lattice", "--content", fake_hash[:12], *db]) == 0
    heading, *rows = capsys.readouterr().out.splitlines()
    assert f"NOT the registered lattice {real.version} (content {real.manifest_hash[:12]})" in heading
    assert "impostor" in rows[0]

    open_database(tmp_path / "runs.db")
    assert current_registered("lattice") == (real.version, real.variant, real.manifest_hash)
    default = leaderboard("lattice")
    assert default.content == real.manifest_hash and not default.unregistered
    apart = leaderboard("lattice", content=fake_hash)
    assert apart.unregistered and "NOT the registered" in apart.content_label  # the app's label too


def test_without_a_bundled_case_the_first_registered_content_is_the_default(tmp_path):
    from lattice_desktop.manifest import load_submission
    from lattice_desktop.services.grading import grade_and_store
    from lattice_desktop.store.writer import Writer

    writer = Writer(open_database(tmp_path / "runs.db"))
    first = load_case(write_case(tmp_path / "first", ECHO_CASES))
    later = load_case(write_case(tmp_path / "later", ECHO_CASES.replace("hello", "hi")))
    grade_and_store(first, load_submission(write_submission(tmp_path / "a", ECHO, model="a")), writer=writer)
    grade_and_store(later, load_submission(write_submission(tmp_path / "b", ECHO, model="b")), writer=writer)
    writer.close()
    board = leaderboard("echo")
    assert board.content == first.manifest_hash and [e.model for e in board.entries] == ["a"]
    other = leaderboard("echo", content=later.manifest_hash)
    assert other.unregistered and [e.model for e in other.entries] == ["b"]


def test_the_impostors_run_page_says_its_field_is_apart(tmp_path):
    db = ["--db", str(tmp_path / "runs.db")]
    real = load_case(CASES / "lattice" / "case.toml")
    assert main(["grade", str(LINES), "--case", "lattice", *db]) == 0
    assert main(["grade", str(impostor(tmp_path / "impostor", real.version)), *db]) == 0
    open_database(tmp_path / "runs.db")
    honest, fake = load_run_page(1), load_run_page(2)
    assert honest is not None and honest.apart is None
    assert fake is not None and fake.run.summary.model == "impostor"
    fake_hash = fake.run.manifest_hash
    assert fake.apart == (
        f"unregistered content {fake_hash[:12]} — NOT the registered lattice {real.version} "
        f"(content {real.manifest_hash[:12]})"
    )
