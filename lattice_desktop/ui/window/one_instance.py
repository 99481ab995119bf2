"""One app window per database: the first instance on a database listens on a local socket
named for it; a second instance started on the same database finds it, says so, and can
switch to it (the first raises its window and opens the paths the second was given).

The socket is in Linux's abstract namespace: no file is written anywhere, and it goes away
with its process, so a crashed first instance leaves nothing stale behind.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtNetwork import QLocalServer, QLocalSocket
from PySide6.QtWidgets import QMessageBox, QWidget

from lattice_desktop.store.database import default_location
from lattice_desktop.store.database_url import describe

ANSWER_MS = 2_000  # how long a second instance waits for the first to answer
SHOWN = b"shown\n"


def database_key(target: str | None) -> str:
    """The socket's name for a database: the same for every spelling of one file (relative,
    through a link), different per user and per database."""
    where = target or default_location()
    if "://" not in where:
        where = os.path.realpath(os.path.expanduser(where))
    digest = hashlib.sha256(f"{os.getuid()}\0{where}".encode()).hexdigest()[:32]
    return f"lattice-desktop-{digest}"


class OneInstance(QObject):
    """The first instance's listener, or a second instance's way to reach the first."""

    asked = Signal(list)  # another instance asked this one to come forward (and open these paths)

    def __init__(self, target: str | None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.target = target or default_location()
        self.key = database_key(target)
        self.server: QLocalServer | None = None
        self.window: QWidget | None = None
        self._open_paths: Callable[[list[Path]], object] | None = None

    def first_is_running(self) -> bool:
        """Whether another instance listens for this database (asked before any window opens)."""
        socket = self._socket()
        socket.connectToServer(self.key)
        found = socket.waitForConnected(ANSWER_MS // 4)
        socket.abort()
        return found

    def ask_first(self, paths: list[Path]) -> bool:
        """Ask the first instance to raise its window and open `paths`; whether it did."""
        socket = self._socket()
        socket.connectToServer(self.key)
        if not socket.waitForConnected(ANSWER_MS):
            return False
        socket.write(json.dumps({"paths": [str(p) for p in paths]}).encode() + b"\n")
        socket.waitForBytesWritten(ANSWER_MS)
        answer = b""
        while SHOWN not in answer and socket.waitForReadyRead(ANSWER_MS):
            answer += bytes(socket.readAll().data())
        socket.abort()
        return SHOWN in answer

    def listen(self) -> bool:
        """Be the first instance: listen for others. False when one listens already (two
        started at once: the other won)."""
        server = QLocalServer(self)
        server.setSocketOptions(QLocalServer.SocketOption.AbstractNamespaceOption)
        if not server.listen(self.key):
            server.deleteLater()
            return False
        server.newConnection.connect(self._on_connection)
        self.server = server
        return True

    def attach(self, window: QWidget, *, open_paths: Callable[[list[Path]], object] | None = None) -> None:
        """The window a second instance's request brings forward, and what opens the paths
        it was given (those that exist: the request is another process's)."""
        self.window = window
        self._open_paths = open_paths

    def _socket(self) -> QLocalSocket:
        socket = QLocalSocket(self)
        socket.setSocketOptions(QLocalSocket.SocketOption.AbstractNamespaceOption)
        return socket

    @Slot()
    def _on_connection(self) -> None:
        assert self.server is not None
        while (socket := self.server.nextPendingConnection()) is not None:
            socket.readyRead.connect(self._on_request)
            socket.disconnected.connect(socket.deleteLater)

    @Slot()
    def _on_request(self) -> None:
        socket = self.sender()
        if not isinstance(socket, QLocalSocket) or not socket.canReadLine():
            return
        try:
            request = json.loads(bytes(socket.readLine().data()) or b"{}")
            paths = [str(p) for p in request.get("paths", [])] if isinstance(request, dict) else []
        except ValueError:
            paths = []  # not ours to trust: come forward, open nothing
        socket.write(SHOWN)
        socket.flush()
        if self.window is not None:
            bring_forward(self.window)
        existing = [Path(p) for p in paths if Path(p).exists()]
        if existing and self._open_paths is not None:
            self._open_paths(existing)
        self.asked.emit(paths)


def bring_forward(window: QWidget) -> None:
    """Show the window on top and give it the focus (un-minimised)."""
    if window.isMinimized():
        window.showNormal()
    window.show()
    window.raise_()
    window.activateWindow()


SWITCH, OPEN, CANCEL = "switch", "open", "cancel"


def ask_what_to_do(target: str) -> str:
    """A second instance on `target`: switch to the first (the default), open another
    window anyway, or do nothing."""
    box = QMessageBox(
        QMessageBox.Icon.Information, "Lattice Desktop", "Lattice Desktop is already open on this database."
    )
    box.setInformativeText(f"{describe(target)}\n\nSwitch to that window, or open a second one on it?")
    switch = box.addButton("Switch to it", QMessageBox.ButtonRole.AcceptRole)
    another = box.addButton("Open another window", QMessageBox.ButtonRole.ActionRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(switch)
    box.exec()
    clicked = box.clickedButton()
    return SWITCH if clicked is switch else OPEN if clicked is another else CANCEL
