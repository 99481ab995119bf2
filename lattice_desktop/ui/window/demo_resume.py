"""The first-start demo, finished even when the app was closed while it graded: the start
that begins it leaves a note in the settings (per database); a later start that finds the
note grades the samples still missing, and the note goes once nothing is missing. Which
samples are missing is decided without Qt (`services.grade_jobs.unfinished_demo_jobs`)."""

from __future__ import annotations

from functools import partial
from typing import Any

from PySide6.QtCore import QObject, Slot

from lattice_desktop.services.grade_jobs import GradeJob, unfinished_demo_jobs
from lattice_desktop.store.pages import RunsListing
from lattice_desktop.ui.common.latest_query import LatestQuery

KEY = "demo/unfinished"  # the database targets whose first-start demo is not finished yet


def first_run(listing: RunsListing) -> int:
    """The run a returning user sees first: the newest of registered content, so that the
    header and the Leaderboard open on a real board, never on a case a submission shipped
    because it was graded last; the newest run when no run is of registered content."""
    runs = listing.runs
    return next((r.id for r in runs if r.identity.registered), runs[0].id)


class DemoResume(QObject):
    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self.settings = window.settings
        self.target = window.db_target
        self._resuming = False
        self._query = LatestQuery(self._on_unfinished, self)
        self._query.failed.connect(window.report_failure)
        window.grading.idle.connect(self._on_idle)

    def first_listing(self, listing: RunsListing) -> None:
        """The window's first read of its runs. On an empty database, grade the demo and
        import the harness examples, so every view has something to show; a returning
        user sees their newest run of a registered case, and an unfinished demo is finished."""
        window = self.window
        if not listing.runs and not listing.harness:
            # The harness examples first (a second), then the demo's samples in order: the
            # demo's database then has the same run ids everywhere (1-7 the harness runs).
            grade = None
            if window.demo_case.is_file():
                grade = partial(window.grading_actions.grade_demo, then_prewarm=True)
                self.begin()
            window.harness.import_bundled(then=grade)
            return
        nothing_open = window.page is None and window.harness.page is None
        if listing.runs and nothing_open and not window.factory_tab.scenario_files:
            first = first_run(listing)
            window.runs_panel.select_run(first, notify=False)
            window.open_run(first)
        self.resume_if_unfinished()

    def pending(self) -> bool:
        return self.target in self._targets()

    def begin(self) -> None:
        """The first start is grading the demo: note it until every sample has a verdict."""
        self._set(True)

    def resume_if_unfinished(self) -> None:
        """On a start: grade what an unfinished first-start demo left."""
        if self.pending() and self.window.demo_case.is_file():
            self._resuming = True
            self._query.request(unfinished_demo_jobs, self.window.demo_case)

    @Slot()
    def _on_idle(self) -> None:
        if self.pending() and self.window.demo_case.is_file():
            self._resuming = False
            self._query.request(unfinished_demo_jobs, self.window.demo_case)  # all graded? then done

    def _on_unfinished(self, jobs: list[GradeJob]) -> None:
        if not jobs:
            self._set(False)
        elif self._resuming:
            self._resuming = False
            names = ", ".join(j.submission.name for j in jobs)
            self.window.start_grading(jobs, open_result=False)  # (it clears the message bar)
            self.window.message_bar.show_message(
                f"Finishing the demo the last start did not finish: grading {names}.", kind="info"
            )

    def _targets(self) -> list[str]:
        value = self.settings.value(KEY, [])
        return [value] if isinstance(value, str) else list(value or [])

    def _set(self, unfinished: bool) -> None:
        targets = [t for t in self._targets() if t != self.target] + ([self.target] if unfinished else [])
        self.settings.setValue(KEY, targets)
        self.settings.sync()
