"""The zarr_codec_shapes conformance kit over ``ScaleOffset``, one suite per data type, each with
several configurations, and the spec's three examples.

The kit drives an array codec with its own sample arrays (random values plus the type's
edges: for integers its smallest and largest values, 0 and 1; for floats 0, -0, NaN, ±Infinity
and 1) in every layout (empty, 0-d, strided, Fortran, big-endian), and has no hook for other
data. For floats every configuration accepts those samples (NaN and the infinities pass
through); the codec is lossy there (``exact = False``: a second round trip must reproduce the
first). For integers it cannot express any offset or scale but the identities: with an offset
``x - offset`` leaves the range at one end of it, and with a scale ``(x - offset) * scale``
does (the spec makes both errors). Those suites run the kit's checks that need no arrays (JSON,
value semantics, malformed input), and the kit's array checks on arrays of their own: the
kit's samples clipped to the values each codec can encode (the ends of that range included),
in the kit's layouts. Integer round trips are exact.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from importlib.util import find_spec
from typing import Any, ClassVar

import numpy as np
import pytest
from malformed_arrays import malformed_arrays
from zarr_codec_scale_offset import ScaleOffset
from zarr_codec_shapes import ChunkSpec, ConfigurationError, DataType, OutOfRangeError
from zarr_codec_shapes.testing import (
    ConformanceSuite,
    check_batch_matches_single,
    check_threads_on_chunk,
    sample_arrays,
)

NO_ML_DTYPES = pytest.mark.skipif(find_spec("ml_dtypes") is None, reason="needs ml_dtypes")

Arrays = dict[str, np.ndarray[Any, Any]]


def _value_bytes(array: np.ndarray[Any, Any]) -> bytes:
    """The elements' bytes in native order; of the sub-byte types (int4 ...) only the value
    bits, since "the upper bits are arbitrary" (ours sign-extends, ml_dtypes does not)."""
    native = np.ascontiguousarray(array.astype(array.dtype.newbyteorder("=")))
    bits = DataType.from_numpy(array.dtype).bits
    raw = native.view(np.uint8)
    return (raw & ((1 << bits) - 1)).tobytes() if bits < 8 else raw.tobytes()


def _same(actual: Any, expected: Any) -> bool:
    a, b = np.asarray(actual), np.asarray(expected)
    return (
        a.shape == b.shape
        and a.dtype.newbyteorder("=") == b.dtype.newbyteorder("=")
        and _value_bytes(a) == _value_bytes(b)
    )


def _layouts(base: np.ndarray[Any, Any]) -> Arrays:
    """The kit's layouts (``sample_arrays``) of a 24 x 16 array."""
    arrays = {
        "empty": base[:0],
        "scalar": base[0, 0].reshape(()),
        "contiguous": base,
        "non-contiguous": base[::3, 1::2],
        "fortran": np.asfortranarray(base),
    }
    if base.dtype.itemsize > 1:
        arrays["big-endian"] = base.astype(base.dtype.newbyteorder(">"))
    return arrays


