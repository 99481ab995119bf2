"""The Factory tab replays Lattice scenarios only, and says so for a run of any other case
(the bundled inversions case) instead of a bare "nothing to replay"."""

from __future__ import annotations

from lattice_desktop.manifest import load_case
from lattice_desktop.resources import CASES, demo_case
from lattice_desktop.ui.factory.empty_state import no_factory_text


def test_a_run_of_another_case_is_told_the_factory_is_for_lattice_only():
    other = load_case(CASES / "inversions")
    text = no_factory_text(True, other)
    assert "Lattice cases only" in text and f"{other.name} {other.version}" in text
    assert "Lattice cases only" not in no_factory_text(True, load_case(demo_case()))
    assert no_factory_text(False, None).startswith("No run open")
