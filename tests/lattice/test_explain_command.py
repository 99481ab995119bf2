"""`lattice-desktop explain RUN`: exit 0 with a diagnosis of a wrong run, 2 for one that is not."""

from __future__ import annotations

import json

from lattice_desktop.cli.main import main
from lattice_desktop.lattice import build_engines
from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission

BUGGY = build_engines.SUBMISSIONS_DIR / "buggy"


def test_explain_a_wrong_run_as_text_and_json_and_twice_from_the_cache(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LATTICE_DESKTOP_CACHE", str(tmp_path / "cache"))
    db = ["--db", str(tmp_path / "runs.db")]
    main(["grade", str(BUGGY), *db])
    capsys.readouterr()
    assert main(["explain", "1", "--json", *db]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["case"] == "side_load_priority" and data["tick"] >= 1
    assert len(data["cell"]) == 2 and data["conservation"] == []
    assert data["rules"][0]["rule"] == "side_load_priority"
    assert data["rules"][0]["evidence"][0]["tick"] == data["tick"]
    assert main(["explain", "1", *db]) == 0  # the second time from the cache, as text
    text = capsys.readouterr().out
    assert "Most likely broken: side_load_priority" in text and "§4c" in text
    stored = list((tmp_path / "cache").rglob("diagnoses/*.json"))
    assert len(stored) == 1
    stored[0].write_text("{not json")  # a damaged cache entry is worked out again
    assert main(["explain", "1", "--json", *db]) == 0
    assert json.loads(capsys.readouterr().out)["rules"][0]["rule"] == "side_load_priority"


def test_a_case_the_run_got_right_or_does_not_have_is_a_usage_error(tmp_path, capsys):
    db = ["--db", str(tmp_path / "runs.db")]
    main(["grade", str(BUGGY), *db])
    capsys.readouterr()
    assert main(["explain", "1", "--case", "turn", *db]) == 2
    assert "got turn right" in capsys.readouterr().err
    assert main(["explain", "1", "--case", "nope", *db]) == 2
    assert "has no case 'nope'" in capsys.readouterr().err
    assert main(["explain", "7", *db]) == 2
    assert "there is no run 7" in capsys.readouterr().err


def test_a_run_with_no_wrong_answer_exits_2(tmp_path, capsys):
    db = ["--db", str(tmp_path / "runs.db")]
    case = str(write_case(tmp_path / "case", ECHO_CASES))
    assert main(["grade", str(write_submission(tmp_path / "good", ECHO)), "--case", case, *db]) == 0
    capsys.readouterr()
    assert main(["explain", "1", *db]) == 2
    assert "has no wrong answer" in capsys.readouterr().err
