"""A harness run's transcript, stored compactly so its page opens without the original
file and without reading the whole run: rows packed PAGE_ROWS to a zlib-compressed JSON
page, plus one index row holding a byte per event for its kind and a byte for its
evidence marks (filtering by kind or by metric is a pass over those bytes, not over the
pages). The app reads the index, then only the pages it shows.

A run stored before transcripts were kept gets its transcript made from its stored trace
when first read (in memory; its Inspect AI messages were not stored then).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from peewee import BlobField, CompositeKey, IntegerField, TextField

from lattice_desktop.harness import HarnessResult, parse_box, parse_trace
from lattice_desktop.harness.transcript import Row, titled, transcript_rows
from lattice_desktop.store.base import BaseModel
from lattice_desktop.store.harness_tables import HarnessRun
from lattice_desktop.work import Work

PAGE_ROWS = 512


class TranscriptIndex(BaseModel):
    run = IntegerField(primary_key=True)  # a harness run's id
    count = IntegerField()
    kinds = BlobField()  # one byte per event: harness.transcript.KINDS index
    marks = BlobField()  # one byte per event: harness.transcript evidence bits

    class Meta:
        table_name = "transcript_index"


class TranscriptPage(BaseModel):
    run = IntegerField()
    page = IntegerField()
    data = BlobField()  # zlib(JSON list of rows)

    class Meta:
        table_name = "transcript_page"
        primary_key = CompositeKey("run", "page")


class TranscriptNote(BaseModel):
    """Why a run has no stored messages (e.g. stored before transcripts were kept)."""

    run = IntegerField(primary_key=True)
    text = TextField()

    class Meta:
        table_name = "transcript_note"


TRANSCRIPT_TABLES = [TranscriptIndex, TranscriptPage, TranscriptNote]


@dataclass
class PackedTranscript:
    """A transcript ready to store or to read from memory."""

    kinds: bytearray = field(default_factory=bytearray)
    marks: bytearray = field(default_factory=bytearray)
    pages: list[bytes] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.kinds)

    def page(self, number: int) -> list[Row]:
        return _rows(self.pages[number])


def pack(rows: Iterable[Row]) -> PackedTranscript:
    """Compress rows into pages as they come (pure: call on a worker)."""
    packed = PackedTranscript()
    chunk: list[Row] = []
    for row in rows:
        packed.kinds.append(row[2])
        packed.marks.append(row[6])
        chunk.append(row)
        if len(chunk) == PAGE_ROWS:
            packed.pages.append(_page(chunk))
            chunk = []
    if chunk:
        packed.pages.append(_page(chunk))
    return packed


def store_transcript(run_id: int, packed: PackedTranscript) -> None:
    """Insert a packed transcript (call on the writer, in the run's own transaction)."""
    TranscriptIndex.insert(
        run=run_id, count=packed.count, kinds=bytes(packed.kinds), marks=bytes(packed.marks)
    ).execute()
    rows = [{"run": run_id, "page": n, "data": data} for n, data in enumerate(packed.pages)]
    for start in range(0, len(rows), 200):
        TranscriptPage.insert_many(rows[start : start + 200]).execute()


def delete_transcripts(run_ids: Sequence[int]) -> None:
    for table in (TranscriptIndex, TranscriptPage, TranscriptNote):
        table.delete().where(table.run.in_(list(run_ids))).execute()


@dataclass(frozen=True)
class TranscriptHead:
    """What the Transcript tab needs to open a run: the kinds and marks of every event,
    its first page, and, for a run made from its trace on the fly, the pages too."""

    run_id: int
    count: int
    kinds: bytes
    marks: bytes
    first_page: list[Row]
    memory: PackedTranscript | None = None  # not stored: made from the stored trace
    note: str = ""


def load_transcript_head(run_id: int) -> TranscriptHead | None:
    index = TranscriptIndex.get_or_none(TranscriptIndex.run == run_id)
    if index is None:
        packed = _from_stored_trace(run_id)
        if packed is None:
            return None
        first = packed.page(0) if packed.pages else []
        note = "made from the stored trace: this run was stored before transcripts kept its messages"
        return TranscriptHead(
            run_id, packed.count, bytes(packed.kinds), bytes(packed.marks), first, packed, note
        )
    return TranscriptHead(
        run_id, index.count, bytes(index.kinds), bytes(index.marks), load_pages(run_id, [0]).get(0, [])
    )


def load_pages(run_id: int, pages: Sequence[int]) -> dict[int, list[Row]]:
    query = TranscriptPage.select(TranscriptPage.page, TranscriptPage.data).where(
        (TranscriptPage.run == run_id) & TranscriptPage.page.in_(list(pages))
    )
    return {row.page: _rows(bytes(row.data)) for row in query}


def search_pages(
    run_id: int, text: str, memory: PackedTranscript | None = None, *, work: Work | None = None
) -> list[int]:
    """The events (by position) whose title, detail or note holds `text`, case-insensitive."""
    work = work or Work()
    wanted = text.lower()
    plain = json.dumps(wanted, ensure_ascii=False)[1:-1] == wanted  # written the same inside JSON
    found: list[int] = []
    if memory is not None:
        numbered: Iterable[tuple[int, bytes]] = enumerate(memory.pages)
    else:
        numbered = (
            (row.page, bytes(row.data))
            for row in TranscriptPage.select(TranscriptPage.page, TranscriptPage.data)
            .where(TranscriptPage.run == run_id)
            .order_by(TranscriptPage.page)
            .iterator()
        )
    for number, data in numbered:
        work.raise_if_cancelled()
        raw = zlib.decompress(data).decode("utf-8")
        if plain and wanted not in raw.lower():  # a page without it, skipped undecoded
            continue
        for i, row in enumerate(json.loads(raw)):
            if wanted in f"{row[3]}\n{row[4]}\n{row[7]}".lower():
                found.append(number * PAGE_ROWS + i)
    return found


def _from_stored_trace(run_id: int) -> PackedTranscript | None:
    row = HarnessRun.get_or_none(HarnessRun.id == run_id)
    if row is None:
        return None
    box = parse_box(row.box_text, source=row.box_source)
    trace = parse_trace(row.trace_text, source=row.trace_source)
    result = HarnessResult.from_json(row.result_json)
    return pack(transcript_rows(row.trace_text, trace, result, box))


def _page(rows: list[Row]) -> bytes:
    return zlib.compress(json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), 1)


def _rows(data: bytes) -> list[Any]:
    """A page's rows, each with its title (made here, on the thread that reads the page)."""
    return [titled(tuple(row)) for row in json.loads(zlib.decompress(data).decode("utf-8"))]
