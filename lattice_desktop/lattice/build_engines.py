"""Rebuild the bundled Lattice engines (C → wasm32) into their submission folders.

    python -m lattice_desktop.lattice.build_engines [--out DIR]

Each submission folder holds `engine.c` (a copy of `resources/engines/<name>.c`), the
shared `lattice_common.h` and any other engine's source it includes, `submission.toml` and
the built `engine.wasm`. The copies keep a folder self-contained for its build (the build
jail sees only the folder); `resources/engines/` is their one source, and
`stale_copies` (checked by tests/lattice/test_sample_sources.py) names a copy that drifted.
The build
runs inside the folder with relative paths and `-g` with `-fdebug-compilation-dir=.`: the
DWARF line table lets a fuel profile name the source line of every unit of fuel, and it
records `.` rather than the folder, so the module is byte-identical wherever it is built
(the tests rebuild into a temp dir and compare). The linker's name section stays, so a
profile names the C functions. Debug info and names are custom sections: the code section
is byte-identical to a `-g0` build's and custom sections cost no fuel, so the graded
figures are those of a stripped build (tests/profile/test_names.py and
tests/profile/test_line_build.py check both).
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ENGINES_DIR = REPO / "resources" / "engines"
SUBMISSIONS_DIR = REPO / "resources" / "cases" / "lattice" / "submissions"
COMMON_HEADER = "lattice_common.h"
EXPORTS = ("alloc", "lattice_run", "lattice_records")
# Inspection exports for playback (not part of the contract; see lattice_common.h).
STEPPING_EXPORTS = ("lattice_begin", "lattice_step", "lattice_records_now")

COMPILE_ARGS = (
    "-m",
    "ziglang",
    "cc",
    "--target=wasm32-freestanding",
    "-O2",
    "-g",  # DWARF line info for the profile's source lines; the code is that of -g0
    "-fdebug-compilation-dir=.",  # records no folder: the same bytes wherever it is built
    "-nostdlib",
    "-Wl,--no-entry",
    *(f"-Wl,--export={name}" for name in EXPORTS + STEPPING_EXPORTS),
    "-o",
    "engine.wasm",
    "engine.c",
)


@dataclass(frozen=True)
class SampleEngine:
    """One bundled engine and the verdict its submission is expected to get."""

    name: str
    expected_verdict: str
    includes: tuple[str, ...] = ()  # other engines' sources it includes, staged beside it


SAMPLES = (
    SampleEngine("reference", "over_ceiling"),
    SampleEngine("lines", "correct"),
    SampleEngine("buggy", "incorrect"),
    SampleEngine("stuck_rings", "incorrect", includes=("lines.c",)),
    SampleEngine("scale_bug", "incorrect", includes=("lines.c",)),
)


def build_command() -> str:
    """The build command as written in submission.toml."""
    return " ".join(("python", *COMPILE_ARGS))


def manifest_text(sample: SampleEngine) -> str:
    return (
        "[submission]\n"
        f'model = "sample-{sample.name}"\n'
        'case = "lattice"\n'
        f'expected_verdict = "{sample.expected_verdict}"\n'
        "\n"
        "[build]\n"
        f'commands = ["{build_command()}"]\n'
        'module = "engine.wasm"\n'
    )


def staged_files(sample: SampleEngine) -> dict[str, bytes]:
    """What `build` writes into the folder of `sample` before compiling, by file name."""
    files = {"engine.c": (ENGINES_DIR / f"{sample.name}.c").read_bytes()}
    files |= {name: (ENGINES_DIR / name).read_bytes() for name in (COMMON_HEADER, *sample.includes)}
    files["submission.toml"] = manifest_text(sample).encode()
    return files


def stale_copies(root: Path = SUBMISSIONS_DIR) -> list[str]:
    """The staged files under `root` that are missing or differ from their source, and the
    sources a folder holds that its build does not stage (`root/<name>/<file>` each)."""
    stale = []
    for sample in SAMPLES:
        folder = root / sample.name
        staged = staged_files(sample)
        for name, data in staged.items():
            path = folder / name
            if not path.is_file() or path.read_bytes() != data:
                stale.append(f"{sample.name}/{name}")
        extra = {p.name for p in folder.glob("*.[ch]")} - staged.keys() if folder.is_dir() else set()
        stale += [f"{sample.name}/{name}" for name in sorted(extra)]
    return stale


def build(sample: SampleEngine, folder: Path) -> Path:
    """Stage the sources of `sample` into `folder`, compile there, return the module."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in staged_files(sample).items():
        (folder / name).write_bytes(data)
    subprocess.run([sys.executable, *COMPILE_ARGS], cwd=folder, check=True)
    return folder / "engine.wasm"


def build_all(root: Path = SUBMISSIONS_DIR) -> list[Path]:
    """Build every sample engine into `root/<name>/`; return the module paths."""
    return [build(sample, root / sample.name) for sample in SAMPLES]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=SUBMISSIONS_DIR, help="submissions root")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("ziglang") is None:
        print("error: building the engines needs ziglang: pip install 'ziglang==0.17.1'", file=sys.stderr)
        return 2
    for path in build_all(args.out):
        print(f"{path} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
