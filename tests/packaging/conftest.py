"""The bundle, built once for every packaging test (`unpacked`): building it takes minutes.
Every test that uses it runs on one xdist worker (tests/conftest.py groups them), and the
bundle goes when they are done: it is most of a gigabyte."""

from __future__ import annotations

import importlib.util
import shutil
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bundle_build", ROOT / "packaging" / "build.py")
assert _spec is not None and _spec.loader is not None
build = sys.modules["bundle_build"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build)


@pytest.fixture(scope="session")
def unpacked(tmp_path_factory) -> Iterator[Path]:
    """The bundle's folder inside the unpacked archive (the top folder holds install.sh)."""
    scratch = tmp_path_factory.mktemp("bundle")
    target = tmp_path_factory.mktemp("unpacked")
    try:
        bundle = build.build(scratch / "dist", scratch / "work")
        print(f"bundle {bundle.size / 1e6:.1f} MB in {bundle.files} files, built in {bundle.seconds:.0f} s")
        with tarfile.open(bundle.archive) as tar:
            tar.extractall(target, filter="tar")
    finally:
        # The tests run what the archive holds; the build's own folders are not needed again.
        shutil.rmtree(scratch, ignore_errors=True)
    (top,) = target.iterdir()
    yield top
    shutil.rmtree(target, ignore_errors=True)
