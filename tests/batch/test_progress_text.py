"""The batch's progress on a terminal is one bar redrawn in place; elsewhere one line per
finished run."""

from __future__ import annotations

import io
from datetime import UTC, datetime

from lattice_desktop.batch.driver import BatchProgress, FinishedRun
from lattice_desktop.batch.field import Problem
from lattice_desktop.cli.batch_text import ProgressPrinter
from lattice_desktop.grading.report import GradeReport
from lattice_desktop.manifest import load_case, load_submission
from lattice_desktop.outcomes import Verdict
from lattice_desktop.work import Work
from tests.batch.fields import echo_case
from tests.core.wat_cases import ECHO, write_submission


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def landed_run(tmp_path, model: str = "m") -> FinishedRun:
    case = load_case(echo_case(tmp_path / "case"))
    submission = load_submission(write_submission(tmp_path / "echo", ECHO, model=model))
    now = datetime.now(UTC)
    return FinishedRun(GradeReport(case, submission, "ab", None, [], Verdict.CORRECT, now, now), 7)


def test_on_a_terminal_one_bar_is_redrawn_and_problems_get_their_own_line(tmp_path):
    stream = Terminal()
    printer = ProgressPrinter(stream)
    work = Work(printer)
    work.report(0.3, "", BatchProgress(3, 10, 0, 2, 61.0))
    work.report(0.5, "", BatchProgress(5, 10, 1, 2, 65.0, landed=(landed_run(tmp_path),)))
    work.report(0.5, "", BatchProgress(5, 10, 1, 2, 66.0, problem=Problem("/x", "no such file or folder")))
    printer.close()
    text = stream.getvalue()
    assert text.endswith("\n")
    assert "\r[########....................] 3/10 jobs · 0/2 runs · 01:01 elapsed · 02:22 left" in text
    assert "5/10 jobs · 1/2 runs · 01:05 elapsed · 01:05 left" in text
    assert "error: /x: no such file or folder\n" in text
    assert "run 7" not in text  # finished runs show in the bar's count, not as lines


def test_elsewhere_one_line_per_finished_run(tmp_path):
    stream = io.StringIO()
    work = Work(ProgressPrinter(stream))
    work.report(0.3, "", BatchProgress(3, 10, 0, 2, 1.0))
    work.report(0.5, "", BatchProgress(5, 10, 1, 2, 2.0, landed=(landed_run(tmp_path),)))
    assert stream.getvalue() == "[1/2] m (echo): ✓ correct · stress fuel - · run 7\n"


def test_a_submissions_own_text_cannot_drive_the_terminal(tmp_path):
    stream = Terminal()
    printer = ProgressPrinter(stream)
    evil = "\\u001b]0;pwned\\u0007\\nforged"  # TOML escapes: an OSC title, a bell, a newline
    Work(printer).report(
        0.5,
        "",
        BatchProgress(
            5,
            10,
            1,
            2,
            2.0,
            landed=(landed_run(tmp_path, evil),),
            problem=Problem("/x\x1b[2J", "bad\x1b[31m"),
        ),
    )
    text = stream.getvalue()
    assert "\x1b" not in text and "\x07" not in text
    assert "error: /x\\u001b[2J: bad\\u001b[31m" in text
    lines = io.StringIO()
    Work(ProgressPrinter(lines)).report(
        0.5, "", BatchProgress(5, 10, 1, 2, 2.0, landed=(landed_run(tmp_path, evil),))
    )
    assert lines.getvalue().count("\n") == 1 and "\\u001b]0;pwned\\u0007\\u000aforged" in lines.getvalue()
