"""Running the single-rule wrong engines (`mutants.py`) against a scenario's answers.

A slip is *caught* by a scenario when the wrong engine's snapshot checksums differ from the
right ones; `first_wrong_snapshot` stops at the first that differs, so a caught slip costs
only the ticks up to it."""

from __future__ import annotations

from lattice_desktop.lattice.scenario import parse_scenario
from tests.lattice.mutants import Mutant


def first_wrong_snapshot(engine: type[Mutant], data: bytes, expected: list[int]) -> int | None:
    """The index of the first snapshot where `engine` departs from `expected`, or None."""
    scenario = parse_scenario(data)
    factory = engine(scenario)
    for index, right in enumerate(expected):
        factory.run_to(factory.tick + scenario.snapshot)
        if factory.checksum() != right:
            return index
    return None


def main() -> int:
    """Run every slip on every stress case of the bundled case where its rule is decisive,
    printing each verdict; exit 1 when a slip passes a case where its rule is decisive."""
    import sys

    import numpy as np

    from lattice_desktop.lattice.census import stored_census
    from lattice_desktop.manifest import load_case
    from lattice_desktop.resources import demo_case
    from tests.lattice.mutants import CAUGHT_BY

    case = load_case(demo_case())
    names = sys.argv[1:] or [e.name for e in case.stress]
    missed = 0
    for entry in (case.entry(name) for name in names):
        counted = stored_census(entry.input_bytes(), case_dir=case.path.parent)
        expected = np.frombuffer(entry.expected_bytes(), "<u8").tolist()
        for mutant in (m for ms in CAUGHT_BY.values() for m in ms):
            events = getattr(counted, mutant.decisive) if counted else -1
            wrong = first_wrong_snapshot(mutant, entry.input_bytes(), expected)
            missed += events > 0 and wrong is None
            verdict = "caught" if wrong is not None else "PASSES"
            print(
                f"{entry.name:<11} {mutant.__name__:<24} {mutant.decisive:<22} {events:>10,} {verdict}",
                flush=True,
            )
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
