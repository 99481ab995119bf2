"""A standalone scenario file (`*.lat`) opened to look at, not graded: its factory at any
tick with the reference engine, and its snapshot checksums.

The reference computes the checksums. When `scenario expect` left a NAME.u64 beside the
file, those are the expected ones and the reference's are compared with them, so a case
author sees at a glance whether the stored answers still hold."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from lattice_desktop.errors import UserError
from lattice_desktop.lattice.playback import Playback, reference_engine
from lattice_desktop.lattice.rules import simulate
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.wasm_engine import WasmEngine

SUFFIX, EXPECTED_SUFFIX = ".lat", ".u64"
MAX_FILE_BYTES = 256 * 2**20


@dataclass(frozen=True)
class ScenarioFile:
    path: Path
    playback: Playback
    expected: bytes  # u64 checksums, little-endian: the stored answers, else the reference's
    got: bytes | None  # the reference's, when there were stored answers to compare with
    expected_source: str  # where `expected` came from, to tell the user

    @property
    def name(self) -> str:
        return self.path.name


def read_scenario_file(path: Path) -> bytes:
    """The file's bytes, once it is known to be a readable scenario of sane size."""
    if not path.is_file():
        raise UserError(f"{path}: no such scenario file")
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise UserError(f"{path}: {size:,} bytes is too large for a scenario file")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise UserError(f"{path}: cannot read it ({exc.strerror})") from None


def reference_checksums(playback: Playback, engine: WasmEngine | None) -> bytes:
    sums = engine.run(playback.data) if engine is not None else simulate(playback.scenario)
    return struct.pack(f"<{len(sums)}Q", *sums)


def open_scenario_file(path: str | Path, engine: WasmEngine | None = None) -> ScenarioFile:
    """Parse `path` (a clear error with its line if it is not a valid scenario), set up its
    playback and compute its checksums with the reference. Runs on a worker thread."""
    path = Path(path).resolve()
    data = read_scenario_file(path)
    parse_scenario(data, source=str(path))
    engine = engine if engine is not None else reference_engine()
    playback = Playback(data, engine)
    computed = reference_checksums(playback, engine)
    stored = path.with_suffix(EXPECTED_SUFFIX)
    if stored.is_file():
        return ScenarioFile(path, playback, stored.read_bytes(), computed, f"expected from {stored.name}")
    return ScenarioFile(path, playback, computed, None, f"checksums from the {playback.engine_name}")
