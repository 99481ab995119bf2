"""The scenario generator: deterministic, always valid, and it builds what it promises."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lattice_desktop.lattice.generator import FEATURES, generate
from lattice_desktop.lattice.scenario import parse_scenario


def grid_rows(text: str) -> list[str]:
    lines = text.splitlines()
    return lines[lines.index("grid") + 1 :]


def test_same_seed_same_text_other_seed_other_text():
    a = generate(5, width=50, height=40, noise=0.05)
    assert a == generate(5, width=50, height=40, noise=0.05)
    assert a != generate(6, width=50, height=40, noise=0.05)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 2**40),
    st.integers(1, 70),
    st.integers(1, 70),
    st.sampled_from([0.0, 0.3, 1.0, 3.0]),
    st.sampled_from([0.0, 0.1, 0.5]),
)
def test_every_generated_scenario_parses(seed, w, h, density, noise):
    text = generate(seed, width=w, height=h, ticks=50, snapshot=7, density=density, noise=noise)
    scenario = parse_scenario(text)
    assert (scenario.width, scenario.height, scenario.ticks, scenario.snapshot) == (w, h, 50, 7)


@pytest.mark.parametrize("feature", FEATURES)
def test_each_feature_alone_builds_something(feature):
    text = generate(1, width=60, height=60, features=(feature,))
    parse_scenario(text)
    cells = "".join(grid_rows(text))
    assert cells.count(".") < len(cells)


def test_features_show_up():
    text = generate(2, width=80, height=80, density=1.0)
    cells = "".join(grid_rows(text))
    for char in "SK A#^>v<".replace(" ", ""):
        assert char in cells
    assert any(line.startswith("recipe") and line.count(":") >= 2 for line in text.splitlines())


def test_largest_size_is_allowed_and_beyond_is_refused():
    text = generate(3, width=4096, height=4096, density=0.002, ticks=1, snapshot=1)
    rows = grid_rows(text)
    assert len(rows) == 4096 and all(len(row) == 4096 for row in rows)
    with pytest.raises(ValueError):
        generate(3, width=4097, height=1)
    with pytest.raises(ValueError):
        generate(3, features=("teleporters",))


def test_large_dense_grids_stay_within_255_recipes():
    from lattice_desktop.lattice.generator import generate
    from lattice_desktop.lattice.scenario import parse_scenario

    scenario = parse_scenario(generate(3, width=512, height=512, density=1.0))
    assert 200 < len(scenario.recipes) <= 255
