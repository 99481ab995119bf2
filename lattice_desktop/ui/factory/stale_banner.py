"""The Factory tab's warning that the open run was graded against other case files than
those it now replays (`services.factory_opening` says why)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget


class StaleBanner(QLabel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("staleRunBanner")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setStyleSheet(
            "#staleRunBanner { background: #5A4510; color: #FFE7A8; "
            "border: 1px solid #A27B1E; border-radius: 4px; padding: 6px 8px; }"
        )
        self.hide()

    def show_reasons(self, reasons: list[str], specific: bool, name: str) -> None:
        """Why scenario `name` is stale (none: hide); `specific`: its own file changed, so
        its snapshots are not this run's."""
        if not reasons:
            self.hide()
            return
        if specific:
            text = (
                f"⚠ Stale run: it was graded against an older version of {name} "
                f"({'; '.join(reasons)}). The factory replays the current file, so the "
                "snapshot list shows today's expected checksums without ✓/✗ — they would not "
                "be this run's. Grade the submission again to compare."
            )
        else:
            text = (
                f"⚠ The case changed since this run was graded ({'; '.join(reasons)}). "
                f"{name}'s snapshots still line up, but its input may differ from what the "
                "submission saw. Grade the submission again to be sure."
            )
        self.setText(text)
        self.setToolTip("\n".join(reasons))
        self.show()
