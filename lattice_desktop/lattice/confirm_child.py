"""Confirming a fast engine against the reference on an opened scenario file, in a child
process on the other core.

A file has no expected answers to prove an engine on (`proven.py` does that for a case's
scenarios), so the fast engine is trusted only as far as it has been seen to agree with
the reference: the child steps both engines side by side and, at every snapshot, prints
both checksums (worked out from their §8 records, `records_checksum`). The parent reads
them as they come (`confirm_in_child`): the reference's checksums make the file's
snapshot table, and the fast engine is confirmed up to the last snapshot at which every
snapshot so far agreed. Cancelling kills the child.

    python -m lattice_desktop.lattice.confirm_child FAST.wasm REFERENCE.wasm < SCENARIO
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lattice_desktop.errors import Cancelled, UserError
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.simulators import WasmSimulator
from lattice_desktop.work import Work

SNAPSHOT = "snapshot"  # the child's stdout: "snapshot K REFERENCE FAST", one line a snapshot
_GOLDEN, _M1, _M2 = (
    np.uint64(0x9E3779B97F4A7C15),
    np.uint64(0xBF58476D1CE4E5B9),
    np.uint64(0x94D049BB133111EB),
)


def _mix(z: np.ndarray) -> np.ndarray:
    """`checksum.mix` on a whole array, in wrapping u64 arithmetic."""
    z = z + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def records_checksum(pairs: np.ndarray, tick: int) -> int:
    """The §5 checksum after `tick` of the state (n, 2) u64 records describe (as
    `checksum.checksum_from_records`, vectorised)."""
    keys, values = pairs[:, 0].astype(np.uint64), pairs[:, 1].astype(np.uint64)
    kind = keys >> np.uint64(56)
    mixed = _mix(keys)
    counted = (kind == 3) | (kind == 6)
    terms = np.where(counted, _mix(mixed + values), mixed)
    with np.errstate(over="ignore"):
        acc = int(terms.sum(dtype=np.uint64))
    return int(_mix(np.array([acc ^ tick], np.uint64))[0])


@dataclass(frozen=True)
class Confirmation:
    """How far the child has got: the reference's checksum at each snapshot so far, and the
    last tick up to which the fast engine agreed at every snapshot."""

    fast: str  # the fast engine's module
    interval: int
    reference: tuple[int, ...]
    confirmed_to: int  # 0: nothing confirmed yet
    parted_at: int | None  # the first snapshot's tick where the fast engine disagreed

    @property
    def name(self) -> str:
        """The fast engine's name: its sample folder's (e.g. "lines")."""
        return Path(self.fast).parent.name


def confirm_in_child(fast: Path, reference: Path, data: bytes, *, work: Work | None = None) -> Confirmation:
    """Run the child to the end; `work` gets a step per snapshot whose item is the
    `Confirmation` so far. Raises `Cancelled` when `work` is cancelled (the child is killed)."""
    work = work or Work()
    scenario = parse_scenario(data)
    interval, total = scenario.snapshot, scenario.ticks // max(1, scenario.snapshot)
    reference_sums: list[int] = []
    confirmed, parted = 0, None
    with subprocess.Popen(
        [sys.executable, "-m", __name__, str(fast), str(reference)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    ) as child:
        work.on_cancel(child.kill)
        errors: list[bytes] = []
        drain = threading.Thread(target=lambda: errors.append(child.stderr.read()), daemon=True)  # type: ignore[union-attr]
        drain.start()
        try:
            child.stdin.write(data)  # type: ignore[union-attr]
            child.stdin.close()  # type: ignore[union-attr]
        except BrokenPipeError:
            pass
        for line in child.stdout:  # type: ignore[union-attr]
            kind, k, ref, got = line.decode().split()
            if kind != SNAPSHOT:
                continue
            reference_sums.append(int(ref, 16))
            if parted is None and ref == got:
                confirmed = int(k) * interval
            elif parted is None:
                parted = int(k) * interval
            so_far = Confirmation(str(fast), interval, tuple(reference_sums), confirmed, parted)
            work.report(len(reference_sums) / max(1, total), f"confirmed to tick {confirmed:,}", so_far)
        child.wait()
        drain.join()
    if work.cancelled:
        raise Cancelled()
    if len(reference_sums) != total:
        message = b"".join(errors).decode("utf-8", "replace").strip().splitlines()
        raise UserError(message[-1] if message else f"the confirmation stopped (exit {child.returncode})")
    return Confirmation(str(fast), interval, tuple(reference_sums), confirmed, parted)


def main() -> int:
    os.nice(5)  # background work: the app's own threads (Play, seeks, drawing) come first
    fast_path, reference_path = sys.argv[1:3]
    data = sys.stdin.buffer.read()
    scenario = parse_scenario(data)
    fast, reference = WasmSimulator(fast_path, data), WasmSimulator(reference_path, data)
    interval = max(1, scenario.snapshot)
    for k in range(1, scenario.ticks // interval + 1):
        reference.step(interval)
        ref = records_checksum(reference.records(), reference.tick)
        fast.step(interval)
        got = records_checksum(fast.records(), fast.tick)
        print(SNAPSHOT, k, f"{ref:016x}", f"{got:016x}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
