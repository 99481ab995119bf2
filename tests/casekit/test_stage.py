"""Building on a stage (casebuild/stage.py), which `case build` and the Lattice builder share:
a check lists every change and writes nothing, a build writes exactly the changes (and
removes what a fresh folder no longer holds), and a failed build leaves the case alone with
its error naming the case's own paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from lattice_desktop.casebuild.stage import on_stage
from lattice_desktop.errors import Location, UserError
from tests.casekit.conftest import snapshot


@pytest.fixture
def case(tmp_path) -> Path:
    folder = tmp_path / "toy"
    (folder / "made").mkdir(parents=True)
    (folder / "source.txt").write_text("3")
    (folder / "made" / "three.txt").write_text("xxx")
    (folder / "made" / "stale.txt").write_text("from an older source")
    return folder


def make(stage: Path) -> int:
    """A toy build: the source says how many x's to write."""
    n = int((stage / "source.txt").read_text())
    (stage / "made").mkdir(exist_ok=True)
    (stage / "made" / "three.txt").write_text("x" * n)
    return n


def test_a_check_lists_the_changes_and_writes_nothing(case):
    (case / "source.txt").write_text("4")
    before = snapshot(case)
    result, changed = on_stage(case, make, check=True, fresh=("made",))
    assert (result, changed) == (4, ("made/stale.txt", "made/three.txt"))
    assert snapshot(case) == before


def test_a_build_writes_the_changes_and_then_is_unchanged(case):
    _, changed = on_stage(case, make, check=False, fresh=("made",))
    assert changed == ("made/stale.txt",)  # three.txt held the bytes already: not written
    assert not (case / "made" / "stale.txt").exists()
    assert on_stage(case, make, check=True, fresh=("made",))[1] == ()


def test_without_fresh_a_file_the_build_does_not_make_stays(case):
    assert on_stage(case, make, check=False)[1] == ()
    assert (case / "made" / "stale.txt").is_file()


def test_a_failed_build_changes_nothing_and_names_the_cases_paths(case):
    before = snapshot(case)

    def fails(stage: Path) -> None:
        (stage / "source.txt").write_text("5")
        raise UserError(f"cannot read {stage / 'made'}", Location(str(stage / "source.txt"), 1))

    with pytest.raises(UserError) as raised:
        on_stage(case, fails, check=False)
    assert str(raised.value) == f"{case / 'source.txt'}:1: cannot read {case / 'made'}"
    assert snapshot(case) == before


def test_a_file_the_build_did_not_make_is_never_written(case):
    """Issue 46 D7: `case build . > log.txt` in the case folder: the shell's file is copied
    onto the stage, grows in the folder while the build runs, and was then "changed" — copied
    back over the growing file (NUL bytes where the shell went on writing)."""
    log = case / "log.txt"
    log.write_text("")

    def build_while_logging(stage: Path) -> int:
        with log.open("a") as out:
            out.write("the build's output, written to the folder meanwhile\n")
        return make(stage)

    (case / "source.txt").write_text("4")
    _, changed = on_stage(case, build_while_logging, check=False)
    assert changed == ("made/three.txt",)
    assert log.read_bytes() == b"the build's output, written to the folder meanwhile\n"


def test_a_build_never_writes_through_a_link_in_the_case_folder(case, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (case / "made" / "three.txt").unlink()
    (case / "made").rename(tmp_path / "made-aside")
    (case / "made").symlink_to(outside)
    with pytest.raises(UserError, match="is a symbolic link: the build writes only inside the case folder"):
        on_stage(case, make, check=False)
    assert list(outside.iterdir()) == []
