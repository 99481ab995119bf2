"""The Lattice factory case, Qt-free: scenario files, the reference rules, checksums,
records and a drawable state for the viewer."""

from lattice_desktop.lattice.checksum import checksum_from_records, mix
from lattice_desktop.lattice.rules import Factory, simulate
from lattice_desktop.lattice.scenario import (
    Assembler,
    Recipe,
    Scenario,
    ScenarioError,
    Source,
    format_scenario,
    parse_scenario,
)

__all__ = [
    "Assembler",
    "Factory",
    "Recipe",
    "Scenario",
    "ScenarioError",
    "Source",
    "checksum_from_records",
    "format_scenario",
    "mix",
    "parse_scenario",
    "simulate",
]
