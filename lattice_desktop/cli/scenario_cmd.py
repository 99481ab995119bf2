"""`scenario generate | expect | check`: make and verify a held-out set of Lattice scenarios."""

from __future__ import annotations

import argparse
import dataclasses
import math
import struct
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lattice_desktop.cli.census_text import census_progress, print_census
from lattice_desktop.cli.common import positive_int, unit_interval
from lattice_desktop.cli.terminal import shown
from lattice_desktop.errors import Cancelled, UserError
from lattice_desktop.lattice.generator import FEATURES, generate
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.lattice.scenario_file import read_scenario_file
from lattice_desktop.lattice.wasm_engine import DEFAULT_LIMITS, WasmEngine
from lattice_desktop.resources import CASES
from lattice_desktop.work import Listener, Work

REFERENCE = CASES / "lattice" / "submissions" / "reference" / "engine.wasm"
SUFFIX, EXPECTED_SUFFIX = ".lat", ".u64"


def register(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("scenario", help="generate, compute expected answers, check scenarios")
    sub = p.add_subparsers(dest="scenario_command", metavar="ACTION", required=True)

    g = sub.add_parser("generate", help="scenarios from a seed (one to stdout, or --count to a folder)")
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--size", type=positive_int, nargs=2, metavar=("W", "H"), default=(32, 32))
    g.add_argument("--ticks", type=positive_int, default=200)
    g.add_argument("--snapshot", type=positive_int, default=10)
    g.add_argument(
        "--density",
        type=unit_interval,
        default=0.5,
        help="how many features to try, 0..1 (1: about one per 40 cells)",
    )
    g.add_argument(
        "--noise",
        type=unit_interval,
        default=0.0,
        help="fraction of cells given a random single entity facing anywhere, 0..1",
    )
    g.add_argument("--features", nargs="+", choices=FEATURES, default=list(FEATURES))
    g.add_argument("--count", type=positive_int, default=1, help="how many (seeds SEED, SEED+1, …)")
    g.add_argument("--out", type=Path, help="folder to write NAME.lat files into")
    g.set_defaults(func=_generate)

    e = sub.add_parser("expect", help="compute each scenario's expected checksums with the reference")
    e.add_argument("paths", nargs="+", type=Path, help="scenario files or folders of *.lat")
    e.add_argument("--engine", type=Path, default=REFERENCE, help="reference engine (wasm)")
    e.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_LIMITS.wall_clock,
        help="seconds one scenario may run before it is stopped (default %(default)g)",
    )
    e.set_defaults(func=_expect)

    s = sub.add_parser("stats", help="a census of what each scenario's run exercises")
    s.add_argument("paths", nargs="+", type=Path, help="scenario files or folders of *.lat")
    s.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_LIMITS.wall_clock,
        help="seconds one scenario's census may run before it is stopped (default %(default)g)",
    )
    s.set_defaults(func=_stats)

    c = sub.add_parser("check", help="validate scenarios and confirm their expected checksums")
    c.add_argument("paths", nargs="+", type=Path)
    c.add_argument("--engine", type=Path, default=REFERENCE)
    c.add_argument(
        "--timeout",
        type=_seconds,
        default=DEFAULT_LIMITS.wall_clock,
        help="seconds one scenario may run before it is stopped (default %(default)g)",
    )
    c.set_defaults(func=_check)


def _generate(args: argparse.Namespace) -> int:
    width, height = args.size
    if args.count > 1 and args.out is None:
        raise UserError("--count needs --out FOLDER")
    for i in range(args.count):
        seed = args.seed + i
        try:
            text = generate(
                seed,
                width=width,
                height=height,
                ticks=args.ticks,
                snapshot=args.snapshot,
                density=args.density,
                noise=args.noise,
                features=tuple(args.features),
            )
        except ValueError as exc:
            raise UserError(str(exc)) from None
        parse_scenario(text, source=f"<generated seed {seed}>")  # our own output must be valid
        if args.out is None:
            sys.stdout.write(text)
        else:
            args.out.mkdir(parents=True, exist_ok=True)
            path = args.out / f"seed-{seed}-{width}x{height}{SUFFIX}"
            path.write_text(text)
            print(path)
    return 0


