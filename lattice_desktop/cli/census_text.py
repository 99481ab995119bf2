"""The census of a scenario's run (lattice/census.py) as terminal text."""

from __future__ import annotations

import sys
from pathlib import Path

from lattice_desktop.lattice.census import Census, census, census_of
from lattice_desktop.lattice.decisive import DECISIVE
from lattice_desktop.lattice.scenario import parse_scenario
from lattice_desktop.work import Listener, Step, Work


def census_progress(name: str) -> Listener:
    """Shows how far a census got on a terminal's stderr (nothing when it is not one)."""

    def show(step: Step) -> None:
        if sys.stderr.isatty():
            print(f"\r{name}: {step.message}", end="", file=sys.stderr, flush=True)

    return show


def print_census(
    name: str,
    data: bytes,
    *,
    case_dir: Path | None = None,
    recount: bool = False,
    work: Work | None = None,
) -> Census:
    """Print the census of the scenario `data`: the case's shipped one or a cached one unless
    `recount`, else counted now (progress on a terminal's stderr; cancelling `work` stops it)."""
    scenario = parse_scenario(data, source=name)
    work = work if work is not None else Work(census_progress(name))
    if recount:
        result = census(scenario, work=work)
    else:
        result = census_of(data, scenario, case_dir=case_dir, work=work)
    if sys.stderr.isatty():
        print("\r\033[K", end="", file=sys.stderr, flush=True)
    print(f"{name}  {scenario.width}x{scenario.height}, {scenario.ticks:,} ticks")
    for what, value in result.rows():
        print(f"  {what:<24} {value}")
    return result


def print_coverage(stress: dict[str, Census]) -> None:
    """Print, for every rule, in how many of the stress cases it is decisive (a slip of it
    would change the state), marking the rules that are not decisive in all of them."""
    print(f"decisive in the {len(stress)} stress cases (each rule wanted in all):")
    for rule, what in DECISIVE.items():
        showing = [name for name, c in stress.items() if getattr(c, what) > 0]
        mark = "ok  " if len(showing) == len(stress) else "FEW "
        missing = sorted(set(stress) - set(showing))
        print(
            f"  {mark}{rule:<40} {what:<22} {len(showing)} of {len(stress)}"
            + (f" (not in {', '.join(missing)})" if missing else "")
        )
