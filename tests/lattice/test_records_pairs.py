"""The vectorised record forms: `as_pairs` keeps sorted input as it is and sorts the rest,
and `diff_pairs` (with its fast path for two sides holding the same keys) says exactly what
`diff_records` says."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from lattice_desktop.lattice.checksum import belt_item_key, sink_count_key
from lattice_desktop.lattice.records import RecordDiff, as_pairs, diff_pairs, diff_records

KEYS = st.sampled_from(
    [belt_item_key(cell, 0, 1) for cell in range(40)] + [sink_count_key(c, 1) for c in range(40)]
)
RECORDS = st.dictionaries(KEYS, st.integers(1, 5), max_size=60)


@given(RECORDS, RECORDS)
@settings(max_examples=200, deadline=None)
def test_diff_pairs_says_what_diff_records_says(expected: dict[int, int], got: dict[int, int]) -> None:
    assert diff_pairs(expected, got) == diff_records(expected, got)
    assert diff_pairs(as_pairs(expected), as_pairs(got)) == diff_records(expected, got)


@given(RECORDS, st.data())
@settings(max_examples=200, deadline=None)
def test_diff_pairs_on_the_same_keys_finds_each_changed_value(
    expected: dict[int, int], data: st.DataObject
) -> None:
    # The same key set on both sides: the fast path. Only values may differ.
    got = {key: data.draw(st.integers(1, 5)) for key in expected}
    assert diff_pairs(expected, got) == diff_records(expected, got)
    assert all(d.expected is not None and d.got is not None for d in diff_pairs(expected, got))


def test_diff_pairs_on_the_same_keys_at_scale_names_the_few_changed_records() -> None:
    keys = np.arange(1, 2_000_001, dtype=np.uint64) << np.uint64(16) | np.uint64(1) << np.uint64(56)
    expected = np.stack([keys, np.ones_like(keys)], axis=1)
    got = expected.copy()
    got[[7, 1_000_000, 1_999_999], 1] = np.uint64(2)
    diffs = diff_pairs(expected, got)
    assert diffs == [RecordDiff(int(keys[i]), 1, 2) for i in (7, 1_000_000, 1_999_999)]
    assert diff_pairs(expected, expected) == []


def test_as_pairs_keeps_sorted_input_and_sorts_the_rest() -> None:
    rows = np.array([[5, 1], [9, 2], [12, 3]], np.uint64)
    assert as_pairs(rows).tolist() == rows.tolist()
    assert as_pairs(rows[::-1].copy()).tolist() == rows.tolist()
    # equal neighbouring keys are not "strictly increasing": they go through the sort, stably
    twice = np.array([[9, 1], [5, 2], [9, 3]], np.uint64)
    assert as_pairs(twice).tolist() == [[5, 2], [9, 1], [9, 3]]
    assert as_pairs({12: 3, 5: 1, 9: 2}).tolist() == rows.tolist()
    assert as_pairs({}).shape == (0, 2) and as_pairs({4: 1}).tolist() == [[4, 1]]
