"""Equal short strings decode into one shared object (as pyarrow deduplicates strings) in
chunks of 2048 items or more: the values are numcodecs', whatever the mix of repeats, and
unique data too; bytes items are made each time."""

from __future__ import annotations

import numpy as np
import pytest

numcodecs = pytest.importorskip("numcodecs")

from zarr_codec_vlen.numcodecs import VLenBytes, VLenUTF8  # noqa: E402


def _labels(count: int) -> list[str]:
    words = ["", "a", "zarr", "température", "東京", "x" * 40]
    return [words[i % len(words)] + (str(i % 7) if i % 3 else "") for i in range(count)]


@pytest.mark.parametrize("count", [0, 1, 1024, 2047, 2048, 5000])
def test_repeated_labels_decode_as_numcodecs_and_share_objects(count: int) -> None:
    values = np.array(_labels(count), dtype=object)
    encoded = numcodecs.VLenUTF8().encode(values)
    decoded = VLenUTF8().decode(encoded)
    assert decoded.tolist() == values.tolist()
    short = [i for i, v in enumerate(values) if 1 < len(v.encode()) <= 32]
    if count >= 2048 and short:
        # Equal short items are one object; long ones are made each time.
        firsts = {values[i]: decoded[i] for i in short}
        assert all(decoded[i] is firsts[values[i]] for i in short)


def test_unique_items_decode_as_numcodecs() -> None:
    values = np.array([f"u{i:07d}" for i in range(5000)], dtype=object)
    decoded = VLenUTF8().decode(numcodecs.VLenUTF8().encode(values))
    assert decoded.tolist() == values.tolist()


def test_repeated_bytes_decode_as_numcodecs() -> None:
    values = np.array([label.encode() for label in _labels(3000)], dtype=object)
    decoded = VLenBytes().decode(numcodecs.VLenBytes().encode(values))
    assert decoded.tolist() == values.tolist()
    assert all(isinstance(item, bytes) for item in decoded)


def test_decoded_items_are_independent_of_the_input() -> None:
    """Shared objects are made from the input's bytes, not views of them."""
    values = np.array(["ab"] * 2000, dtype=object)
    encoded = bytearray(numcodecs.VLenUTF8().encode(values))
    decoded = VLenUTF8().decode(encoded)
    encoded[:] = b"\0" * len(encoded)
    assert set(decoded.tolist()) == {"ab"}
