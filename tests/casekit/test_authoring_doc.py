"""docs/case-authoring.md is true: its `sh` blocks, run in order in a fresh folder as a
shell would, make a case, build it, check it, grade a field and rank it; and the `case check`
listing the page quotes is what the check prints."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "case-authoring.md").read_text()


def quoted_listing(first: str) -> list[str]:
    """The indented listing of the page that starts with `first`, dedented."""
    lines = DOC.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(first))
    out = []
    for line in lines[start:]:
        if not line.startswith("    "):
            break
        out.append(line[4:])
    return out


def test_the_readme_links_the_page():
    assert "docs/case-authoring.md" in (ROOT / "README.md").read_text()


@pytest.mark.slow
def test_the_walkthrough_runs_from_nothing_to_a_ranked_field(tmp_path):
    script = "\n".join(re.findall(r"```sh\n(.*?)```", DOC, re.DOTALL))
    assert "lattice-desktop case new" in script and "grade-batch" in script
    env = dict(
        os.environ,
        PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        LATTICE_DESKTOP_DB=str(tmp_path / "runs.db"),
    )
    done = subprocess.run(
        ["bash", "-ec", script],
        check=False,
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout.splitlines()
    listing = quoted_listing("sums 1/standard:")
    start = out.index(listing[0])
    assert out[start : start + len(listing)] == listing
    board = out[out.index(next(line for line in out if line.startswith("sums 1/standard · wasmtime"))) :]
    assert board[1].startswith("#1") and "sample-reference" in board[1]
    assert any("sample-unoptimised" in line for line in board[2:])
