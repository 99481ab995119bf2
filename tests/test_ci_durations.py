""".ci/run ends by saying how long each of its steps took and the whole run, whether the
steps passed or failed (the stand-ins of tests/test_ci_script.py play the tools)."""

from __future__ import annotations

import re

import pytest

from tests import test_ci_script as ci

checkout = ci.checkout  # the same fixture: a copy of the checkout's shape with stand-ins

STEPS = [
    "start PostgreSQL",
    ".ci/test_packages.sh",
    "readme_tests",
    ".venv/bin/ruff check .",
    ".venv/bin/ruff format --check .",
    ".venv/bin/mypy",
]
LINE = re.compile(r"^  (?P<step>.+?) +(?:(?P<min>\d+) min (?P<sec_of_min>\d{2}) s|(?P<sec>\d+) s)$")


def durations(stdout: str) -> dict[str, int]:
    """The report's steps and their seconds, in the order printed."""
    _, _, report = stdout.partition(".ci/run: durations\n")
    assert report, stdout
    found = {}
    for line in report.splitlines():
        m = LINE.match(line)
        assert m, line
        seconds = int(m["sec"]) if m["sec"] else 60 * int(m["min"]) + int(m["sec_of_min"])
        found[m["step"]] = seconds
    return found


@pytest.mark.parametrize("behave", [{}, {"pytest": "fail", "mypy": "fail"}])
def test_the_run_ends_with_each_steps_duration_and_the_total(checkout, behave):
    done = ci.run_ci(checkout, **behave)
    assert done.returncode == (1 if behave else 0), done.stderr
    found = durations(done.stdout)
    assert list(found) == [*STEPS, "total"]
    assert sum(found[s] for s in STEPS) <= found["total"]
