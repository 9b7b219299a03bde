"""``Delta``, ``BitRound``, ``Quantize``, ``AsType`` and ``PackBits`` against numcodecs 0.17's
own classes: the same bytes both ways over every integer and float type pair numcodecs users
write, with values shaped like users' data (NaN, ±Infinity, -0.0, values out of the encoded
type's range, one element, empty chunks), and the same configuration, ``repr`` and errors."""

from __future__ import annotations

import contextlib
import itertools
import json
import warnings
from collections.abc import Iterator

import numpy as np
import pytest

numcodecs = pytest.importorskip("numcodecs")

from zarr_codec_filters import AsType, BitRound, Delta, PackBits, Quantize  # noqa: E402
from zarr_codec_filters import numcodecs as ours_nc  # noqa: E402
from zarr_codec_shapes import ChunkSpec, CodecError, ConfigurationError  # noqa: E402
from zarr_codec_shapes.registry import get_codec  # noqa: E402

RNG = np.random.default_rng(59)
INTEGERS = ["|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8"]
FLOATS = ["<f2", "<f4", "<f8"]
TYPES = INTEGERS + FLOATS


def sample(dtype: str, count: int = 2000) -> np.ndarray:
    """Values a user's array of ``dtype`` holds: a smooth signal, noise, the type's extremes,
    and for floats NaN, ±Infinity, -0.0, subnormals and values beyond every integer type."""
    kind = np.dtype(dtype)
    if kind.kind == "b":
        return RNG.random(count) < 0.3
    if kind.kind == "f":
        base = np.cumsum(RNG.standard_normal(count)) * 100
        specials = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, 3e9, -3e19, 1e300, 0.5, 2.5]
        with np.errstate(over="ignore"):
            values = np.concatenate([base, specials]).astype(kind)
        return values
    info = np.iinfo(kind)
    smooth = np.cumsum(RNG.integers(-50, 50, count)) % min(int(info.max) // 2 + 1, 1 << 62)
    extremes = np.array([info.min, info.max, 0, 1, info.max - 1], dtype=kind)
    return np.concatenate([smooth.astype(kind), extremes])


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """numpy's warnings silenced (numcodecs casts NaN and out-of-range values)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def same(ours: np.ndarray, theirs: np.ndarray, source: np.ndarray | None = None) -> None:
    """The same dtype and bytes, except where numpy's own result depends on where the element
    lies (``source``: the floats converted, when the result is ``uint32``)."""
    theirs = np.asarray(theirs)
    assert ours.dtype == theirs.dtype
    if source is not None and theirs.dtype == np.uint32 and source.dtype.kind == "f":
        keep = ~undefined_in_uint32(source)
        ours, theirs = ours.reshape(-1)[keep], theirs.reshape(-1)[keep]
    assert ours.tobytes() == theirs.tobytes()


def cumsum(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """numpy's running sums in ``dtype`` (what ``Delta`` decodes through), warnings silenced."""
    with np.errstate(all="ignore"):
        return np.cumsum(values, dtype=dtype)


def undefined_in_uint32(values: np.ndarray) -> np.ndarray:
    """Where numpy's float to ``uint32`` conversion is position-dependent on x86: its
    vectorised loop and its scalar loop (short arrays, the last elements of long ones) differ
    for NaN, -Infinity and values outside [-2^31, 2^32). Ours is the vectorised loop's."""
    wide = values.astype("f8").reshape(-1)
    with np.errstate(invalid="ignore"):
        whole = np.trunc(wide)
        return np.isnan(wide) | (whole < -(2.0**31)) | (whole >= 2.0**32)


@pytest.mark.parametrize(("dtype", "astype"), [*itertools.product(TYPES, TYPES), ("|b1", "|b1")])
def test_delta_bytes_both_ways(dtype: str, astype: str) -> None:
    ours, theirs = ours_nc.Delta(dtype, astype), numcodecs.Delta(dtype, astype)
    promoted = np.result_type(astype, dtype)
    # 9000 elements: across the edges of the blocks a narrowing encode works in.
    for sampled in (sample(dtype, 9000), sample(dtype)[:1]):
        data = sampled.copy()
        with quiet():
            try:
                theirs.encode(data)
            except (OverflowError, ValueError):  # numpy refuses a first element astype cannot hold
                data[0] = 0
            expected = theirs.encode(data)
            encoded = ours.encode(data)
            differences = np.concatenate([data[:1], np.diff(data)])
            same(encoded, expected, source=differences)
            same(ours.decode(expected), theirs.decode(expected), source=cumsum(expected, promoted))
    # Encoded data numcodecs never wrote (any values of astype) decodes as numcodecs decodes it.
    stored = sample(astype)
    with quiet():
        try:
            expected = theirs.decode(stored)
        except TypeError:  # numpy refuses this cumsum (no loop for the pair)
            return
        same(ours.decode(stored), expected, source=cumsum(stored, promoted))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("keepbits", [0, 1, 3, 7, 10, 16, 23, 30, 52])
def test_bitround_bytes(dtype: str, keepbits: int) -> None:
    ours, theirs = ours_nc.BitRound(keepbits), numcodecs.BitRound(keepbits)
    data = sample(dtype)
    try:
        expected = theirs.encode(data)
    except ValueError:
        with pytest.raises(ValueError, match="keepbits"):
            ours.encode(data)
        return
    same(ours.encode(data), expected)
    same(ours.decode(expected), theirs.decode(expected))
    assert BitRound(keepbits).encode(data).tobytes() == np.asarray(expected).tobytes()


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("astype", FLOATS)
@pytest.mark.parametrize("digits", [-3, 0, 1, 2, 4, 5, 10, 39, 300])
def test_quantize_bytes_both_ways(dtype: str, astype: str, digits: int) -> None:
    ours = ours_nc.Quantize(digits, dtype, astype)
    theirs = numcodecs.Quantize(digits, dtype, astype)
    data = sample(dtype)
    with quiet():
        expected = theirs.encode(data)
        same(ours.encode(data), expected)
        same(ours.decode(expected), theirs.decode(expected))


@pytest.mark.parametrize(("encode_dtype", "decode_dtype"), list(itertools.product(TYPES, TYPES)))
def test_astype_bytes_both_ways(encode_dtype: str, decode_dtype: str) -> None:
    ours = ours_nc.AsType(encode_dtype, decode_dtype)
    theirs = numcodecs.AsType(encode_dtype, decode_dtype)
    data, stored = sample(decode_dtype), sample(encode_dtype)
    with quiet():
        same(ours.encode(data), theirs.encode(data), source=data)
        same(ours.decode(stored), theirs.decode(stored), source=stored)


@pytest.mark.parametrize("count", [0, 1, 7, 8, 9, 63, 64, 65, 1000, 100_003])
def test_packbits_bytes_both_ways(count: int) -> None:
    data = RNG.random(count) < 0.3
    ours, theirs = ours_nc.PackBits(), numcodecs.PackBits()
    same(ours.encode(data), theirs.encode(data))
    packed = theirs.encode(data)
    same(ours.decode(packed), theirs.decode(packed))
    # Any nonzero byte is True, as numpy's packbits takes it.
    raw = RNG.integers(0, 4, count, dtype=np.uint8)
    same(ours.encode(raw.view(bool)), theirs.encode(raw.view(bool)))


def test_packbits_refuses_corrupt_input() -> None:
    for bad in (b"", b"\x08\x00", b"\x01"):
        with pytest.raises(CodecError, match="packbits"):
            PackBits().decode(np.frombuffer(bad, dtype="u1"))
    spec = ChunkSpec((6,), "bool")
    with pytest.raises(CodecError, match="packbits"):
        PackBits().decode(np.array([3, 255], dtype="u1"), spec)
    with pytest.raises(CodecError, match="bool"):
        PackBits().resolve(ChunkSpec((6,), "int8"))


def test_configuration_repr_and_registry_match_numcodecs() -> None:
    pairs = [
        (ours_nc.Delta("<i4"), numcodecs.Delta("<i4")),
        (ours_nc.Delta("<i4", astype="<i2"), numcodecs.Delta("<i4", astype="<i2")),
        (ours_nc.BitRound(7), numcodecs.BitRound(7)),
        (ours_nc.Quantize(3, "<f8"), numcodecs.Quantize(3, "<f8")),
        (ours_nc.Quantize(3, "<f8", "<f4"), numcodecs.Quantize(3, "<f8", "<f4")),
        (ours_nc.AsType("<i2", "<f8"), numcodecs.AsType("<i2", "<f8")),
        (ours_nc.PackBits(), numcodecs.PackBits()),
    ]
    for ours, theirs in pairs:
        assert ours.get_config() == theirs.get_config()
        assert repr(ours) == repr(theirs)
        config = json.loads(json.dumps(ours.get_config()))
        assert type(ours).from_config(config) == ours
        assert get_codec(config, 2) == ours.codec
        assert type(get_codec(config, 2)).__module__.startswith("zarr_codec_filters")
    ours_nc.register()
    try:
        for codec_id in ours_nc.IDS:
            found = numcodecs.registry.codec_registry[codec_id]
            assert found.__module__ == ours_nc.__name__
    finally:
        ours_nc.unregister()
    assert numcodecs.registry.codec_registry["delta"] is numcodecs.Delta


def test_refusals() -> None:
    with pytest.raises(ValueError, match="zero or positive"):
        ours_nc.BitRound(-1)
    with pytest.raises(ValueError, match="floating point"):
        ours_nc.Quantize(2, "<i4")
    with pytest.raises(ValueError, match="object"):
        ours_nc.Delta("O")
    with pytest.raises(CodecError, match="float16/32/64"):
        BitRound(3).encode(np.arange(4))
    with pytest.raises(ConfigurationError, match="dtype"):
        Delta("<i4").resolve(ChunkSpec((4,), "float64"))
    spec = ChunkSpec((4,), "int32")
    with pytest.raises(CodecError, match="delta"):
        Delta("<i4").bind(spec.data_type).decode(np.zeros(3, dtype="int16"))


def test_resolve_and_fill_values() -> None:
    spec = ChunkSpec((3, 4), "float64", 1.7)
    encoded = AsType("<i2", "<f8").resolve(spec)
    assert (encoded.shape, encoded.data_type.name, int(encoded.fill_value)) == ((3, 4), "int16", 1)
    assert Delta("<f8", "<f4").resolve(spec).data_type.name == "float32"
    assert BitRound(3).resolve(spec).data_type.name == "float64"
    packed = PackBits().resolve(ChunkSpec((3, 7), "bool"))
    assert (packed.shape, packed.data_type.name) == ((4,), "uint8")
    quantize = Quantize(1, "<f8")
    assert quantize.decode(quantize.encode(np.array([0.11]))).tolist() == [0.125]
