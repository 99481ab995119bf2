"""The PyInstaller bundle, built as `python packaging/build.py` builds it and run from its
unpacked tar.gz, far from the source tree: it answers --version, grades the bundled case
from the command line and saves every tab's screenshot offscreen."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from lattice_desktop import __version__

pytestmark = [pytest.mark.packaging, pytest.mark.slow]
SHOTS = [
    "results",
    "fuel",
    "leaderboard",
    "results_incorrect",
    "factory",
    "factory_why",
    "factory_largest",
    "factory_scale",
    "factory_scale_heatmap",
    "harness_results",
    "harness_leaderboard",
    "scenario_file",
]


def frozen_env(home: Path) -> dict[str, str]:
    """No source tree, no display: nothing the bundle could borrow from the checkout."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"PYTHONPATH", "LATTICE_DESKTOP_RESOURCES", "DISPLAY", "WAYLAND_DISPLAY"}
    }
    env.update(
        HOME=str(home),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CACHE_HOME=str(home / "cache"),
        XDG_CONFIG_HOME=str(home / "config"),
        LATTICE_DESKTOP_CACHE=str(home / "modules"),
        LATTICE_DESKTOP_DB=str(home / "runs.db"),
    )
    env.pop("QT_QPA_PLATFORM", None)
    return env


def run(unpacked: Path, tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(unpacked / "lattice-desktop" / "lattice-desktop"), *args],
        check=False,
        env={**frozen_env(tmp_path), **env},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_archive_holds_the_bundle_and_the_desktop_integration(unpacked):
    assert (unpacked / "lattice-desktop" / "lattice-desktop").stat().st_mode & 0o111
    for name in (
        "install.sh",
        "lattice-desktop.desktop",
        "lattice-desktop-mime.xml",
        "icons/hicolor/scalable/apps/lattice-desktop.svg",
        "icons/hicolor/512x512/apps/lattice-desktop.png",
    ):
        assert (unpacked / name).is_file(), name
    internal = unpacked / "lattice-desktop" / "_internal"
    assert list(internal.rglob("_libwasmtime.so")), "wasmtime's native library is missing"
    assert (internal / "resources" / "cases" / "lattice" / "case.toml").is_file()
    # Only the Qt modules the app draws with (pyqtgraph's curves import the OpenGL two).
    bindings = {p.name.split(".")[0] for p in (internal / "PySide6").glob("Qt*.so")}
    assert bindings == {"QtCore", "QtGui", "QtWidgets", "QtOpenGL", "QtOpenGLWidgets"}
    assert not list(internal.rglob("libQt6Quick.so*")) and not list(internal.rglob("libQt6Qml.so*"))


def test_the_frozen_app_answers_version(unpacked, tmp_path):
    done = run(unpacked, tmp_path, "--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"lattice-desktop {__version__}"


def test_the_frozen_app_grades_the_bundled_case(unpacked, tmp_path):
    samples = unpacked / "lattice-desktop" / "_internal" / "resources" / "cases" / "lattice" / "submissions"
    done = run(unpacked, tmp_path, "grade", str(samples / "lines"), "--case", "lattice", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["verdict"] == "correct"
    # The module was compiled by the bundle starting itself as the compile worker.
    assert list((tmp_path / "modules").rglob("*.cwasm"))
    buggy = run(unpacked, tmp_path, "grade", str(samples / "buggy"), "--case", "lattice")
    assert buggy.returncode == 1, buggy.stdout + buggy.stderr
    assert "incorrect" in buggy.stdout


def test_the_frozen_app_profiles_with_its_own_wasm_tools(unpacked, tmp_path):
    samples = unpacked / "lattice-desktop" / "_internal" / "resources" / "cases" / "lattice" / "submissions"
    args = ("profile", str(samples / "lines"), "--case", "lattice", "--case-name", "straight_belt", "--json")
    done = run(unpacked, tmp_path, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(done.stdout)
    assert data["outcome"] == "returned"
    assert sum(f["self_fuel"] for f in data["functions"]) == data["total_fuel"] > 0
    assert "engine_tick" in {f["name"] for f in data["functions"]}


def test_the_frozen_app_leaves_the_optional_inspect_reader_out_and_says_so(unpacked, tmp_path):
    examples = unpacked / "lattice-desktop" / "_internal" / "resources" / "harness" / "inspect"
    done = run(
        unpacked,
        tmp_path,
        "harness",
        "score",
        str(examples / "webshop_ctf.eval"),
        "--box",
        str(examples / "webshop_ctf.box.toml"),
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "needs the optional inspect_ai package" in done.stderr
    assert not list((unpacked / "lattice-desktop" / "_internal").glob("inspect_ai*"))


def test_the_frozen_app_saves_screenshots_offscreen(unpacked, tmp_path):
    done = run(unpacked, tmp_path, "screenshots", str(tmp_path / "shots"))
    assert done.returncode == 0, done.stderr
    saved = [Path(line) for line in done.stdout.split()]
    assert [p.stem for p in saved] == SHOTS
    for path in saved:
        image = QImage(str(path))
        assert (image.width(), image.height()) == (1500, 920), path.name
        colours = {image.pixel(x, y) for x in range(0, 1500, 25) for y in range(0, 920, 25)}
        assert len(colours) > 20, path.name


def test_the_unpacked_bundle_installs_into_the_launcher(unpacked, tmp_path):
    env = {**frozen_env(tmp_path), "XDG_BIN_HOME": str(tmp_path / "bin")}
    done = subprocess.run(
        ["sh", str(unpacked / "install.sh")], check=False, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    binary = unpacked / "lattice-desktop" / "lattice-desktop"
    assert (tmp_path / "bin" / "lattice-desktop").resolve() == binary.resolve()
    entry = (tmp_path / "data" / "applications" / "lattice-desktop.desktop").read_text()
    assert f"Exec={binary} open %F" in entry
    linked = subprocess.run(
        [str(tmp_path / "bin" / "lattice-desktop"), "--version"],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )  # finds its files through the link
    assert linked.returncode == 0 and linked.stdout.strip() == f"lattice-desktop {__version__}"
