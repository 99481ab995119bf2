"""Where a batch's jobs run. The driver speaks only this small interface, so the same
batch logic runs in this process (`SerialBackend`, for tests and as the benchmark's
baseline) or on a dask cluster (`dask_backend.DaskBackend`)."""

from __future__ import annotations

import heapq
import itertools
from typing import Any, Protocol

from lattice_desktop.batch.worker import JobResult, cancel_batch, run_jobs
from lattice_desktop.manifest.case import CaseEntry, CaseManifest

Done = tuple[Any, "JobResult | BaseException"]  # (the caller's tag, what the job gave)


class Backend(Protocol):
    def share(self, key: str, value: object) -> object:
        """Send `value` to the workers once under `key` (a content hash); a handle to it."""

    def release(self, handle: object) -> None:
        """The batch needs a shared value no more."""

    def submit(
        self,
        tag: object,
        batch_id: str,
        case: object,
        entries: list[object],
        module: object,
        *,
        priority: int,
    ) -> None:
        """Queue one task of jobs (higher priority first); its answer comes back from `completed`."""

    def completed(self, timeout: float) -> list[Done]:
        """Jobs finished since the last call, waiting at most `timeout` seconds for one."""

    def cancel(self, batch_id: str, wall_clock: float) -> None:
        """Drop queued jobs and interrupt running ones."""


class SerialBackend:
    """Runs each job in this process when asked for results: one job per `completed` call."""

    def __init__(self) -> None:
        self._queue: list[tuple[int, int, object, tuple]] = []
        self._order = itertools.count()

    def share(self, key: str, value: object) -> object:
        return value

    def release(self, handle: object) -> None:
        return None

    def submit(
        self,
        tag: object,
        batch_id: str,
        case: object,
        entries: list[object],
        module: object,
        *,
        priority: int,
    ) -> None:
        heapq.heappush(self._queue, (-priority, next(self._order), tag, (batch_id, case, entries, module)))

    def completed(self, timeout: float) -> list[Done]:
        if not self._queue:
            return []
        _, _, tag, (batch_id, case, entries, module) = heapq.heappop(self._queue)
        assert isinstance(case, CaseManifest) and isinstance(module, bytes)
        assert all(isinstance(entry, CaseEntry) for entry in entries)
        try:
            return [(tag, run_jobs(batch_id, case, entries, module))]
        except Exception as exc:
            return [(tag, exc)]

    def cancel(self, batch_id: str, wall_clock: float) -> None:
        self._queue.clear()
        cancel_batch(batch_id, wall_clock)