def encodable(codec: ScaleOffset, data_type: DataType) -> tuple[int, int]:
    """The integers ``x`` whose ``x - offset`` and ``(x - offset) * scale`` are in range."""
    lo, hi = data_type.integer_range()
    offset, scale = int(codec.offset), int(codec.scale)
    ends = (lo, hi) if scale > 0 else (hi, lo)
    k_lo, k_hi = max(lo, -(-ends[0] // scale)), min(hi, ends[1] // scale)  # k = x - offset
    return max(lo, k_lo + offset), min(hi, k_hi + offset)


class _Suite(ConformanceSuite):
    """``codecs`` over the one data type ``array_type``."""

    array_type: ClassVar[str]
    #: False where the kit's samples hold values the codecs refuse: arrays of our own then.
    kit_samples: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if hasattr(cls, "array_type"):  # not on intermediate bases
            cls.data_types = (DataType.from_name(cls.array_type),)
            cls.malformed = malformed_arrays(cls.array_type)

    @property
    def dt(self) -> DataType:
        return self.data_types[0]

    def arrays(self, codec: ScaleOffset, seed: int = 0) -> Arrays:
        """The kit's samples, or, for integers, those clipped to what ``codec`` encodes."""
        if self.kit_samples:
            return sample_arrays(self.dt, seed=seed)
        low, high = encodable(codec, self.dt)
        base = sample_arrays(self.dt, seed=seed)["contiguous"]
        return _layouts(np.clip(base, low, high).astype(base.dtype))

    def each_array(self, seed: int = 0) -> Iterator[tuple[ScaleOffset, str, Any, ChunkSpec]]:
        for codec in self._each():
            assert isinstance(codec, ScaleOffset)
            for label, array in self.arrays(codec, seed).items():
                yield codec, label, array, ChunkSpec(array.shape, self.dt)

    # -- the kit's array checks, on our arrays where its own samples cannot be used ----------

    def test_round_trips(self) -> None:
        if self.kit_samples:
            super().test_round_trips()
            return
        for codec, label, array, spec in self.each_array():
            encoded = codec.encode(array, spec)
            assert encoded.shape == array.shape and encoded.dtype == self.dt.numpy_dtype
            assert _same(codec.decode(encoded, spec), array), f"{codec!r}: {label} changed"

    def test_decode_into(self) -> None:
        if self.kit_samples:
            super().test_decode_into()
        # Every layout (the kit stops at its 0-d sample), into C and Fortran arrays.
        for codec, label, array, spec in self.each_array():
            encoded = codec.encode(array, spec)
            expected = codec.decode(encoded, spec)
            for order in ("C", "F"):
                out = np.empty(array.shape, dtype=self.dt.numpy_dtype, order=order)
                codec.decode_into(encoded, out, spec)
                assert _same(out, expected), f"{codec!r}: {label} into {order} order"

    def test_async_and_batch(self) -> None:
        if self.kit_samples:
            super().test_async_and_batch()
        for codec, _, array, spec in self.each_array(seed=3):
            if not array.ndim:
                continue
            encoded = codec.encode(array, spec)
            assert _same(asyncio.run(codec.encode_async(array, spec)), encoded)
            decoded = codec.decode(encoded, spec)
            assert _same(asyncio.run(codec.decode_async(encoded, spec)), decoded)
            check_batch_matches_single(codec, [array] * 3, spec, threads=2)
            outs = np.empty((2, *array.shape), dtype=self.dt.numpy_dtype)
            codec.decode_batch_into([encoded, encoded], spec, list(outs), 2)
            assert _same(outs[0], decoded) and _same(outs[1], decoded)

    def test_threads(self) -> None:
        if self.kit_samples:
            super().test_threads()
        for codec in self._each():
            assert isinstance(codec, ScaleOffset)
            array = self.arrays(codec)["contiguous"]
            check_threads_on_chunk(codec, array, ChunkSpec(array.shape, self.dt))

    # -- beyond the kit ----------------------------------------------------------------------

    def test_the_kit_samples_are_refused_where_not_used(self) -> None:
        """Why ``kit_samples`` is False: its extremes are beyond what the codec encodes."""
        if self.kit_samples:
            return
        for codec in self._each():
            sample = sample_arrays(self.dt)["contiguous"]
            with pytest.raises(OutOfRangeError):
                codec.encode(sample, ChunkSpec(sample.shape, self.dt))  # type: ignore[attr-defined]

    def test_resolve_encodes_the_fill_value(self) -> None:
        for codec, _, array, _ in self.each_array():
            if not array.size:
                continue
            fill = array.ravel()[-1]  # one the codec encodes
            spec = ChunkSpec((3, 4), self.dt, fill)
            resolved = codec.resolve(spec)
            assert resolved.data_type == self.dt and resolved.shape == (3, 4)
            encoded = codec.encode(np.array([spec.fill_value]), spec)
            assert _same(np.array([resolved.fill_value]), encoded)


# -- integers: the identity on the kit's samples, offsets and scales on our arrays --------------

IDENTITY = (ScaleOffset(), ScaleOffset.from_json({"name": "scale_offset"}))


class TestIdentityInt8(_Suite):
    codecs = IDENTITY
    array_type = "int8"


class TestIdentityUint64(_Suite):
    codecs = IDENTITY
    array_type = "uint64"


class _IntSuite(_Suite):
    kit_samples = False

    def test_inexact_division_is_malformed(self) -> None:
        """Decoding is true division: an encoded value that is no multiple of the scale."""
        for codec in self._each():
            assert isinstance(codec, ScaleOffset)
            if abs(int(codec.scale)) > 1:
                with pytest.raises(OutOfRangeError):
                    codec.decode(np.ones(16, self.dt.numpy_dtype), ChunkSpec((16,), self.dt))


class TestInt8(_IntSuite):
    codecs = (ScaleOffset(offset=100), ScaleOffset(scale=-3), ScaleOffset(offset=-20, scale=2))
    array_type = "int8"


class TestInt16(_IntSuite):
    codecs = (
        ScaleOffset(offset=1000),
        ScaleOffset(scale=7),
        ScaleOffset(offset=-1000, scale=-2),
    )
    array_type = "int16"


class TestInt32(_IntSuite):
    codecs = (ScaleOffset(offset=2**30), ScaleOffset(scale=1000), ScaleOffset(offset=-5, scale=3))
    array_type = "int32"


class TestInt64(_IntSuite):
    codecs = (
        ScaleOffset(offset=-(2**62)),
        ScaleOffset(scale=-(2**40)),
        ScaleOffset(offset=2**63 - 1, scale=-1),  # x in [0, 2^63 - 1]; -1 would give -MIN
    )
    array_type = "int64"


class TestUint8(_IntSuite):
    codecs = (ScaleOffset(offset=200), ScaleOffset(scale=3), ScaleOffset(offset=10, scale=2))
    array_type = "uint8"


class TestUint16(_IntSuite):
    codecs = (ScaleOffset(offset=1000), ScaleOffset(scale=257), ScaleOffset(offset=1, scale=2))
    array_type = "uint16"


class TestUint32(_IntSuite):
    codecs = (ScaleOffset(offset=2**31), ScaleOffset(scale=2**16), ScaleOffset(offset=7, scale=5))
    array_type = "uint32"


class TestUint64(_IntSuite):
    codecs = (
        ScaleOffset(offset=2**64 - 1),  # only 2^64 - 1 itself encodes (to 0)
        ScaleOffset(scale=2**32),
        ScaleOffset(offset=2**63, scale=2),
    )
    array_type = "uint64"


@NO_ML_DTYPES
class TestInt4(_IntSuite):
    codecs = (ScaleOffset(offset=3), ScaleOffset(scale=-2), ScaleOffset(offset=-1, scale=3))
    array_type = "int4"


def test_encodable_ranges() -> None:
    """The helper the integer suites clip with, on hand-worked cases."""
    int8, uint64 = DataType.from_name("int8"), DataType.from_name("uint64")
    assert encodable(ScaleOffset(offset=100), int8) == (-28, 127)
    assert encodable(ScaleOffset(scale=-3), int8) == (-42, 42)
    assert encodable(ScaleOffset(offset=-1, scale=-1), int8) == (-128, 126)
    assert encodable(ScaleOffset(offset=2**64 - 1), uint64) == (2**64 - 1, 2**64 - 1)
    assert encodable(ScaleOffset(offset=2**63, scale=2), uint64) == (2**63, 2**64 - 1)


# -- floats: the kit's own samples -------------------------------------------------------------


class TestFloat16(_Suite):
    codecs = (
        ScaleOffset(offset=3, scale=0.25),
        ScaleOffset(offset=-10, scale=0.1),
        ScaleOffset(offset=0.5, scale=1 / 3),
    )
    array_type = "float16"
    exact = False


class TestFloat32(_Suite):
    codecs = (
        ScaleOffset(offset=5, scale=0.1),
        ScaleOffset(offset=100, scale=0.01),
        ScaleOffset(offset="0xc0e80000", scale=0.75),  # -7.25 as hex
    )
    array_type = "float32"
    exact = False


class TestFloat64(_Suite):
    codecs = (
        ScaleOffset(offset=-10, scale=0.1),
        ScaleOffset(offset=0.5, scale=1 / 3),
        ScaleOffset(offset=1.5, scale=0.125),
    )
    array_type = "float64"
    exact = False


@NO_ML_DTYPES
class TestBfloat16(_Suite):
    codecs = (ScaleOffset(offset=5, scale=0.1), ScaleOffset(offset=1.5, scale=0.125))
    array_type = "bfloat16"
    exact = False


# -- the spec's examples -----------------------------------------------------------------------


def _chain(
    codecs: list[Any], array: np.ndarray[Any, Any], spec: ChunkSpec
) -> tuple[Any, Callable[[Any], Any]]:
    """Encode ``array`` through array-to-array ``codecs``; also return the decoder."""
    specs = [spec]
    for codec in codecs[:-1]:
        specs.append(codec.resolve(specs[-1]))
    encoded = array
    for codec, s in zip(codecs, specs, strict=True):
        encoded = codec.encode(encoded, s)

    def decode(data: Any) -> Any:
        for codec, s in reversed(list(zip(codecs, specs, strict=True))):
            data = codec.decode(data, s)
        return data

    return encoded, decode


def test_spec_example_float32_with_scale_and_offset() -> None:
    """ "Float32 with scale and offset": offset 5, scale 0.1 on a float32 array, computed
    "using the arithmetic semantics of the input array's data type"."""
    metadata = {"name": "scale_offset", "configuration": {"offset": 5, "scale": 0.1}}
    codec = ScaleOffset.from_json(metadata, 3)
    assert codec.to_json(3) == metadata
    values = np.array([5.0, 15.0, 105.0, -95.0, 1304.0, np.nan, -0.0], np.float32)
    spec = ChunkSpec(values.shape, "float32")
    encoded = codec.encode(values, spec)
    f5, f01 = np.float32(5), np.float32(0.1)
    assert encoded.dtype == np.float32
    assert encoded.tobytes() == ((values - f5) * f01).tobytes()
    decoded = codec.decode(encoded, spec)
    assert decoded.tobytes() == (encoded / f01 + f5).tobytes()
    np.testing.assert_allclose(decoded, values, rtol=1e-6)


def test_spec_example_uint16_range_reduction() -> None:
    """ "Uint16 range reduction": [1000, 1255] shifted to [0, 255], then cast to uint8."""
    cast_value = pytest.importorskip("zarr_codec_cast_value")
    codec = ScaleOffset.from_json({"name": "scale_offset", "configuration": {"offset": 1000}}, 3)
    values = np.arange(1000, 1256, dtype=np.uint16)
    spec = ChunkSpec(values.shape, "uint16", 1000)  # a fill value the codec can encode
    assert codec.encode(values, spec).tolist() == list(range(256))
    encoded, decode = _chain([codec, cast_value.CastValue("uint8")], values, spec)
    assert encoded.dtype == np.uint8 and encoded.tolist() == list(range(256))
    assert decode(encoded).dtype == np.uint16 and decode(encoded).tolist() == values.tolist()
    # Below the offset the intermediate is no uint16 value: "MUST treat this as an error".
    with pytest.raises(OutOfRangeError):
        codec.encode(np.array([999, 1000], np.uint16), ChunkSpec((2,), "uint16"))
    # The fill value is transformed like an element: the default 0 - 1000 fails too.
    with pytest.raises(ConfigurationError, match="fill value"):
        codec.resolve(ChunkSpec(values.shape, "uint16"))
    assert codec.resolve(spec).fill_value == 0


def test_spec_example_float64_to_uint8_with_nan() -> None:
    """ "Float64 to uint8 with NaN preservation": [0, 2540] maps to [1, 255] by
    (x + 10) * 0.1; cast_value maps NaN to 0 and back. "This ensures a lossless round-trip
    for the fill value. There is no such assurance for the array values"."""
    cast_value = pytest.importorskip("zarr_codec_cast_value")
    codec = ScaleOffset(offset=-10, scale=0.1)
    cast = cast_value.CastValue(
        "uint8",
        rounding="nearest-even",
        scalar_map={"encode": [["NaN", 0]], "decode": [[0, "NaN"]]},
    )
    assert codec.to_json(3) == {
        "name": "scale_offset",
        "configuration": {"offset": -10, "scale": 0.1},
    }
    values = np.concatenate([np.linspace(0, 2540, 255), [np.nan, 0.0, 2540.0, 1234.5]])
    spec = ChunkSpec(values.shape, "float64", np.float64(np.nan))
    scaled = codec.encode(values, spec)
    assert scaled.tobytes() == ((values + 10) * 0.1).tobytes()
    assert np.nanmin(scaled) == 1.0 and np.nanmax(scaled) == 255.0
    encoded, decode = _chain([codec, cast], values, spec)
    assert encoded.dtype == np.uint8 and encoded.min() == 0 and encoded[255] == 0
    assert encoded[:255].min() >= 1 and encoded.max() == 255
    decoded = decode(encoded)
    assert np.isnan(decoded[255]) and not np.isnan(decoded[:255]).any()
    assert np.abs(decoded[:255] - values[:255]).max() <= 5 + 1e-9  # half a step of 10
    # The fill value: NaN through scale_offset is NaN, which cast_value maps to 0.
    scaled_spec = codec.resolve(spec)
    assert np.isnan(scaled_spec.fill_value)
    assert cast.resolve(scaled_spec).fill_value == 0
