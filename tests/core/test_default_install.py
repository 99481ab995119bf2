"""The default install (`pip install -e .`) does what the app and its samples offer: every
package the code imports, and every tool the bundled samples' builds run with `python -m`,
comes from a core dependency — unless it belongs to an extra, and then its absence is a
message that names the extra."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

from lattice_desktop.manifest import load_submission
from lattice_desktop.resources import resolve_case_path

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def installed_with(requirements: list[str]) -> set[str]:
    """The distributions `pip install` of `requirements` brings in: each one, its extras and
    theirs, read from the installed metadata."""
    todo = [Requirement(r) for r in requirements]
    seen: set[tuple[str, str]] = set()
    found: set[str] = set()
    while todo:
        req = todo.pop()
        for extra in req.extras or {""}:
            if (canonical(req.name), extra) in seen:
                continue
            seen.add((canonical(req.name), extra))
            found.add(canonical(req.name))
            for line in importlib.metadata.requires(req.name) or []:
                dep = Requirement(line)
                if dep.marker is None or dep.marker.evaluate({"extra": extra}):
                    todo.append(dep)
    return found


CORE = installed_with(PYPROJECT["dependencies"])
EXTRAS = {
    extra: installed_with(reqs)
    for extra, reqs in PYPROJECT["optional-dependencies"].items()
    if extra != "test"
}


def imported_top_level_modules() -> set[str]:
    """The top-level names every module of the package imports (not its own, not the stdlib)."""
    found: set[str] = set()
    for path in (ROOT / "lattice_desktop").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return {n for n in found if n != "lattice_desktop" and n not in sys.stdlib_module_names}


def sample_build_modules() -> set[str]:
    """The modules the bundled samples' build commands run as `python -m MODULE`."""
    samples = resolve_case_path("lattice").parent / "submissions"
    modules = set()
    for manifest in samples.glob("*/submission.toml"):
        for command in load_submission(manifest.parent).commands:
            modules.update(re.findall(r"\bpython3? -m ([\w.]+)", command))
    return modules


def distributions(module: str) -> set[str]:
    provided = importlib.metadata.packages_distributions().get(module, [])
    return {canonical(d) for d in provided}


def test_every_module_the_code_and_the_samples_need_is_a_core_dependency_or_an_extra():
    needed = imported_top_level_modules() | sample_build_modules()
    assert {"dask", "distributed", "ziglang", "PySide6"} <= needed  # the scan sees what it must
    optional = set().union(*EXTRAS.values())
    missing = {m: distributions(m) for m in needed if not distributions(m) & (CORE | optional)}
    assert missing == {}, "imported or run by the app, yet installed only with the test extra"


def test_the_batch_engine_and_the_samples_toolchain_are_in_the_default_install():
    for module in ("distributed", *sample_build_modules()):
        assert distributions(module) & CORE, module


def test_a_postgresql_url_without_the_driver_names_the_extra_to_install(tmp_path):
    block = "import sys; sys.modules['psycopg2'] = None; from lattice_desktop.cli.main import main; "
    done = subprocess.run(
        [sys.executable, "-c", block + "sys.exit(main(['runs', '--db', 'postgresql://u@127.0.0.1:1/x']))"],
        check=False,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 2, done.stderr
    assert "pip install 'lattice-desktop[postgres]'" in done.stderr
    assert "postgres" in EXTRAS and "Traceback" not in done.stderr


def test_build_engines_without_ziglang_says_what_to_install(tmp_path):
    block = (
        "import importlib.util, sys; real = importlib.util.find_spec; "
        "importlib.util.find_spec = lambda n, *a: None if n == 'ziglang' else real(n, *a); "
        "from lattice_desktop.lattice.build_engines import main; sys.exit(main(['--out', sys.argv[1]]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", block, str(tmp_path)], check=False, capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 2
    assert "pip install 'ziglang==0.17.1'" in done.stderr and "Traceback" not in done.stderr
    assert not any(tmp_path.iterdir())  # nothing half-built
