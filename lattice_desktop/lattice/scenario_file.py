"""A standalone scenario file (`*.lat`) opened to look at, not graded: its factory at any
tick with the reference engine, and its snapshot checksums.

The reference computes the checksums. When `scenario expect` left a NAME.u64 beside the
file, those are the expected ones and the reference's are compared with them, so a case
author sees at a glance whether the stored answers still hold."""

from __future__ import annotations

import os
import stat
import struct
from dataclasses import dataclass
from pathlib import Path

from lattice_desktop.errors import UserError
from lattice_desktop.lattice.playback import Playback, reference_engine
from lattice_desktop.lattice.rules import simulate
from lattice_desktop.lattice.scenario import MAX_SCENARIO_BYTES, parse_scenario
from lattice_desktop.lattice.wasm_engine import WasmEngine
from lattice_desktop.work import Work

SUFFIX, EXPECTED_SUFFIX = ".lat", ".u64"


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


def read_scenario_file(path: Path, *, limit: int = MAX_SCENARIO_BYTES) -> bytes:
    """The file's bytes, refused by its size before a byte is read (a 3 GiB file must not
    cost 3 GiB of memory to be told it is too large), and never more than `limit` of them
    even if it grows while read. A FIFO or a device is refused without blocking on it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise UserError(f"{path}: no such scenario file") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read it ({exc.strerror})") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        if stat.S_ISDIR(info.st_mode):
            raise UserError(f"{path}: no such scenario file (it is a folder)")
        raise UserError(f"{path}: not a scenario file (a FIFO, device or other special file)")
    with os.fdopen(fd, "rb") as file:
        if info.st_size > limit:
            raise UserError(_too_large(path, info.st_size, limit))
        try:
            data = file.read(limit + 1)
        except OSError as exc:
            raise UserError(f"{path}: cannot read it ({exc.strerror})") from None
    if len(data) > limit:
        raise UserError(_too_large(path, len(data), limit))
    return data


def _too_large(path: Path, size: int, limit: int) -> str:
    return f"{path}: {size:,} bytes is too large for a scenario file (at most {limit:,})"


def reference_checksums(playback: Playback, engine: WasmEngine | None, *, work: Work | None = None) -> bytes:
    if engine is not None:
        sums = engine.run(playback.data, work=work)
    else:
        sums = simulate(playback.scenario, work=work)
    return struct.pack(f"<{len(sums)}Q", *sums)


def open_scenario_file(
    path: str | Path, engine: WasmEngine | None = None, *, work: Work | None = None
) -> ScenarioFile:
    """Parse `path` (a clear error with its line if it is not a valid scenario), set up its
    playback and compute its checksums with the reference. Runs on a worker thread;
    cancelling `work` stops it at once (`Cancelled`), even inside the reference's run."""
    work = work or Work()
    path = Path(path).resolve()
    data = read_scenario_file(path)
    parse_scenario(data, source=str(path))
    work.raise_if_cancelled()
    engine = engine if engine is not None else reference_engine()
    playback = Playback(data, engine)
    computed = reference_checksums(playback, engine, work=work)
    stored = path.with_suffix(EXPECTED_SUFFIX)
    if stored.is_file():
        return ScenarioFile(path, playback, stored.read_bytes(), computed, f"expected from {stored.name}")
    return ScenarioFile(path, playback, computed, None, f"checksums from the {playback.engine_name}")
