"""The quick reader of common event lines builds exactly what the full reader builds, and
leaves every line it is unsure of to the full reader (which names what is wrong)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lattice_desktop.errors import UserError
from lattice_desktop.harness.quick_events import quick_event
from lattice_desktop.harness.trace import _event, _Line

VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 700),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", " x", "x", "running", "user", "shell"]),
    st.dictionaries(st.sampled_from(["a", "b"]), st.integers(0, 2), max_size=2),
)
LINE = st.fixed_dictionaries(
    {"type": st.sampled_from(["tool_call", "model_usage", "capture", "paused", 3])},
    optional=dict.fromkeys(
        ("t", "tool", "arguments", "status", "duration", "job_state", "id", "cost_usd", "objective"), VALUE
    ),
)


@settings(max_examples=300, deadline=None)
@given(data=LINE, previous_t=st.sampled_from([0.0, 1.5]))
def test_the_quick_reader_agrees_with_the_full_one(data, previous_t):
    quick = quick_event(data, 7, previous_t, {})
    if quick is None:
        return  # the full reader decides, as for any line
    line = _Line(data, 7, "t.jsonl")
    try:
        full = _event(line, line.time("t"), {})
    except UserError as exc:
        raise AssertionError(f"the quick reader accepted a line the full one refuses: {exc}") from None
    assert quick == full
    assert getattr(quick, "key", None) == getattr(full, "key", None)


def test_identical_calls_share_their_arguments():
    shared: dict = {}
    first, second = (
        quick_event(
            {"type": "tool_call", "t": 1.0, "tool": "shell", "arguments": args, "status": 200}, n, 0.0, shared
        )
        for n, args in ((2, {"a": 1, "b": 2}), (3, {"b": 2, "a": 1}))
    )
    assert first.key == second.key and first.arguments is second.arguments
