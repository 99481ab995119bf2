"""A broken case is refused where it is opened, with every problem listed at once, each at
its file, line and key — by `case check`, by `grade` before anything is built or run."""

from __future__ import annotations

from lattice_desktop.cli.main import main
from tests.core.wat_cases import ECHO, ECHO_CASES, write_case, write_submission

# The case: a [meta] with a version in words, and nothing else.
WORDS = '[meta]\nname = "x"\nversion = "three"\n'


def test_case_check_lists_every_problem_with_its_location(tmp_path, capsys):
    case = tmp_path / "case.toml"
    case.write_text(WORDS)
    assert main(["case", "check", str(case)]) == 2
    err = capsys.readouterr().err
    assert "4 problems" in err
    assert f"{case}:3: meta.version: must be an integer, not a string" in err
    for missing in ("missing table [contract]", "missing table [sandbox]", "declares no [[case]]"):
        assert missing in err
    assert "Traceback" not in err


def test_problems_in_every_table_come_out_together(tmp_path, capsys):
    case = write_case(
        tmp_path / "case",
        ECHO_CASES.replace('kind = "smoke"', 'kind = "smok"', 1),
        sandbox="memory_limit_mib = 0\nspeed = 3",
        contract='abi = "bytes"\nentry = "run"\nparams = ["i32"]',
    )
    sub = write_submission(tmp_path / "sub", ECHO)
    assert main(["grade", str(sub), "--case", str(case), "--db", str(tmp_path / "db")]) == 2
    err = capsys.readouterr().err
    for problem in (
        "case[0].kind: must be one of 'smoke', 'stress', not 'smok'",
        "sandbox.memory_limit_mib: must be at least 1",
        "unknown key 'speed'",
        "contract.params: only a scalar contract has types",
    ):
        assert problem in err
    assert not (tmp_path / "db").exists() or "stored" not in err  # nothing was graded


def test_a_good_case_reads_as_before(tmp_path, capsys):
    case = write_case(tmp_path / "case", ECHO_CASES)
    main(["case", "check", str(case)])
    out, err = capsys.readouterr()
    assert "echo 1/standard: 1 smoke tests, 1 stress cases" in out
    assert "no sample submissions" in err and "problems" not in err  # the only complaint


def test_a_missing_module_is_explained_by_what_the_submission_has(tmp_path, capsys):
    case = write_case(tmp_path / "case", ECHO_CASES)
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "submission.toml").write_text('[submission]\nmodel = "m"\n\n[build]\nmodule = "engine.wasm"\n')
    assert main(["grade", str(bare), "--case", str(case), "--db", str(tmp_path / "db")]) == 2
    err = capsys.readouterr().err
    assert "has no build commands to make it" in err and "allow its build commands" not in err
