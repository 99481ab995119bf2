"""Help › User guide shows docs/guide.md rendered with its screenshots; a first-start demo
cut short by closing the app is finished by the next start, and only then forgotten."""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QTextDocument

from lattice_desktop.outcomes import Verdict
from lattice_desktop.store.queries import list_runs
from lattice_desktop.ui.window.demo_resume import KEY
from lattice_desktop.ui.window.help_dialogs import guide_path
from tests.ui.conftest import import_harness_into


def _help_action(window, text: str):
    help_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Help")
    return next(a for a in help_menu.actions() if a.text() == text)


def test_help_opens_the_user_guide_rendered_with_its_screenshots(window, qtbot):
    assert guide_path().is_file()
    _help_action(window, "&User guide").trigger()
    dialog = window.menus.guide
    qtbot.waitUntil(dialog.isVisible, timeout=10_000)
    browser = dialog.browser
    first_heading = next(
        line.lstrip("# ").strip() for line in guide_path().read_text().splitlines() if line.startswith("#")
    )
    assert browser.document().toPlainText().startswith(first_heading)
    assert "](screenshots/" not in browser.document().toPlainText()  # Markdown rendered, not shown raw
    image = browser.document().resource(
        QTextDocument.ResourceType.ImageResource, QUrl("screenshots/results.png")
    )
    assert image is not None and not image.isNull()  # the guide's own screenshots load beside it
    assert dialog.width() <= window.screen().availableGeometry().width()
    widths = _image_widths(browser.document())
    assert len(widths) == browser.document().toMarkdown().count("![")  # every screenshot found
    assert widths and all(0 < w <= browser.viewport().width() for w in widths)  # each fits the page


def _image_widths(doc) -> list[float]:
    widths, block = [], doc.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            fmt = fragments.fragment().charFormat()
            if fmt.isImageFormat():
                widths.append(fmt.toImageFormat().width())
            fragments += 1
        block = block.next()
    return widths


def _settled(db_path) -> dict[str, Verdict]:
    return {r.submission: r.verdict for r in list_runs() if r.verdict.finished}


def test_a_first_start_demo_closed_mid_way_is_finished_by_the_next_start(
    make_window, qtbot, settings, db_path
):
    first = make_window(auto_demo=True)
    assert settings.value(KEY) == [str(db_path)]  # noted while the demo grades
    graded: list[object] = []
    first.grading.graded.connect(lambda stored: (graded.append(stored), first.close()))  # quit after one
    qtbot.waitUntil(lambda: bool(graded) and not first.isVisible(), timeout=30_000)
    qtbot.waitUntil(lambda: not first.grading.running, timeout=30_000)
    assert len(_settled(db_path)) == 1  # the other two never started

    second = make_window(auto_demo=True)
    qtbot.waitUntil(lambda: len(_settled(db_path)) == 3, timeout=60_000)
    assert _settled(db_path) == {
        "echo": Verdict.CORRECT,
        "bytewise": Verdict.OVER_CEILING,
        "wrong": Verdict.INCORRECT,
    }
    assert len(list_runs()) == 3  # each sample graded once
    qtbot.waitUntil(lambda: settings.value(KEY) in ([], None), timeout=30_000)  # finished: forgotten
    assert not second.grading.running


def test_a_finished_demo_is_not_graded_again(make_window, qtbot, settings, db_path):
    window = make_window(auto_demo=True)
    qtbot.waitUntil(lambda: len(_settled(db_path)) == 3 and not window.grading.running, timeout=60_000)
    qtbot.waitUntil(lambda: settings.value(KEY) in ([], None), timeout=30_000)
    window.close()
    again = make_window(auto_demo=True)
    qtbot.waitUntil(lambda: again.page is not None, timeout=10_000)
    assert not again.grading.running and len(list_runs()) == 3


def test_a_demo_closed_before_its_first_run_is_graded_by_the_next_start(
    make_window, qtbot, settings, db_path
):
    import_harness_into(db_path, "clean")  # the first start got as far as the harness examples
    settings.setValue(KEY, [str(db_path)])  # and had begun the demo
    window = make_window(auto_demo=True)
    qtbot.waitUntil(lambda: len(_settled(db_path)) == 3, timeout=60_000)
    qtbot.waitUntil(lambda: settings.value(KEY) in ([], None), timeout=30_000)
    assert "Finishing the demo the last start did not finish" in window.message_bar.message()


def test_the_first_start_stores_the_harness_examples_then_the_demo_so_its_ids_are_fixed(
    make_window, qtbot, settings, db_path
):
    """The README names runs of the demo's database by id: the first start stores the
    bundled harness runs (ids 1-7), then grades the demo's samples in order, never
    interleaved (once both ran at once, and which id was which depended on the machine)."""
    from lattice_desktop.services.harness_import import bundled_examples
    from lattice_desktop.store.harness_runs import list_harness_runs

    started_with: list[int] = []
    window = make_window(auto_demo=True)
    window.grading.job_started.connect(lambda _job: started_with.append(len(list_harness_runs())))
    qtbot.waitUntil(lambda: len(_settled(db_path)) == 3 and not window.grading.running, timeout=60_000)
    traces = bundled_examples()[1]
    assert started_with and set(started_with) == {len(traces)}  # every grade began after the import
    harness = sorted(r.id for r in list_harness_runs())
    assert harness == list(range(1, len(traces) + 1))
    assert sorted(r.id for r in list_runs()) == list(range(len(traces) + 1, len(traces) + 4))
