"""Desktop integration: the icons at every hicolor size, the desktop entry, the `.lat` MIME
type, and install.sh putting them under a temporary XDG_DATA_HOME (and taking them away)."""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
HICOLOR = ROOT / "resources" / "icons" / "hicolor"
SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)


def desktop_entry(path: Path) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str
    parser.read(path)
    return dict(parser["Desktop Entry"])


def test_icons_exist_at_every_hicolor_size():
    assert (HICOLOR / "scalable" / "apps" / "lattice-desktop.svg").is_file()
    for size in SIZES:
        image = QImage(str(HICOLOR / f"{size}x{size}" / "apps" / "lattice-desktop.png"))
        assert (image.width(), image.height()) == (size, size)
        centre = image.pixelColor(size // 2, size // 2)
        assert centre.alpha() == 255  # drawn, not an empty transparent square


def test_icons_render_from_the_svg(qapp, tmp_path):
    sys.path.insert(0, str(PACKAGING))
    try:
        from icons import render_icons
    finally:
        sys.path.remove(str(PACKAGING))
    written = render_icons(root=tmp_path, sizes=(16, 48))
    assert [QImage(str(p)).width() for p in written] == [16, 48]
    assert written[1] == tmp_path / "48x48" / "apps" / "lattice-desktop.png"


def test_the_desktop_entry_opens_scenario_files_with_the_app():
    entry = desktop_entry(PACKAGING / "lattice-desktop.desktop")
    assert entry["Exec"] == "lattice-desktop open %F"
    assert entry["Icon"] == "lattice-desktop"
    assert "application/x-lattice-scenario" in entry["MimeType"].split(";")
    mime = (PACKAGING / "lattice-desktop-mime.xml").read_text()
    assert 'type="application/x-lattice-scenario"' in mime and 'pattern="*.lat"' in mime


def test_the_app_names_its_desktop_file(qapp):
    from lattice_desktop.ui.app import DESKTOP_FILE, make_application

    app = make_application()
    assert app.desktopFileName() == DESKTOP_FILE == "lattice-desktop"
    assert (PACKAGING / f"{DESKTOP_FILE}.desktop").is_file()
    sizes = {s.width() for s in app.windowIcon().availableSizes()}
    assert {16, 32, 48, 256} <= sizes


@pytest.fixture
def launcher_bin(tmp_path) -> Path:
    """A PATH holding the real `lattice-desktop` of this environment."""
    found = shutil.which("lattice-desktop", path=str(Path(sys.executable).parent))
    assert found, "the package is installed with its console script"
    return Path(found)


def test_install_puts_the_app_in_the_launcher_and_uninstall_removes_it(tmp_path, launcher_bin):
    data = tmp_path / "data"
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "XDG_DATA_HOME": str(data),
        "PATH": f"{launcher_bin.parent}{os.pathsep}{os.environ['PATH']}",
    }
    done = subprocess.run(
        ["sh", str(PACKAGING / "install.sh")], check=False, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    entry = desktop_entry(data / "applications" / "lattice-desktop.desktop")
    assert entry["Exec"] == f"{launcher_bin} open %F"
    assert entry["TryExec"] == str(launcher_bin)
    for size in SIZES:
        assert (data / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "lattice-desktop.png").is_file()
    assert (data / "icons" / "hicolor" / "scalable" / "apps" / "lattice-desktop.svg").is_file()
    assert (data / "mime" / "packages" / "lattice-desktop.xml").is_file()
    if shutil.which("update-mime-database"):  # the shared-mime-info database knows *.lat now
        assert "application/x-lattice-scenario:*.lat" in (data / "mime" / "globs2").read_text()
    assert not (tmp_path / ".local" / "bin").exists()  # a source install links no binary

    done = subprocess.run(
        ["sh", str(PACKAGING / "install.sh"), "--uninstall"],
        check=False,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert not (data / "applications" / "lattice-desktop.desktop").exists()
    assert not list((data / "icons").rglob("lattice-desktop.*"))
    assert not (data / "mime" / "packages" / "lattice-desktop.xml").exists()


def test_install_without_the_app_says_what_to_do(tmp_path):
    env = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        ["sh", str(PACKAGING / "install.sh")], check=False, env=env, capture_output=True, text=True
    )
    assert done.returncode == 1
    assert "no lattice-desktop to launch" in done.stderr
    assert not (tmp_path / "data" / "applications").exists()
