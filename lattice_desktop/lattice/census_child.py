"""Counting a census in a child process, so that cancelling it stops it at once.

The reference rules' set-up of a 2048² scenario is seconds of pure Python that checks no
cancel flag, and the count after it holds the GIL for minutes: on a thread of the app it
would keep a closing window waiting and slow every frame. A child process shares no GIL
and is killed the moment its `Work` is cancelled; it caches what it counted on disk, as
`census_of` does, so the next open of the same scenario is instant.

    python -m lattice_desktop.lattice.census_child < SCENARIO   # what the parent runs
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from dataclasses import asdict
from pathlib import Path
from typing import IO

from lattice_desktop.errors import Cancelled, UserError
from lattice_desktop.lattice.census import Census, _from_dict, census_of, stored_census
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.work import Step, Work

PROGRESS, RESULT = "progress", "census"  # the child's stdout, one line each


def census_in_child(data: bytes, case_dir: Path | None = None, *, work: Work | None = None) -> Census:
    """The census of the scenario `data`: the one a case ships or a cache holds, else one
    counted in a child process that `work.cancel()` kills (raising `Cancelled`)."""
    work = work or Work()
    found = stored_census(data, case_dir=case_dir)
    if found is not None:
        return found
    work.raise_if_cancelled()
    with subprocess.Popen(
        [sys.executable, "-m", __name__],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # a Ctrl+C at the terminal reaches the app, which kills it
    ) as child:
        work.on_cancel(child.kill)
        errors: list[bytes] = []
        drain = threading.Thread(target=_read_all, args=(child.stderr, errors), daemon=True)
        drain.start()
        _send(child, data)
        result = _read_result(child, work)
        child.wait()
        drain.join()
    if work.cancelled:
        raise Cancelled()
    if result is None:
        message = b"".join(errors).decode("utf-8", "replace").strip().splitlines()
        raise UserError(message[-1] if message else f"the census stopped (exit {child.returncode})")
    return result


def _read_all(stream: IO[bytes] | None, into: list[bytes]) -> None:
    """The child's stderr, read beside its stdout so neither pipe fills up."""
    if stream is not None:
        into.append(stream.read())


def _send(child: subprocess.Popen[bytes], data: bytes) -> None:
    assert child.stdin is not None
    try:
        child.stdin.write(data)
        child.stdin.close()
    except BrokenPipeError:  # killed (cancelled) or failed before it read it all
        pass


def _read_result(child: subprocess.Popen[bytes], work: Work) -> Census | None:
    assert child.stdout is not None
    for line in child.stdout:
        kind, _, rest = line.decode().partition(" ")
        if kind == PROGRESS:
            fraction, _, message = rest.strip().partition(" ")
            work.report(float(fraction), message)
        elif kind == RESULT:
            return _from_dict(json.loads(rest))
    return None


def _print_step(step: Step) -> None:
    print(PROGRESS, f"{step.fraction:.4f}", step.message, flush=True)


def main() -> int:
    os.nice(10)  # background work: Play, seeks and the file's confirmation come first
    data = sys.stdin.buffer.read()
    counted = census_of(data, parse_scenario(data), work=Work(_print_step))
    print(RESULT, json.dumps(asdict(counted)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
