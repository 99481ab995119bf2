"""The guide's CI job does what it says: its GitLab script, run line by line in a shell on
a repository whose `main` holds the baseline, publishes every case of the grade as a JUnit
test and a summary table, passes when the fuel holds, and fails on a fuel regression.

Only two things differ from the guide: `pip install` is left out (this checkout is the
install) and the bundled `lattice` case is a tiny echo case, so the job takes seconds."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.ci_formats import markdown_tables, read_junit
from tests.core.wat_cases import ECHO, ECHO_CASES, SLOW_ECHO, write_case, write_submission

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "guide.md").read_text(encoding="utf-8")
GIT = shutil.which("git")


def gitlab_script() -> list[str]:
    found = re.search(r"```yaml\n(grade:\n.*?)```", GUIDE, re.S)
    assert found, "the guide's GitLab job"
    return yaml.safe_load(found.group(1))["grade"]["script"]


def _git(*args: str, cwd: Path, env: dict[str, str]) -> None:
    subprocess.run([GIT, *args], cwd=cwd, env=env, check=True, capture_output=True)


@pytest.mark.skipif(GIT is None, reason="needs git")
@pytest.mark.parametrize("candidate", ["same", "slower"])
def test_the_gitlab_job_grades_reports_and_gates(tmp_path, candidate):
    env = os.environ | {
        "HOME": str(tmp_path),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "ci",
        "GIT_AUTHOR_EMAIL": "ci@example.invalid",
        "GIT_COMMITTER_NAME": "ci",
        "GIT_COMMITTER_EMAIL": "ci@example.invalid",
        "LATTICE_DESKTOP_DB": str(tmp_path / "unused.db"),
    }
    case = write_case(tmp_path / "case", ECHO_CASES, fuel_limit=2_000_000)
    upstream = tmp_path / "upstream"
    write_submission(upstream / "submission", ECHO, model="echo")
    _git("init", "-q", "-b", "main", cwd=upstream, env=env)
    _git("add", ".", cwd=upstream, env=env)
    _git("commit", "-q", "-m", "baseline", cwd=upstream, env=env)
    (tmp_path / "work").mkdir()
    repo = tmp_path / "work" / "repo"
    _git("clone", "-q", str(upstream), str(repo), cwd=tmp_path, env=env)
    if candidate == "slower":
        write_submission(repo / "submission", SLOW_ECHO, model="echo")

    lines = [line for line in gitlab_script() if not line.startswith("pip install")]
    assert len(lines) == len(gitlab_script()) - 1
    body = "\n".join(line.replace("--case lattice", f"--case {shlex.quote(str(case))}") for line in lines)
    python = shlex.quote(sys.executable)
    script = f'set -eo pipefail\nlattice-desktop() {{ {python} -m lattice_desktop "$@"; }}\n{body}\n'
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run(
        ["bash", "-c", script], check=False, cwd=repo, env=env, capture_output=True, text=True, timeout=300
    )

    # the grade's report: every case a test, whatever the gate says
    (suite,) = list(read_junit(repo / "grade.xml"))
    assert [t.name for t in suite] == ["hello: echoes a short input", "longer"]
    assert all(t.is_passed for t in suite)
    head, _ = markdown_tables((repo / "grade.md").read_text(encoding="utf-8"))
    assert head[1][0] == "✓ correct"
    summary = (repo / "compare.md").read_text(encoding="utf-8")
    if candidate == "same":
        assert done.returncode == 0, done.stderr
        assert "**✅ ok** (--fail-above 2%)" in summary
    else:
        assert done.returncode == 1, done.stderr
        assert "**❌ FAIL** (--fail-above 2%): longer" in summary
        assert "FAIL: 1 case(s) worse by more than 2%" in done.stdout
