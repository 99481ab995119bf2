"""Shared fixtures: every test gets its own database and compiled-module cache."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(autouse=True)
def _isolated_storage(tmp_path_factory, monkeypatch):
    cache = tmp_path_factory.getbasetemp() / "module-cache"
    monkeypatch.setenv("LATTICE_DESKTOP_CACHE", str(cache))
    monkeypatch.setenv("LATTICE_DESKTOP_DB", str(tmp_path_factory.mktemp("db") / "lattice.db"))
