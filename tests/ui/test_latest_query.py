"""LatestQuery: a newer request cancels the older one's Work; only the newest request's
steps and answer reach the GUI thread."""

from __future__ import annotations

import threading

from PySide6.QtCore import QThreadPool

from lattice_desktop.ui.latest_query import LatestQuery
from lattice_desktop.work import Step, Work


def count_to(target: int, release: threading.Event, *, work: Work) -> int:
    """Reports once, waits for the test, then checks for cancel like a chunked job."""
    work.report(0.5, f"counting to {target}")
    release.wait(10)
    work.raise_if_cancelled()
    work.report(1.0, f"counted to {target}")
    return target


def test_a_newer_request_cancels_the_older_and_only_its_answer_counts(qtbot):
    answers: list[int] = []
    steps: list[Step] = []
    query = LatestQuery(answers.append, on_step=steps.append)
    first_release, second_release = threading.Event(), threading.Event()
    query.request(count_to, 1, first_release, work=True)
    qtbot.waitUntil(lambda: [s.message for s in steps] == ["counting to 1"])
    query.request(count_to, 2, second_release, work=True)
    first_release.set()  # the first one resumes, sees it was cancelled, and stops
    second_release.set()
    qtbot.waitUntil(lambda: answers == [2] and not query.busy, timeout=10_000)
    assert [s.message for s in steps] == ["counting to 1", "counting to 2", "counted to 2"]
    assert QThreadPool.globalInstance().waitForDone(10_000)


def test_forget_drops_the_answer_in_flight(qtbot):
    answers: list[int] = []
    query = LatestQuery(answers.append)
    release = threading.Event()
    query.request(count_to, 3, release, work=True)
    query.forget()
    release.set()
    qtbot.waitUntil(lambda: not query.busy, timeout=10_000)
    assert answers == []
