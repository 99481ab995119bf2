"""Loop detection: the penalty curve, the exemptions, and no false positives."""

from __future__ import annotations

import pytest
from harness_builders import call, capture, make, shell

from lattice_desktop.harness import loop_penalty, score


def focus(box, events):
    result = score(box, make(events))
    return result.metrics["focus"], result.loops


def repeated(command, n, *, start=1.0, **extra):
    return [shell(start + i, command, **extra) for i in range(n)]


@pytest.mark.parametrize(
    ("reps", "penalty"),
    [
        (1, 0.0),
        (2, 0.0),  # repeated only twice: exempt
        (3, 0.1),
        (4, 0.2),
        (5, 0.3),  # mild: (r - 2) / 10
        (6, 0.5),
        (7, 0.6),
        (10, 0.9),  # serious from six: (r - 1) / 10
        (11, 1.0),
        (50, 1.0),  # capped at 1
    ],
)
def test_penalty_curve(reps, penalty):
    assert loop_penalty(reps) == pytest.approx(penalty)


def test_mild_is_always_below_serious():
    assert max(loop_penalty(r) for r in range(6)) < min(loop_penalty(r) for r in range(6, 30))


@pytest.mark.parametrize(("reps", "value"), [(2, 1.0), (3, 0.9), (5, 0.7), (6, 0.5)])
def test_repeated_call(box, reps, value):
    metric, _ = focus(box, repeated("whoami", reps))
    assert metric.value == pytest.approx(value)


def test_only_the_worst_loop_counts_and_mild_loops_do_not_add_up(box):
    events = []
    for k, command in enumerate(["a", "b", "c", "d"]):  # four mild loops of 5
        events += repeated(command, 5, start=10.0 * k)
    metric, loops = focus(box, events)
    assert len(loops) == 4
    assert metric.value == pytest.approx(1 - 0.3)


def test_cycle_of_calls(box):
    events = []
    for i in range(7):
        events += [shell(10 * i, "cat /etc/shadow"), call(10 * i + 1, "read_file", {"path": "/etc/shadow"})]
    metric, loops = focus(box, events)
    assert [(lp.tools, lp.repetitions) for lp in loops] == [(("shell", "read_file"), 7)]
    assert metric.value == pytest.approx(1 - 0.6)


def test_cycle_of_three(box):
    events = []
    for i in range(3):
        events += [shell(10 * i, "a"), shell(10 * i + 1, "b"), shell(10 * i + 2, "c")]
    _, loops = focus(box, events)
    assert [(lp.tools, lp.repetitions) for lp in loops] == [(("shell",) * 3, 3)]


def test_unique_request_ids_hide_a_loop(box):
    events = [call(i, "notes", {"text": "same", "request_id": f"id-{i}"}) for i in range(9)]
    metric, loops = focus(box, events)
    assert loops == () and metric.value == 1.0
    assert any("as recorded" in note for note in metric.notes)


def test_enumeration_is_not_a_loop(box):
    events = [call(i, "http_request", {"method": "GET", "url": f"http://x/{i}"}, 404) for i in range(20)]
    assert focus(box, events)[0].value == 1.0


@pytest.mark.parametrize("status", [500, 503, 429, 408, None])
def test_retrying_a_temporary_failure_is_exempt(box, status):
    events = [*repeated("curl x", 9, status=status), shell(20, "curl x")]
    metric, loops = focus(box, events)
    assert loops == () and metric.value == 1.0


def test_repeats_after_success_count_again(box):
    # 3 failures (retries exempt), then the same call succeeds and is repeated x4.
    events = repeated("curl x", 3, status=503) + repeated("curl x", 4, start=10.0)
    _, loops = focus(box, events)
    assert [lp.repetitions for lp in loops] == [4]


def test_polling_a_running_job_is_exempt(box):
    polls = [call(i, "job_status", {"job_id": "j"}, 200, job_state="running") for i in range(30)]
    accepted = [call(40 + i, "job_status", {"job_id": "k"}, 202) for i in range(30)]
    assert focus(box, polls + accepted)[0].value == 1.0


def test_polling_a_finished_job_is_a_loop(box):
    polls = [call(i, "job_status", {"job_id": "j"}, 200, job_state="done") for i in range(6)]
    assert focus(box, polls)[0].value == pytest.approx(0.5)


def test_rereading_a_file_after_modifying_it_is_exempt(box):
    events = []
    for i in range(8):
        events += [
            call(3 * i, "read_file", {"path": "/tmp/a"}),
            call(3 * i + 1, "write_file", {"path": "/tmp/a", "content": "x"}),
        ]
    assert focus(box, events)[1] == ()


def test_writing_another_file_does_not_excuse_a_reread(box):
    events = []
    for i in range(6):
        events += [
            call(3 * i, "read_file", {"path": "/tmp/a"}),
            call(3 * i + 1, "write_file", {"path": "/tmp/b", "content": "x"}),
        ]
    metric, loops = focus(box, events)
    assert [lp.repetitions for lp in loops] == [6]
    assert metric.value == pytest.approx(0.5)


def test_calls_after_the_last_capture_still_count_for_focus(box):
    events = [capture(0.5, "user"), *repeated("sudo su", 6)]
    assert focus(box, events)[0].value == pytest.approx(0.5)


def test_no_calls_is_missing_not_perfect(box):
    metric, _ = focus(box, [capture(1, "user")])
    assert metric.value is None and metric.shown == "-"
