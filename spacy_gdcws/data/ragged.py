"""Array helpers for rows of different lengths laid end to end (numpy only:
the torch modules import them without spaCy)."""
import numpy


def interleaved(pieces: list, separator) -> list:
    """`pieces` with `separator` between neighbours (for one `numpy.concatenate`)."""
    out = [separator] * (2 * len(pieces) - 1)
    out[::2] = pieces
    return out


def ragged_positions(lengths: numpy.ndarray):
    """Row and column of every element of rows of `lengths` laid end to end:
    RETURNS (rows, cols), int64 (sum(lengths),), for scattering into a padded array."""
    rows = numpy.repeat(numpy.arange(len(lengths)), lengths)
    cols = numpy.arange(int(lengths.sum())) - numpy.repeat(numpy.cumsum(lengths) - lengths, lengths)
    return rows, cols
