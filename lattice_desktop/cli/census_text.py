"""The census of a scenario's run (lattice/census.py) as terminal text."""

from __future__ import annotations

import sys
from pathlib import Path

from lattice_desktop.lattice.census import Census, census, census_of
from lattice_desktop.lattice.scenario import parse_scenario


def print_census(name: str, data: bytes, *, case_dir: Path | None = None, recount: bool = False) -> Census:
    """Print the census of the scenario `data`: the case's shipped one or a cached one unless
    `recount`, else counted now (progress on a terminal's stderr)."""
    scenario = parse_scenario(data, source=name)

    def progress(tick: int, ticks: int) -> None:
        if sys.stderr.isatty():
            print(f"\r{name}: tick {tick:,} of {ticks:,}", end="", file=sys.stderr, flush=True)

    if recount:
        result = census(scenario, progress=progress)
    else:
        result = census_of(data, scenario, case_dir=case_dir, progress=progress)
    if sys.stderr.isatty():
        print("\r\033[K", end="", file=sys.stderr, flush=True)
    print(f"{name}  {scenario.width}x{scenario.height}, {scenario.ticks:,} ticks")
    for what, value in result.rows():
        print(f"  {what:<22} {value}")
    return result
