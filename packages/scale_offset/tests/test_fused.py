"""``ScaleOffset.fuse``: ``[scale_offset, cast_value]`` in one pass equals the two in turn."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from zarr_codec_scale_offset import ScaleOffset
from zarr_codec_shapes import ChunkSpec, CodecError

cast_value = pytest.importorskip("zarr_codec_cast_value")

SOURCES = ["float32", "float64", "int16", "int32", "uint16"]
TARGETS = ["int8", "uint8", "int16", "uint16", "float16", "float32"]
ROUNDINGS = ["nearest-even", "towards-zero", "towards-positive", "towards-negative", "nearest-away"]


def _outcome(fn: Any) -> Any:
    try:
        return ("ok", np.asarray(fn()))
    except CodecError as err:
        return ("error", type(err))


@settings(max_examples=60, deadline=None)
@given(
    source=st.sampled_from(SOURCES),
    target=st.sampled_from(TARGETS),
    rounding=st.sampled_from(ROUNDINGS),
    clamp=st.booleans(),
    values=st.lists(st.integers(-300, 300), min_size=1, max_size=600),
    halves=st.booleans(),
)
def test_fused_equals_the_pair(
    source: str,
    target: str,
    rounding: str,
    clamp: bool,
    values: list[int],
    halves: bool,
) -> None:
    is_float = source.startswith("float")
    first = ScaleOffset(0.5, 1.25) if is_float else ScaleOffset(3, 2)
    second = cast_value.CastValue(target, rounding, "clamp" if clamp else None)
    fused = first.fuse(second)
    assert fused is not None
    array = np.array(values, dtype=np.float64) / (2 if halves else 1)
    if not is_float:
        array = np.abs(array) if source.startswith("u") else array
    data = array.astype(source)
    # A fill value that encodes to 0 (and so survives any cast back).
    spec = ChunkSpec(data.shape, source, fill_value=0.5 if is_float else 3)
    middle_spec = first.resolve(spec)
    pair = _outcome(lambda: second.encode(first.encode(data, spec), middle_spec))
    one = _outcome(lambda: fused.encode(data, spec))
    assert pair[0] == one[0]
    if pair[0] == "ok":
        np.testing.assert_array_equal(pair[1].view(np.uint8), one[1].view(np.uint8))
        encoded = one[1]
        back_pair = _outcome(lambda: first.decode(second.decode(encoded, middle_spec), spec))
        back_one = _outcome(lambda: fused.decode(encoded, spec))
        assert back_pair[0] == back_one[0]
        if back_pair[0] == "ok":
            np.testing.assert_array_equal(back_pair[1].view(np.uint8), back_one[1].view(np.uint8))
            out = np.empty_like(back_one[1])
            fused.decode_into(encoded, out, spec)
            np.testing.assert_array_equal(out.view(np.uint8), back_one[1].view(np.uint8))


def test_the_spec_example_fused() -> None:
    """float64 with NaN fill -> uint8, NaN reserved as 0 (the spec's third example)."""
    first = ScaleOffset(-10, 0.1)
    second = cast_value.CastValue(
        "uint8", scalar_map={"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}
    )
    fused = first.fuse(second)
    assert fused is not None
    spec = ChunkSpec((4,), "float64", fill_value=float("nan"))
    encoded = fused.encode(np.array([np.nan, 0.0, 1000.0, 2540.0]), spec)
    assert encoded.tolist() == [0, 1, 101, 255]
    assert fused.resolve(spec).fill_value == 0
    decoded = fused.decode(encoded, spec)
    assert np.isnan(decoded[0]) and decoded[1:].tolist() == [0.0, 1000.0, 2540.0]


def test_only_cast_value_fuses() -> None:
    assert ScaleOffset(1, 2).fuse(ScaleOffset(3, 4)) is None
    assert ScaleOffset(1, 2).fuse(object()) is None
