"""Issue 9 item 3: manifest numbers are checked in range as a whole, and nan/inf are refused.

Today fuel_limit × fuel_runway = 2^64 wraps inside wasmtime (a correct engine is graded
out of fuel), 2^63 overflows SQLite, and nan removes the build time limit or blames the
submission."""

from __future__ import annotations

import pytest

from lattice_desktop.errors import ManifestError
from lattice_desktop.manifest import load_case
from tests.core.wat_cases import ECHO_CASES, write_case


def _error(tmp_path, **options) -> str:
    path = write_case(tmp_path / "case", options.pop("cases", ECHO_CASES), **options)
    with pytest.raises(ManifestError) as raised:
        load_case(path)
    return str(raised.value)


@pytest.mark.parametrize("runway", ["4", "2"])
def test_fuel_budget_past_the_fuel_counter_is_a_located_error(tmp_path, runway):
    cases = ECHO_CASES.replace("fuel_runway = 4", f"fuel_runway = {runway}")
    message = _error(tmp_path, fuel_limit=2**62, cases=cases)
    line = (tmp_path / "case" / "case.toml").read_text().splitlines().index(f"fuel_runway = {runway}") + 1
    assert f"case.toml:{line}" in message and "fuel_runway" in message
    assert "2^63" in message


def test_the_largest_budget_that_fits_is_accepted(tmp_path):
    cases = ECHO_CASES.replace("fuel_runway = 4", "fuel_runway = 1.5")
    case = load_case(write_case(tmp_path / "case", cases, fuel_limit=2**62))
    assert max(case.budget(c) for c in case.cases) < 2**63


@pytest.mark.parametrize("key", ["build_timeout_s", "wall_clock_s", "compile_timeout_s"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "+nan"])
def test_sandbox_floats_refuse_nan_and_inf(tmp_path, key, value):
    message = _error(tmp_path, sandbox=f"{key} = {value}")
    line = (tmp_path / "case" / "case.toml").read_text().splitlines().index(f"{key} = {value}") + 1
    assert f"case.toml:{line}" in message and key in message and "finite" in message


@pytest.mark.parametrize("value", ["nan", "inf"])
def test_fuel_runway_refuses_nan_and_inf(tmp_path, value):
    message = _error(tmp_path, cases=ECHO_CASES.replace("fuel_runway = 4", f"fuel_runway = {value}"))
    assert "fuel_runway" in message and "finite" in message and "Traceback" not in message
