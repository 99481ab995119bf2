"""A standalone scenario file (`*.lat`), looked at rather than graded: its bytes read within
bounds and its snapshot checksums from the reference (the Factory tab opens one through
`services/factory_opening.py`).

The reference computes the checksums. When `scenario expect` left a NAME.u64 beside the
file, those are the expected ones and the reference's are compared with them, so a case
author sees at a glance whether the stored answers still hold."""

from __future__ import annotations

import os
import stat
import struct
from pathlib import Path

from lattice_desktop.errors import UserError
from lattice_desktop.lattice.playback import Playback
from lattice_desktop.lattice.rules import simulate
from lattice_desktop.lattice.scenario import MAX_SCENARIO_BYTES
from lattice_desktop.lattice.wasm_engine import WasmEngine
from lattice_desktop.work import Work

SUFFIX, EXPECTED_SUFFIX = ".lat", ".u64"


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
