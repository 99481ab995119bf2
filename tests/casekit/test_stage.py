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
