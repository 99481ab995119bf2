"""Fixtures for the hostile suite: a private temp folder so leftovers are ours to count."""

from __future__ import annotations

import tempfile

import pytest


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """Point tempfile (scratch folders of builds and compiles) at a folder of this test."""
    root = tmp_path / "scratch-tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root
