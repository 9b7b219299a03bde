"""The zarr_codec_shapes conformance kit over ``CastValue``, one suite per (array data type, codec).

The kit drives an array codec with its own sample arrays of each data type in ``data_types``
(random values plus the type's edges: for floats 0, -0, NaN, +Infinity, -Infinity and 1) in
every layout (empty, 0-d, strided, Fortran, big-endian). It has no hook for other data, so
every configuration here accepts those samples: casts into integer types map NaN and both
infinities in ``scalar_map`` (the spec makes them an error otherwise, even with ``clamp``),
and ``int64 -> float32`` clamps, so that ``2**63 - 1``, which rounds up to ``2**63`` in
float32, decodes back into int64. Lossy casts run with ``exact = False``: a second round trip
must then reproduce the first.

The extra tests below check with arrays what the kit leaves out for array codecs: every
``decode_into`` layout, batches and resolve (the kit's ``test_threads`` runs on the suite's
arrays: threads need nothing extra).
"""

from __future__ import annotations

from importlib.util import find_spec
from typing import Any, ClassVar

import numpy as np
import pytest
from malformed_arrays import malformed_arrays
from zarr_codec_cast_value import CastValue
from zarr_codec_shapes import ChunkSpec, DataType
from zarr_codec_shapes.testing import ConformanceSuite, check_batch_matches_single, sample_arrays

#: Into an integer type every non-finite float must be mapped (the kit's samples have all 3).
INT16_MAP = {
    "encode": [["NaN", -32768], ["Infinity", 32767], ["-Infinity", -32767]],
    "decode": [[-32768, "NaN"]],
}
#: The specification's own "NumPy compatibility" example, "+Infinity" spelling included.
NUMPY_MAP = {"encode": [["NaN", 0], ["+Infinity", 0], ["-Infinity", 0]]}


def _same(actual: Any, expected: Any) -> bool:
    a, b = np.asarray(actual), np.asarray(expected)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


class _CastSuite(ConformanceSuite):
    """One codec over one array data type (the kit runs every codec over every data type)."""

    codec: ClassVar[CastValue]
    array_type: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.codecs = (cls.codec,)
        cls.data_types = (DataType.from_name(cls.array_type),)
        # Decoders take arrays of the codec's data_type.
        cls.malformed = malformed_arrays(cls.codec.data_type.name)

    def _arrays(self, seed: int = 0) -> dict[str, np.ndarray[Any, Any]]:
        return sample_arrays(self.data_types[0], seed=seed)

    # -- what the kit leaves out for array codecs ----------------------------------------------

    def test_decode_into_every_layout_but_0d(self) -> None:
        """The kit's decode_into check stops at its 0-d sample (see test_decode_into)."""
        dt = self.data_types[0]
        for label, array in self._arrays().items():
            if array.ndim == 0:
                continue
            spec = ChunkSpec(array.shape, dt)
            encoded = self.codec.encode(array, spec)
            expected = self.codec.decode(encoded, spec)
            for order in ("C", "F"):  # F: not C-contiguous, decoded through a copy
                out = np.empty(array.shape, dtype=dt.numpy_dtype, order=order)
                self.codec.decode_into(encoded, out, spec)
                assert _same(out, expected), f"{label} into an {order}-ordered array"

    def test_batch_matches_single_chunks(self) -> None:
        """The kit checks batches only for bytes codecs; ours take a spec and run in parallel."""
        dt = self.data_types[0]
        for array in [a for a in self._arrays(seed=3).values() if a.ndim]:
            check_batch_matches_single(
                self.codec, [array, array], ChunkSpec(array.shape, dt), threads=2
            )

    def test_resolve_gives_the_target_type(self) -> None:
        resolved = self.codec.resolve(ChunkSpec((3, 4), self.data_types[0]))
        assert resolved.data_type == self.codec.data_type and resolved.shape == (3, 4)


class TestFloat32ToInt16ClampNaNMap(_CastSuite):
    codec = CastValue("int16", out_of_range="clamp", scalar_map=INT16_MAP)
    array_type = "float32"
    exact = False


class TestFloat64ToFloat16(_CastSuite):
    codec = CastValue("float16")
    array_type = "float64"
    exact = False


class TestFloat64ToUint8TowardsZeroWrap(_CastSuite):
    """The specification's "NumPy compatibility" example, exactly."""

    codec = CastValue("uint8", rounding="towards-zero", out_of_range="wrap", scalar_map=NUMPY_MAP)
    array_type = "float64"
    exact = False

    def test_the_spec_example_values(self) -> None:
        """NaN/Inf -> 0, truncation, then modulo 256, as numpy does; "wrap" needs an integral
        data_type (uint8), and decoding uint8 back into float64 never leaves the range."""
        values = np.array([np.nan, np.inf, -np.inf, 3.9, -1.5, 257.0, 1e300])
        spec = ChunkSpec(values.shape, "float64")
        encoded = self.codec.encode(values, spec)
        assert encoded.dtype == np.uint8 and encoded.tolist() == [0, 0, 0, 3, 255, 1, 0]
        decoded = self.codec.decode(encoded, spec)
        assert decoded.dtype == np.float64 and decoded.tolist() == [0, 0, 0, 3, 255, 1, 0]


class TestInt32ToFloat64(_CastSuite):
    codec = CastValue("float64")
    array_type = "int32"
    exact = True  # every int32 is a float64: lossless both ways


class TestUint16ToInt8Wrap(_CastSuite):
    codec = CastValue("int8", out_of_range="wrap")
    array_type = "uint16"
    exact = False


class TestInt64ToFloat32Clamp(_CastSuite):
    codec = CastValue("float32", rounding="nearest-away", out_of_range="clamp")
    array_type = "int64"
    exact = False


@pytest.mark.skipif(find_spec("ml_dtypes") is None, reason="numpy's bfloat16 is ml_dtypes'")
class TestFloat32ToBfloat16(_CastSuite):
    codec = CastValue("bfloat16", rounding="towards-negative", out_of_range="clamp")
    array_type = "float32"
    exact = False

    def test_async_on_arrays(self) -> None:
        """check_async_and_batch without the buffer export bfloat16 lacks."""
        import asyncio

        array = self._arrays()["contiguous"]
        spec = ChunkSpec(array.shape, "float32")
        encoded = asyncio.run(self.codec.encode_async(array, spec))
        assert _same(encoded, self.codec.encode(array, spec))
        decoded = asyncio.run(self.codec.decode_async(encoded, spec))
        assert _same(decoded, self.codec.decode(encoded, spec))
