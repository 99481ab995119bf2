"""Build the one-folder bundle and its tar.gz: `python packaging/build.py [--dist DIR]`.

Runs PyInstaller on packaging/lattice-desktop.spec, prints the bundle's size and the time
the build took, then packs the bundle with the desktop file, the MIME type, the icons and
install.sh into lattice-desktop-VERSION-linux-ARCH.tar.gz beside it."""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGING = ROOT / "packaging"
NAME = "lattice-desktop"


@dataclass(frozen=True)
class Bundle:
    folder: Path  # holds the executable `lattice-desktop` and `_internal/`
    archive: Path
    size: int  # bytes on disk of every file in the folder
    files: int
    seconds: float

    @property
    def executable(self) -> Path:
        return self.folder / NAME


def folder_size(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]
    return sum(p.stat().st_size for p in files), len(files)


def version() -> str:
    sys.path.insert(0, str(ROOT))
    from lattice_desktop import __version__

    return __version__


def write_archive(folder: Path, target: Path, top: str) -> Path:
    """The bundle under top/NAME/, plus what install.sh puts in the launcher."""
    extras = {
        "install.sh": PACKAGING / "install.sh",
        f"{NAME}.desktop": PACKAGING / f"{NAME}.desktop",
        f"{NAME}-mime.xml": PACKAGING / f"{NAME}-mime.xml",
        "icons/hicolor": ROOT / "resources" / "icons" / "hicolor",
    }
    with tarfile.open(target, "w:gz", compresslevel=6) as tar:
        tar.add(folder, arcname=f"{top}/{NAME}")
        for name, source in extras.items():
            tar.add(source, arcname=f"{top}/{name}")
    return target


def build(dist: Path, work: Path, *, archive: bool = True) -> Bundle:
    started = time.monotonic()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--log-level",
            "WARN",
            "--distpath",
            str(dist),
            "--workpath",
            str(work),
            str(PACKAGING / f"{NAME}.spec"),
        ],
        check=True,
        cwd=ROOT,
    )
    folder = dist / NAME
    top = f"{NAME}-{version()}-linux-{platform.machine()}"
    target = dist / f"{top}.tar.gz"
    if archive:
        write_archive(folder, target, top)
    size, files = folder_size(folder)
    return Bundle(folder, target, size, files, time.monotonic() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="where the bundle goes")
    parser.add_argument(
        "--work", type=Path, default=ROOT / "build" / "pyinstaller", help="PyInstaller's scratch folder"
    )
    parser.add_argument("--no-archive", action="store_true", help="skip the tar.gz")
    args = parser.parse_args(argv)
    bundle = build(args.dist.resolve(), args.work.resolve(), archive=not args.no_archive)
    print(f"bundle: {bundle.folder} — {bundle.size / 1e6:.1f} MB in {bundle.files:,} files")
    if not args.no_archive:
        print(f"archive: {bundle.archive} — {bundle.archive.stat().st_size / 1e6:.1f} MB")
    print(f"built in {bundle.seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
