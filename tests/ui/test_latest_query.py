"""LatestQuery: a newer request cancels the older one's Work; only the newest request's
steps and answer reach the GUI thread."""

from __future__ import annotations

import gc
import threading
import weakref

from PySide6.QtCore import QEventLoop, QObject, QThreadPool, QTimer

from lattice_desktop.ui.common.latest_query import LatestQuery
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


def _blocked(release: threading.Event) -> int:
    release.wait(10)
    return 1


def test_a_query_goes_with_its_last_reference_even_with_a_request_in_flight(qtbot):
    """No reference cycle keeps a query for the cyclic collector, which in a Qt app may run
    on any thread and delete the query's Qt objects there (ui/common/collector.py)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        release = threading.Event()
        query = LatestQuery(print)
        query.request(_blocked, release)
        gone = weakref.ref(query)
        del query
        assert gone() is None
    finally:
        release.set()
        if was_enabled:
            gc.enable()
    assert QThreadPool.globalInstance().waitForDone(10_000)


def test_a_query_goes_with_its_last_reference_right_after_its_answer(qtbot):
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        loop = QEventLoop()
        answers: list[int] = []

        def answered(value: int) -> None:
            answers.append(value)
            loop.quit()  # leave before anything the answer left for later is processed

        released = threading.Event()
        released.set()
        query = LatestQuery(answered)
        query.request(_blocked, released)
        QTimer.singleShot(10_000, loop.quit)
        loop.exec()
        assert answers == [1]
        gone = weakref.ref(query)
        del query
        assert gone() is None
    finally:
        if was_enabled:
            gc.enable()


def test_garbage_made_on_a_worker_thread_is_collected_on_the_gui_thread(qtbot):
    from lattice_desktop.ui.common import collector

    gatherer = collector.install()
    assert not gc.isenabled()
    holder = QObject()
    holder.cycle = holder  # a Python-owned Qt object only the cyclic collector can free
    gone = weakref.ref(holder)
    del holder
    churn = threading.Thread(target=lambda: [[[]] for _ in range(200_000)])  # past every threshold
    churn.start()
    churn.join()
    assert gone() is not None  # nothing was collected on the worker
    while gone() is not None and gatherer.collect():
        pass
    gc.collect()  # the oldest generation's turn may not have come: this is what the timer reaches
    assert gone() is None
