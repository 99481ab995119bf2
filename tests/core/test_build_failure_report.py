"""A build failure reads as one build failure — its command, exit status and the last lines
of its log, with every case "not run" — in `grade`, in `show` and in Copy report; a wrong
answer still reads as a failed smoke test."""

from __future__ import annotations

import textwrap

import pytest

from lattice_desktop.cli.common import VERDICT_EXIT
from lattice_desktop.cli.main import main
from lattice_desktop.cli.report_text import report_lines
from lattice_desktop.grading.grader import grade
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Verdict
from lattice_desktop.services.run_failure import run_failure
from lattice_desktop.services.run_report import report_text
from lattice_desktop.store.database import open_database
from lattice_desktop.store.pages import load_run_page
from tests.core.wat_cases import write_case

SMOKE = [
    ("straight", "moves one item along a straight belt"),
    ("turn", "turns an item round a corner"),
    ("merge", "merges two belts"),
]
CASES = (
    "".join(
        f'[[case]]\nname = "{name}"\nkind = "smoke"\nbehaviour = "{behaviour}"\ninput = "a"\nexpected = "a"\n\n'
        for name, behaviour in SMOKE
    )
    + '[[case]]\nname = "longer"\nkind = "stress"\ninput = "a longer input"\nexpected = "a longer input"\n'
)

FAILING = (
    "python -c \"import sys; print('compiling engine.c'); print('engine.c:3: error: boom'); sys.exit(3)\""
)


@pytest.fixture
def failing_build(tmp_path):
    case = write_case(tmp_path / "case", CASES)
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "submission.toml").write_text(
        textwrap.dedent(f"""\
            [submission]
            model = "model-b"

            [build]
            commands = ['''{FAILING}''']
            module = "module.wasm"
            """)
    )
    return case, folder


def assert_one_build_failure(text: str) -> None:
    assert text.count(FAILING) == 1  # the command once, not once per case
    assert "exit status: 3" in text
    assert "engine.c:3: error: boom" in text and "compiling engine.c" in text  # the log's last lines
    assert text.count("not run") == len(SMOKE) + 1  # every case, smoke and stress
    for _name, behaviour in SMOKE:
        assert behaviour not in text  # no behaviour is "at fault"
    assert "Smoke test straight failed" not in text


def test_grade_tells_a_failed_build_once(failing_build):
    case_path, folder = failing_build
    report = grade(load_case(case_path), load_submission(folder), allow_build=True, allow_unisolated=True)
    failure = run_failure(report.results, report.build.log)
    assert failure is not None and failure.exit_status == 3 and failure.command == FAILING
    text = "\n".join(report_lines(report))
    assert_one_build_failure(text)
    assert text.startswith("model-b · echo 1/standard")
    assert "why: the build failed" in text


def test_show_and_copy_report_tell_a_stored_failed_build_once(failing_build, tmp_path, capsys):
    case_path, folder = failing_build
    db = tmp_path / "l.db"
    code = main(
        [
            "grade",
            str(folder),
            "--case",
            str(case_path),
            "--build",
            "--allow-unisolated-build",
            "--db",
            str(db),
        ]
    )
    assert code == VERDICT_EXIT[Verdict.BUILD_FAILED]
    assert_one_build_failure(capsys.readouterr().out)
    assert main(["show", "1", "--db", str(db)]) == 0
    assert_one_build_failure(capsys.readouterr().out)
    open_database(db)
    copied = report_text(load_run_page(1))
    report, log = copied.split("\nBuild log\n")  # the whole log follows, for the record
    assert_one_build_failure(report)
    assert log.startswith("[") and f"$ {FAILING}" in log


def test_a_wrong_smoke_answer_is_still_that_smoke_tests_failure(tmp_path):
    from tests.core.wat_cases import module_with_run_body, write_submission

    case = load_case(write_case(tmp_path / "case", CASES))
    wrong = module_with_run_body(
        "(i64.or (i64.shl (i64.extend_i32_u (local.get 0)) (i64.const 32)) (i64.const 0))"
    )
    report = grade(case, load_submission(write_submission(tmp_path / "wrong", wrong)))
    assert run_failure(report.results, "") is None
    text = "\n".join(report_lines(report))
    assert "Smoke test straight failed" in text and "not run" not in text