def _stats(args: argparse.Namespace) -> int:
    for path in _scenarios(args.paths):
        data = read_scenario_file(path)
        with _time_limit(args.timeout, census_progress(str(path))) as work:
            try:
                print_census(str(path), data, work=work)
            except Cancelled:
                if not work.timed_out:
                    raise
                raise UserError(
                    f"{path}: the census did not finish within {args.timeout:g} s and was stopped "
                    "(raise --timeout for a longer run)"
                ) from None
    return 0


class _TimedWork(Work):
    """Work cancelled by a timer: `timed_out` tells the limit from the user's Ctrl+C."""

    timed_out = False

    def expire(self) -> None:
        self.timed_out = True
        self.cancel()


@contextmanager
def _time_limit(seconds: float, listener: Listener) -> Iterator[_TimedWork]:
    """A `Work` that cancels itself after `seconds` (the limit `expect` and `check` give wasm)."""
    work = _TimedWork(listener)
    timer = threading.Timer(seconds, work.expire)
    timer.daemon = True
    timer.start()
    try:
        yield work
    finally:
        timer.cancel()


def _scenarios(paths: list[Path]) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(path.glob(f"*{SUFFIX}")))
        elif path.is_file():
            found.append(path)
        else:
            raise UserError(f"{path}: no such file or folder")
    if not found:
        raise UserError(f"no *{SUFFIX} scenarios in {', '.join(map(str, paths))}")
    return found


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    return value


def _engine(path: Path, timeout: float) -> WasmEngine:
    """The engine, run in the grader's sandbox with `timeout` seconds per scenario."""
    if not path.is_file():
        raise UserError(f"{path}: reference engine not found")
    return WasmEngine(path, limits=dataclasses.replace(DEFAULT_LIMITS, wall_clock=timeout))


def _expect(args: argparse.Namespace) -> int:
    engine = _engine(args.engine, args.timeout)
    for path in _scenarios(args.paths):
        data = read_scenario_file(path)
        parse_scenario(data, source=str(path))
        checksums = engine.run(data)
        target = path.with_suffix(EXPECTED_SUFFIX)
        target.write_bytes(struct.pack(f"<{len(checksums)}Q", *checksums))
        print(f"{shown(target)}  {len(checksums)} snapshots")
    return 0


def _check(args: argparse.Namespace) -> int:
    engine = _engine(args.engine, args.timeout)
    problems = 0
    paths = _scenarios(args.paths)
    for path in paths:
        try:
            data = read_scenario_file(path)
            scenario = parse_scenario(data, source=str(path))
        except UserError as exc:
            print(f"invalid  {shown(exc)}")
            problems += 1
            continue
        expected_path = path.with_suffix(EXPECTED_SUFFIX)
        if not expected_path.is_file():
            print(f"no expected answer  {shown(path)} (run `scenario expect`)")
            problems += 1
            continue
        expected = expected_path.read_bytes()
        got = engine.run(data)
        want = list(struct.unpack(f"<{len(expected) // 8}Q", expected)) if len(expected) % 8 == 0 else None
        if want != got:
            index = next((i for i, (a, b) in enumerate(zip(want or [], got, strict=False)) if a != b), None)
            where = f"first differs at snapshot {index + 1}" if index is not None else "length differs"
            print(f"MISMATCH {shown(path)}: {where}")
            problems += 1
        else:
            print(f"ok       {shown(path)}  {scenario.width}x{scenario.height}, {len(got)} snapshots")
    print(f"{len(paths) - problems} of {len(paths)} scenarios valid with matching expected answers")
    return 0 if not problems else 1
