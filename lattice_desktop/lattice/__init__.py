"""The Lattice factory case, Qt-free: scenario files, the reference rules, checksums,
records and a drawable state for the viewer."""

from lattice_desktop.lattice.checksum import checksum_from_records, mix
from lattice_desktop.lattice.records import (
    RecordDiff,
    RecordsError,
    decode_records,
    diff_records,
)
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
from lattice_desktop.lattice.view import FactoryState, describe_cell

__all__ = [
    "Assembler",
    "Factory",
    "FactoryState",
    "Recipe",
    "RecordDiff",
    "RecordsError",
    "Scenario",
    "ScenarioError",
    "Source",
    "checksum_from_records",
    "decode_records",
    "describe_cell",
    "diff_records",
    "format_scenario",
    "mix",
    "parse_scenario",
    "simulate",
]
