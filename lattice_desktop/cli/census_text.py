"""The census of a scenario's run (lattice/census.py) as terminal text."""

from __future__ import annotations

import sys

from lattice_desktop.lattice.census import Census, census
from lattice_desktop.lattice.world import Scenario


def print_census(name: str, scenario: Scenario) -> Census:
    """Run the census of `scenario`, showing progress on stderr, and print it."""

    def progress(tick: int, ticks: int) -> None:
        if sys.stderr.isatty():
            print(f"\r{name}: tick {tick:,} of {ticks:,}", end="", file=sys.stderr, flush=True)

    result = census(scenario, progress=progress)
    if sys.stderr.isatty():
        print("\r\033[K", end="", file=sys.stderr, flush=True)
    print(f"{name}  {scenario.width}x{scenario.height}, {scenario.ticks:,} ticks")
    for what, value in result.rows():
        print(f"  {what:<22} {value}")
    return result
