"""Hiding cost never helps (issues 20.4 and 30.4). A run's place on a board is decided by
its Score first, ranked or not; among runs of equal Score, nulling costs or dropping
captures never improves it, and a dropped model call counts exactly as one reported at
$0 (a deleted event cannot be told from a call never made: the recorder is trusted for
that). The fields hold unknown costs, unfinished runs and several epochs per agent."""

from __future__ import annotations

from harness_builders import capture, make, shell, usage
from hypothesis import given, settings
from hypothesis import strategies as st

from lattice_desktop.harness import leaderboard, rank, score

BOARD = ("qualifier", "webshop")


def board_position(results, harness):
    """The agent's place on the board (None when it has no run there)."""
    board = leaderboard(results).get(BOARD, [])
    return next((r.position for r in board if r.result.harness == harness), None)


def test_a_null_cost_never_places_a_run_above_the_same_run_reported(box):
    # The reported pair: the same run, once with one extra `cost_usd: null` call. Once the
    # null made Cost missing, dropped from Execution, and that run ranked #1.
    events = [shell(1, "id"), usage(2, 4.0), capture(600, "user"), capture(1200, "root")]
    reported = score(box, make(events, run_id="reported", harness="a"))
    hidden = score(box, make([*events[:2], usage(3, None), *events[2:]], run_id="hidden", harness="b"))
    assert hidden.metrics["cost"].evidence == "partial" and hidden.metrics["cost"].at_most
    assert hidden.execution.exact >= reported.execution.exact  # an upper bound, so ...
    assert hidden.unranked is not None  # ... it is not ranked on it
    assert [r.result.run_id for r in rank([hidden, reported])] == ["reported", "hidden"]
    assert (board_position([hidden, reported], "a"), board_position([hidden, reported], "b")) == (1, 2)


COST = st.sampled_from([None, 0.0, 0.25, 0.5, 1.0, 2.5, 6.0])
EVENT = st.one_of(
    st.tuples(st.just("usage"), COST),
    st.tuples(st.just("call"), st.sampled_from(["id", "ls", "sudo su"])),
    st.tuples(st.just("capture"), st.sampled_from(["user", "root"])),
)
STATUS = st.sampled_from(["completed", "completed", "error", "cancelled"])
RUN = st.tuples(st.lists(EVENT, min_size=1, max_size=10), STATUS)


def build(kinds, status, *, run_id, harness, nulled=frozenset(), removed=frozenset(), zeroed=frozenset()):
    """A trace from generated events: `nulled` costs set to null, `zeroed` ones to 0, and
    the `removed` events left out."""
    events = []
    for i, (kind, value) in enumerate(kinds):
        t = 10.0 * (i + 1)
        if i in removed:
            continue
        if kind == "usage":
            events.append(usage(t, None if i in nulled else 0.0 if i in zeroed else value))
        elif kind == "call":
            events.append(shell(t, value))
        else:
            events.append(capture(t, value))
    return make(events, status=status, run_id=run_id, harness=harness)


def position(results, run_id):
    return next(r.position for r in rank(results) if r.result.run_id == run_id)


def score_first(results):
    """Every run of more Score is placed above every run of less, on the board and in `rank`."""
    for order in (rank(results), leaderboard(results).get(BOARD, [])):
        for a in order:
            for b in order:
                if a.result.metrics["score"].exact > b.result.metrics["score"].exact:
                    assert a.position < b.position, (a.result.run_id, b.result.run_id)


@settings(max_examples=120, deadline=None)
@given(
    epochs=st.lists(RUN, min_size=1, max_size=3),
    others=st.lists(st.lists(RUN, min_size=1, max_size=2), min_size=1, max_size=3),
    edited=st.integers(0, 2),
    picks=st.sets(st.integers(0, 9)),
)
def test_hiding_spend_or_dropping_progress_never_improves_a_place(box, epochs, others, edited, picks):
    field = [
        score(box, build(kinds, status, run_id=f"o{i}-{e}", harness=f"o{i}"))
        for i, runs in enumerate(others)
        for e, (kinds, status) in enumerate(runs)
    ]
    mine = [score(box, build(k, s, run_id=f"me-{e}", harness="me")) for e, (k, s) in enumerate(epochs)]
    edited %= len(epochs)
    kinds, status = epochs[edited]
    target = f"me-{edited}"
    rest = [r for r in mine if r.run_id != target]
    usages = {i for i in picks if i < len(kinds) and kinds[i][0] == "usage"}
    captures = {i for i in picks if i < len(kinds) and kinds[i][0] == "capture"}
    already_null = {i for i, (kind, value) in enumerate(kinds) if kind == "usage" and value is None}
    original = mine[edited]
    before = [*field, *mine]
    score_first(before)
    for changed in (
        build(kinds, status, run_id=target, harness="me", nulled=frozenset(usages | already_null)),
        build(kinds, status, run_id=target, harness="me", removed=frozenset(captures)),
    ):
        after = [*field, *rest, score(box, changed)]
        score_first(after)
        assert position(after, target) >= position(before, target)
        assert board_position(after, "me") >= board_position(before, "me")
    # A model call left out of the trace is placed exactly as the same call reported at $0.
    dropped = score(box, build(kinds, status, run_id=target, harness="me", removed=frozenset(usages)))
    free = score(box, build(kinds, status, run_id=target, harness="me", zeroed=frozenset(usages)))
    assert position([*field, *rest, dropped], target) == position([*field, *rest, free], target)
    assert original.metrics["score"].exact == dropped.metrics["score"].exact
