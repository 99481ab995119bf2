"""Issue 45 item 3: a case's own code runs jailed, and only when allowed.

The review's case folder ran its generator and build commands as the user with the full
environment, no jail and no question; even `case build --check` ("write nothing") wrote
outside the folder. Here a case whose generator and reference build try to write outside
the folder, read a private file of the user's and read a secret from the environment:
without consent nothing runs; with it everything runs jailed (none of those succeeds, the
case still builds), and `--check` leaves every file where it was.
"""

from __future__ import annotations

import os

import pytest

from lattice_desktop.cli.main import main
from lattice_desktop.sandbox.isolation import isolation
from tests.casekit.conftest import built_template, snapshot, template  # noqa: F401  (fixtures)

pytestmark = pytest.mark.skipif(not isolation().available, reason=f"no build jail here: {isolation().reason}")

SECRET_VARIABLE = "LATTICE_TEST_CASE_SECRET"
PROBE = """
import os
from pathlib import Path

def probe(outside, private, seen):
    tried = []
    for target in (outside, "../written-by-the-generator.txt"):
        try:
            Path(target).write_text("the case's code was here")
            tried.append(f"wrote {{target}}")
        except OSError:
            tried.append(f"could not write {{target}}")
    try:
        tried.append("read: " + Path(private).read_text())
    except OSError:
        tried.append("could not read the private file")
    tried.append(f"secret: {{os.environ.get({secret!r}, 'none')}}")
    tried.append(f"variables: {{len(os.environ)}}")
    Path(seen).write_text("\\n".join(tried) + "\\n")

probe({outside!r}, {private!r}, "seen-by-the-generator.txt")
"""


@pytest.fixture
def hostile(template, tmp_path, monkeypatch):  # noqa: F811  (the fixture imported above)
    """The template case, its generator and reference build made to probe their bounds."""
    outside = tmp_path / "outside" / "written.txt"
    outside.parent.mkdir()
    private = tmp_path / "private.txt"
    private.write_text("the user's private words")
    os.chmod(private, 0o600)
    monkeypatch.setenv(SECRET_VARIABLE, "s3cret-token")
    probe = PROBE.format(outside=str(outside), private=str(private), secret=SECRET_VARIABLE)
    generator = template / "generate.py"
    generator.write_text(generator.read_text() + "\n" + probe)
    manifest = template / "submissions" / "reference" / "submission.toml"
    escape = f"echo built > {outside.parent / 'by-the-build.txt'} || true; echo built > ../../../by-the-build.txt || true"
    manifest.write_text(manifest.read_text().replace("commands = [", f"commands = [{escape!r}, ", 1))
    return template, outside.parent


def test_without_consent_nothing_of_the_case_runs(hostile, capsys):
    case, outside = hostile
    before = snapshot(case)
    assert main(["case", "build", str(case)]) == 2
    message = capsys.readouterr().err
    assert "--allow-case-code" in message and "python generate.py" in message and "echo built" in message
    assert snapshot(case) == before
    assert list(outside.iterdir()) == [] and not (case.parent / "written-by-the-generator.txt").exists()
    assert main(["case", "build", str(case), "--check"]) == 2
    assert snapshot(case) == before


def test_with_consent_the_case_code_runs_jailed(hostile, capsys):
    case, outside = hostile
    assert main(["case", "build", str(case), "--allow-case-code"]) == 0, capsys.readouterr().err
    seen = (case / "seen-by-the-generator.txt").read_text()
    assert "could not write " + str(outside / "written.txt") in seen, seen
    assert "could not read the private file" in seen and "secret: none" in seen, seen
    variables = int(seen.split("variables: ")[1])
    assert variables <= 10, seen
    assert list(outside.iterdir()) == []
    assert not (case.parent / "written-by-the-generator.txt").exists()
    assert not (case.parent / "by-the-build.txt").exists()
    assert (case / "expected" / "n-1000.u64").is_file()  # the case still built
    print(f"the generator saw {variables} environment variables")


def test_check_writes_nothing_anywhere(hostile, capsys):
    case, outside = hostile
    before = snapshot(case)
    around = sorted(p.name for p in case.parent.iterdir())
    code = main(["case", "build", str(case), "--allow-case-code", "--check"])
    out = capsys.readouterr().out
    assert code == 1 and "differs: seen-by-the-generator.txt" in out
    assert snapshot(case) == before
    assert sorted(p.name for p in case.parent.iterdir()) == around
    assert list(outside.iterdir()) == []
