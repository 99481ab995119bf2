"""Hiding cost never helps (issue 20.4): a model call whose cost is unknown makes the known
spend a lower bound and leaves the run unranked until its cost is known."""

from __future__ import annotations

from harness_builders import capture, make, shell, usage
from hypothesis import given, settings
from hypothesis import strategies as st

from lattice_desktop.harness import leaderboard, rank, score


def board_position(results, run_id):
    """The run's leaderboard position, or None when it is not on the board."""
    board = leaderboard(results).get(("qualifier", "webshop"), [])
    return next((r.position for r in board if r.result.run_id == run_id), None)


def test_a_null_cost_no_longer_ranks_first(box):
    # The reported pair: the same run, once with one extra `cost_usd: null` call. Today the
    # null made Cost missing, dropped from Execution, and that run ranked #1.
    events = [shell(1, "id"), usage(2, 4.0), capture(600, "user"), capture(1200, "root")]
    reported = score(box, make(events, run_id="reported", harness="a"))
    hidden = score(box, make([*events[:2], usage(3, None), *events[2:]], run_id="hidden", harness="b"))
    assert hidden.metrics["cost"].evidence == "partial"
    assert hidden.execution.exact >= reported.execution.exact  # an upper bound, so ...
    assert hidden.unranked is not None  # ... it is not ranked on it
    assert [r.result.run_id for r in rank([hidden, reported])] == ["reported", "hidden"]
    assert board_position([hidden, reported], "reported") == 1
    assert board_position([hidden, reported], "hidden") is None


EVENT = st.one_of(
    st.tuples(st.just("usage"), st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.5, 6.0])),
    st.tuples(st.just("call"), st.sampled_from(["id", "ls", "sudo su"])),
    st.tuples(st.just("capture"), st.sampled_from(["user", "root"])),
)


def build(kinds, *, run_id, harness, nulled=frozenset(), removed=frozenset()):
    events = []
    for i, (kind, value) in enumerate(kinds):
        t = 10.0 * (i + 1)
        if i in removed:
            continue
        if kind == "usage":
            events.append(usage(t, None if i in nulled else value))
        elif kind == "call":
            events.append(shell(t, value))
        else:
            events.append(capture(t, value))
    return make(events, run_id=run_id, harness=harness)


def rank_of(results, run_id):
    order = rank(results)
    entry = next(r for r in order if r.result.run_id == run_id)
    return (entry.result.unranked is not None, entry.position)


@settings(max_examples=150, deadline=None)
@given(
    run=st.lists(EVENT, min_size=1, max_size=12),
    others=st.lists(st.lists(EVENT, min_size=1, max_size=8), min_size=1, max_size=3),
    picks=st.sets(st.integers(0, 11)),
)
def test_nulling_a_cost_or_removing_a_capture_never_improves_the_rank(box, run, others, picks):
    field = [score(box, build(o, run_id=f"o{i}", harness=f"o{i}")) for i, o in enumerate(others)]
    original = score(box, build(run, run_id="me", harness="me"))
    usages = {i for i in picks if i < len(run) and run[i][0] == "usage"}
    captures = {i for i in picks if i < len(run) and run[i][0] == "capture"}
    for changed in (
        score(box, build(run, run_id="me", harness="me", nulled=frozenset(usages))),
        score(box, build(run, run_id="me", harness="me", removed=frozenset(captures))),
    ):
        assert rank_of([*field, changed], "me") >= rank_of([*field, original], "me")
        before, after = board_position([*field, original], "me"), board_position([*field, changed], "me")
        if after is not None:
            assert before is not None and before <= after
