"""`data.key_index`: membership of 64-bit keys by a vectorised hash index."""
import numpy
import pytest

from spacy_gdcws.data.key_index import SMALL, KeyIndex


@pytest.mark.parametrize("size", [0, 1, 7, SMALL - 1, SMALL, 50_000])
def test_find_equals_searchsorted(size):
    rng = numpy.random.default_rng(size)
    table = numpy.unique(rng.integers(0, 2**63, size, dtype=numpy.uint64))
    present = table[rng.integers(0, len(table), 3000)] if len(table) else numpy.zeros(0, dtype=numpy.uint64)
    # absent keys, keys that collide in the low bits, and small consecutive ones
    keys = numpy.concatenate([present, rng.integers(0, 2**63, 3000, dtype=numpy.uint64),
                              table[:50] ^ numpy.uint64(1 << 40), numpy.arange(100, dtype=numpy.uint64)])
    found, index = KeyIndex(table).find(keys)
    expected = numpy.isin(keys, table)
    assert found.tolist() == expected.tolist()
    assert (table[index[found]] == keys[found]).all()
    assert (index[~found] == 0).all()


def test_consecutive_integer_keys_probe_past_each_other():
    """Code points (int64, consecutive) as keys: every one is found at its index."""
    codes = numpy.arange(0x4E00, 0x4E00 + 3 * SMALL, dtype=numpy.int64)
    found, index = KeyIndex(codes).find(numpy.concatenate([codes, codes + 3 * SMALL]))
    assert found[: len(codes)].all() and not found[len(codes):].any()
    assert index[: len(codes)].tolist() == list(range(len(codes)))
