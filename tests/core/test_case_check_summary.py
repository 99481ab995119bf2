"""`case check`'s last line says how many samples missed their expected verdict, out of
how many, and which — the guide's walk-through once ended on a bare "1 sample(s) did not"."""

from __future__ import annotations

from lattice_desktop.cli.main import main
from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission


def sample(folder, expected: str) -> None:
    manifest = write_submission(folder, ECHO, model=folder.name) / "submission.toml"
    text = manifest.read_text()
    manifest.write_text(text.replace("[submission]\n", f'[submission]\nexpected_verdict = "{expected}"\n', 1))


def test_the_summary_names_the_samples_that_missed(tmp_path, capsys):
    case = write_case(tmp_path / "case", ECHO_CASES)
    sample(tmp_path / "case" / "submissions" / "echo", "correct")
    sample(tmp_path / "case" / "submissions" / "echo_said_wrong", "incorrect")
    assert main(["case", "check", str(case)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "1 of 2 samples did not get their expected verdict: echo_said_wrong"
    assert any(line.startswith("  FAIL echo_said_wrong") for line in lines)
