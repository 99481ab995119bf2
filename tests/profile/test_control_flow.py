"""The profile of a module with every control construct adds up to wasmtime's own count."""

from __future__ import annotations

import pytest

from lattice_desktop.manifest.case import load_case
from lattice_desktop.profile.instrument import instrument
from lattice_desktop.profile.model import HOST
from lattice_desktop.profile.run import profile_case
from lattice_desktop.sandbox.compiler import compile_module
from lattice_desktop.sandbox.runner import execute
from tests.core.wat_cases import write_case
from tests.profile.control_flow import CONTROL_FLOW

INPUTS = ["", "a", "hello z", "abcdefghijklmnopqrstuvw", "zz" * 20 + "q" * 7]


def _fib_calls(n: int) -> int:
    return 1 if n < 2 else 1 + _fib_calls(n - 1) + _fib_calls(n - 2)


@pytest.fixture(scope="module")
def control(tmp_path_factory):
    import wasmtime

    folder = tmp_path_factory.mktemp("control")
    cases = "".join(
        f'\n[[case]]\nname = "in{i}"\nkind = "stress"\ninput = "{text}"\nexpected = "{text}"\n'
        for i, text in enumerate(INPUTS)
    )
    case = load_case(write_case(folder, cases, fuel_limit=10_000_000))
    wasm = wasmtime.wat2wasm(CONTROL_FLOW)
    return case, bytes(wasm), instrument(bytes(wasm))


@pytest.mark.parametrize("number", range(len(INPUTS)))
def test_total_and_self_fuel_equal_wasmtimes_count(control, number):
    case, wasm, instrumented = control
    entry = case.entry(f"in{number}")
    module = compile_module(wasm, max_bytes=1 << 20, timeout=30).module
    graded = execute(module, case.contract, case.sandbox, entry, budget=case.budget(entry))
    assert graded.outcome is None, graded.detail

    profile = profile_case(wasm, case, entry, instrumented=instrumented)

    assert profile.outcome == "returned"
    assert profile.total == graded.fuel
    assert profile.attributed == graded.fuel
    assert profile.instrumented_fuel > profile.total  # the counting itself costs fuel


@pytest.mark.parametrize("number", range(len(INPUTS)))
def test_calls_edges_and_inclusive_follow_the_program(control, number):
    case, wasm, instrumented = control
    text = INPUTS[number]
    profile = profile_case(wasm, case, case.entry(f"in{number}"), instrumented=instrumented)
    by_name = {f.name: f for f in profile.functions}
    index = {f.name: f.index for f in profile.functions}

    n = len(text) % 24
    assert by_name["fib"].calls == _fib_calls(n % 12)
    assert by_name["even"].calls + by_name["odd"].calls == len(text) + 1
    assert by_name["init"].calls == 1 and by_name["run"].calls == 1 and by_name["alloc"].calls == 1
    # Recursion counted once per outermost activation: fib's inclusive is its one outer call's.
    fib_edge = [e for e in profile.edges if e.callee == index["fib"] and e.caller == index["run"]]
    assert fib_edge[0].calls == 1 and fib_edge[0].inclusive == by_name["fib"].inclusive
    assert by_name["fib"].inclusive == by_name["fib"].self_fuel  # fib calls nothing else
    # Mutual recursion: even's and odd's inclusive never exceed the whole run's.
    assert by_name["even"].inclusive == by_name["even"].self_fuel + by_name["odd"].self_fuel
    # call_indirect: each target's edge from `nested` has as many calls as it ran.
    pairs = [(i, j) for i in range(n) for j in range(i) if (i ^ j) & 3]
    for slot, name in enumerate(["double", "square", "negate"]):
        expected = sum(1 for _, j in pairs if j % 3 == slot)
        edges = [e for e in profile.edges if e.callee == index[name]]
        assert sum(e.calls for e in edges) == by_name[name].calls == expected
        assert all(e.caller == index["nested"] for e in edges)
    assert [e.caller for e in profile.edges if e.callee == index["pair_sum"]] == [index["run"]]
    # The host called alloc and run (and the start function), each once.
    host = {profile.name_of(e.callee): e for e in profile.edges if e.caller == HOST}
    assert set(host) == {"init", "alloc", "run"}
    assert sum(e.inclusive for e in host.values()) == profile.total


def test_the_last_budgets_encoding_is_kept_and_another_budget_is_encoded_afresh(control, monkeypatch):
    import lattice_desktop.profile.instrument as instrument_module

    _, wasm, _ = control
    instrumented = instrument(wasm)
    encoded = []
    real = instrument_module.parse_text
    monkeypatch.setattr(instrument_module, "parse_text", lambda text: encoded.append(text) or real(text))
    first = instrumented.wasm(1_000)
    assert instrumented.wasm(1_000) == first and len(encoded) == 1  # the smoke tests' shared budget
    other = instrumented.wasm(2_000)
    assert other != first and len(encoded) == 2
    assert other == real(instrumented.text.replace("18446744073709551615", "2000", 1))
    assert instrumented.wasm(1_000) == first and len(encoded) == 3
