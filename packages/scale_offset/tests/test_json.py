"""scale_offset's Zarr v3 JSON, its validation, its value semantics and ``resolve``.

The metadata (spec "Codec metadata" and ``scale_offset.schema.json``)::

    {"name": "scale_offset", "configuration": {"offset": <scalar>, "scale": <scalar>}}

Both fields are optional, and so is ``configuration`` ("If neither scale nor offset are
specified, the entire configuration field may be omitted. In this case the codec is
effectively a no-op."); "Metadata with additional keys MUST be treated as invalid". Each
parameter "MUST be encoded to JSON using the Zarr V3 fill value encoding for the input array's
data type", so whether it is valid is known once the data type is: at ``resolve``, ``encode``
and ``decode``. The codec has no Zarr v2 form (numcodecs' is ``fixedscaleoffset``).
"""

from __future__ import annotations

import copy
import json
import math
import pickle
from importlib.metadata import entry_points
from typing import Any

import numpy as np
import pytest
import zarr_codec_shapes
from zarr_codec_scale_offset import ScaleOffset
from zarr_codec_shapes import ChunkSpec, ConfigurationError, DataType, UnknownCodecError

BARE = {"name": "scale_offset"}


def v3(**config: Any) -> dict[str, Any]:
    return {"name": "scale_offset", "configuration": config}


def _normal(data: Any) -> Any:
    """JSON as it is stored."""
    return json.loads(json.dumps(data))


def _fill(json_value: Any, data_type: str) -> Any:
    return zarr_codec_shapes.fill_value_from_json(json_value, DataType.from_name(data_type))


def _isnan(array: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    with np.errstate(invalid="ignore"):  # signalling NaNs warn when cast
        return np.isnan(array.astype(np.float64))


def _run(codec: ScaleOffset, data_type: str, direction: str) -> Any:
    """Encode or decode two ones of ``data_type`` (binds the codec to the type)."""
    spec = ChunkSpec((2,), data_type)
    array = np.ones(2, dtype=spec.numpy_dtype)
    return (codec.encode if direction == "encode" else codec.decode)(array, spec)


# -- round trips -----------------------------------------------------------------------------

ROUND_TRIPS: list[dict[str, Any]] = [
    BARE,
    v3(offset=5, scale=0.1),  # the spec's first example
    v3(offset=1000),  # the second
    v3(offset=-10, scale=0.1),  # the third
    v3(scale=2),
    v3(offset=-0.0),  # not the identity: -0.0 - (-0.0) is +0.0
    v3(offset=1.5, scale=-0.25),
    v3(offset="0x3f800000", scale="0x40000000"),  # hex floats, kept as written
    v3(offset="0x0000", scale="0x3c00"),  # a hex 1 is written, as given
    v3(offset=2**64 - 1, scale=2**64 - 1),
    v3(offset=-(2**63), scale=-(2**63)),
    v3(offset=1e300, scale=5e-324),
]


@pytest.mark.parametrize("data", ROUND_TRIPS, ids=json.dumps)
def test_v3_round_trip(data: dict[str, Any]) -> None:
    codec = ScaleOffset.from_json(data, 3)
    assert codec.to_json(3) == data
    assert _normal(codec.to_json(3)) == codec.to_json(3), "not plain JSON"
    assert ScaleOffset.from_json(_normal(data), 3) == codec
    assert ScaleOffset(**data.get("configuration", {})) == codec
    assert zarr_codec_shapes.get_codec(data) == codec


@pytest.mark.parametrize(
    "data",
    [
        BARE,
        v3(),
        v3(offset=0),
        v3(scale=1),
        v3(offset=0, scale=1),
        v3(offset=0.0, scale=1.0),
    ],
    ids=json.dumps,
)
def test_identities_are_left_out(data: dict[str, Any]) -> None:
    """ "A missing offset field encodes the additive identity ... A missing scale field
    encodes the multiplicative identity": written without them, as zarr-python writes them."""
    codec = ScaleOffset.from_json(data, 3)
    assert codec.to_json(3) == BARE
    assert codec == ScaleOffset() and hash(codec) == hash(ScaleOffset())
    assert codec.configuration() == {}


def test_one_identity_is_left_out_the_other_kept() -> None:
    assert ScaleOffset(offset=0, scale=3).to_json(3) == v3(scale=3)
    assert ScaleOffset(offset=3, scale=1.0).to_json(3) == v3(offset=3)


@pytest.mark.parametrize(
    "data_type",
    [
        "int8",
        "int64",
        "uint64",
        "float16",
        "float32",
        "float64",
        "int4",
        "bfloat16",
        "float6_e2m3fn",
    ],
)
def test_omitted_configuration_is_a_no_op(data_type: str) -> None:
    """ "In this case the codec is effectively a no-op": every value comes back (NaNs as NaNs:
    the spec does not require their payloads to be kept), but for one IEEE detail: decoding is
    ``x / 1 + 0``, and -0.0 + 0.0 is +0.0 (-0.0 - 0.0 is -0.0, so encoding keeps it). zarr's
    built-in computes the same. (No zero is the identity both ways: with an offset of -0.0,
    decoding would keep -0.0 and encoding would not.)"""
    dt = DataType.from_name(data_type)
    if dt.v2_code is None:
        pytest.importorskip("ml_dtypes")
    codec = ScaleOffset.from_json(BARE, 3)
    rng = np.random.default_rng(1)
    raw = np.arange(256, dtype=np.uint8).repeat(dt.itemsize)
    raw = np.concatenate([raw, rng.integers(0, 256, 64 * dt.itemsize, dtype=np.uint8)])
    uint = np.dtype(f"u{dt.itemsize}")
    mask = (1 << dt.bits) - 1
    bits = raw.view(uint) & mask  # the sub-byte types: their value bits
    if dt.is_float:
        bits = np.concatenate([bits, [1 << (dt.bits - 1)]]).astype(uint)  # -0.0
    array = bits.astype(uint).view(dt.numpy_dtype)
    spec = ChunkSpec(array.shape, dt)
    if not dt.is_float:
        for direction in (codec.encode, codec.decode):
            assert np.array_equal(direction(array, spec).view(uint) & mask, bits)
        return
    nan = _isnan(array)
    negative_zero = bits == 1 << (dt.bits - 1)
    encoded, decoded = codec.encode(array, spec), codec.decode(array, spec)
    assert np.array_equal(encoded.view(uint)[~nan] & mask, bits[~nan])
    assert _isnan(encoded[nan]).all()
    same = ~nan & ~negative_zero
    assert np.array_equal(decoded.view(uint)[same] & mask, bits[same])
    assert _isnan(decoded[nan]).all()
    assert (decoded.view(uint)[negative_zero] == 0).all(), "-0.0 / 1 + 0 is +0.0"


def test_short_hand_name() -> None:
    """v3 core "Short-hand names": "equivalent to extension objects with just a name key"."""
    assert ScaleOffset.from_json("scale_offset", 3) == ScaleOffset()
    assert zarr_codec_shapes.get_codec("scale_offset") == ScaleOffset()


def test_must_understand_without_a_configuration() -> None:
    """v3 core "must_understand": "An extension object is interpreted to have an implicit
    field must_understand set to True": writing it changes nothing, with or without a
    configuration."""
    with_config = {"name": "scale_offset", "configuration": {}, "must_understand": True}
    assert ScaleOffset.from_json(with_config, 3) == ScaleOffset()
    assert ScaleOffset.from_json({"name": "scale_offset", "must_understand": True}, 3) == (
        ScaleOffset()
    )


@pytest.mark.parametrize("data", [BARE, v3(scale=2)], ids=json.dumps)
def test_omitted_offset_in_e8m0(data: dict[str, Any]) -> None:
    """ "If neither scale nor offset are specified ... the codec is effectively a no-op", and
    float8_e8m0fnu is one of the types the spec lists; "A missing offset field encodes the
    additive identity element for the data type" (subtracting it changes nothing), even in
    e8m0, which has no 0 to write."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    codec = ScaleOffset.from_json(data, 3)
    array = np.array([0.5, 1, 4, 2.0**100], dtype=ml_dtypes.float8_e8m0fnu)
    spec = ChunkSpec(array.shape, "float8_e8m0fnu", _fill(1.0, "float8_e8m0fnu"))
    scale = data.get("configuration", {}).get("scale", 1)
    assert codec.encode(array, spec).tolist() == (array.astype(np.float64) * scale).tolist()


# -- the same JSON as zarr-python's built-in -------------------------------------------------

AS_ZARR_WRITES: list[dict[str, Any]] = [
    {},
    {"offset": 0},
    {"scale": 1},
    {"offset": 0, "scale": 1},
    {"offset": 0.0, "scale": 1.0},
    {"offset": 5, "scale": 0.1},
    {"offset": 1000},
    {"offset": 1000, "scale": 1},
    {"offset": 0, "scale": 2},
    {"offset": -10, "scale": 0.1},
    {"offset": 2**64 - 1},
    {"offset": -(2**63), "scale": -1},
    {"offset": "0x3f800000", "scale": "0x40000000"},
    {"offset": "0x00000000"},  # a string is never == 0: both keep it
    {"offset": 1.5, "scale": -0.25},
]


@pytest.mark.parametrize("kwargs", AS_ZARR_WRITES, ids=json.dumps)
def test_json_is_what_zarr_python_writes(kwargs: dict[str, Any]) -> None:
    zarr_scale_offset = pytest.importorskip("zarr.codecs.scale_offset")
    builtin = zarr_scale_offset.ScaleOffset(**kwargs)
    ours = ScaleOffset(**kwargs)
    assert ours.to_json(3) == _normal(builtin.to_dict())
    assert ScaleOffset.from_json(_normal(builtin.to_dict()), 3) == ours
    back = zarr_scale_offset.ScaleOffset.from_dict(ours.to_json(3))
    assert _normal(back.to_dict()) == ours.to_json(3)


def test_negative_zero_offset_is_kept() -> None:
    """zarr's built-in drops ``offset: -0.0`` (``-0.0 == 0``); ours writes it. The spec: "A
    missing offset field encodes the additive identity element", which the codec subtracts:
    x - 0.0 is x for every x, while x - (-0.0) turns -0.0 into +0.0, so -0.0 is another offset
    and leaving it out would change what the codec does to -0.0 after a round trip."""
    zarr_scale_offset = pytest.importorskip("zarr.codecs.scale_offset")
    assert zarr_scale_offset.ScaleOffset(offset=-0.0).to_dict() == BARE
    codec = ScaleOffset(offset=-0.0)
    assert codec.to_json(3) == v3(offset=-0.0)
    assert codec != ScaleOffset()
    spec = ChunkSpec((1,), "float32")
    negative_zero = np.array([-0.0], np.float32)
    assert np.signbit(ScaleOffset().encode(negative_zero, spec)[0])
    assert not np.signbit(codec.encode(negative_zero, spec)[0])


# -- invalid configurations ------------------------------------------------------------------

INVALID: list[Any] = [
    pytest.param(v3(offset=1, zz_unknown=2), id="unknown key"),
    pytest.param(v3(Offset=1), id="key case"),
    pytest.param(v3(dtype="<f4"), id="fixedscaleoffset key"),
    pytest.param(v3(astype="u1"), id="fixedscaleoffset astype"),
    pytest.param({**v3(offset=1), "extra": 1}, id="key beside configuration"),
    pytest.param({"name": "scale_offset", "id": "scale_offset"}, id="v2 id beside the name"),
    pytest.param({"name": "scale_offset", "configuration": None}, id="configuration null"),
    pytest.param({"name": "scale_offset", "configuration": [1, 2]}, id="configuration list"),
    pytest.param({"name": "scale_offset", "configuration": 5}, id="configuration number"),
    pytest.param({"name": "scale_offsets"}, id="name"),
    pytest.param({"name": "fixedscaleoffset"}, id="another name"),
    pytest.param({"configuration": {"offset": 1}}, id="no name"),
    pytest.param("scale_offsets", id="a short-hand name of another codec"),
    pytest.param(5, id="a number"),
    *[
        pytest.param(v3(**{field: value}), id=f"{field} {value!r}")
        for field in ("offset", "scale")
        for value in ([1], [], {"value": 1}, [1.0, 2.0], True, False, None)
    ],
]


@pytest.mark.parametrize("data", INVALID)
def test_invalid_configuration(data: Any) -> None:
    with pytest.raises(ConfigurationError):
        ScaleOffset.from_json(data, 3)
    with pytest.raises(ConfigurationError):
        zarr_codec_shapes.get_codec(data)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"offset": True},
        {"scale": False},
        {"offset": None},
        {"scale": None},
        {"offset": [1]},
        {"scale": {"a": 1}},
        {"offset": 1j},
        {"offset": b"1"},
        {"offset": np.float32(1)},  # JSON values only: a numpy scalar is not one
    ],
    ids=repr,
)
def test_invalid_constructor_arguments(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        ScaleOffset(**kwargs)


def test_unknown_constructor_argument() -> None:
    with pytest.raises(ConfigurationError):
        ScaleOffset.from_configuration({"offset": 1, "astype": "u1"})


#: (offset, scale, data type): parameters the data type cannot hold, found when it is known.
FOR_THE_DATA_TYPE: list[tuple[Any, Any, str]] = [
    (1.5, 1, "int32"),
    (0, 1.5, "int32"),
    (1.0, 1, "int32"),  # integers are written "with no fraction or exponent part"
    (1e3, 1, "int32"),
    (300, 1, "uint8"),
    (0, 256, "uint8"),
    (-1, 1, "uint8"),
    (0, -1, "uint16"),
    (128, 1, "int8"),
    (2**63, 1, "int64"),
    (-(2**63) - 1, 1, "int64"),
    (2**64, 1, "uint64"),
    (8, 1, "int4"),
    (0, 2, "int2"),
    (4, 1, "uint2"),
    ("0x01", 1, "int8"),
    ("0x7fc00000", 1, "float32"),  # NaN as hex
    (0, "0x7ff0000000000000", "float64"),  # +Infinity as hex
    (0, "0x7c00", "float16"),
    (1e10, 1, "float16"),  # rounds to +Infinity in float16
    (0, 1e39, "float32"),
    ("0x3f80", 1, "float32"),  # float32 hex needs 8 digits
    ("0x3f800000", 1, "float16"),
    ("0x3f800000", 1, "float64"),
    (0, "0x0000", "float16"),
    (0, "0x8000", "float16"),
    (0, 1e300, "float32"),
    (0, 1, "bool"),  # no arithmetic
    (0, 1, "complex64"),
    (0, 1000, "float8_e4m3fnuz"),  # beyond its largest finite value, 240
    (0.5, 1, "float8_e8m0fnu"),  # 0 is not an e8m0 value, but 0.5 is: the scale 1 is fine
]


#: What no data type accepts, refused when the codec is made (not at its first use): a zero
#: scale, strings other than a float's "0x" bits (the non-finite ones and other spellings).
NEVER_VALID: list[tuple[Any, Any]] = [
    (0, 0),
    (0, 0.0),
    (0, -0.0),
    ("NaN", 1),
    (0, "NaN"),
    ("Infinity", 1),
    (0, "-Infinity"),
    ("nan", 1),
    ("inf", 1),
    ("1.5", 1),
    ("1", 1),
    ("nearest-even", 1),
]


@pytest.mark.parametrize(("offset", "scale"), NEVER_VALID, ids=repr)
def test_parameters_no_data_type_holds_are_refused_at_once(offset: Any, scale: Any) -> None:
    config = {"offset": offset, "scale": scale}
    with pytest.raises(ConfigurationError) as caught:
        zarr_codec_shapes.get_codec({"name": "scale_offset", "configuration": config})
    assert str(caught.value).count("invalid configuration") <= 1, "one prefix, not three"
    with pytest.raises(ConfigurationError):
        ScaleOffset(offset=offset, scale=scale)


@pytest.mark.parametrize(("offset", "scale", "data_type"), FOR_THE_DATA_TYPE, ids=repr)
def test_parameters_the_data_type_cannot_hold(offset: Any, scale: Any, data_type: str) -> None:
    dt = DataType.from_name(data_type)
    if dt.v2_code is None:
        pytest.importorskip("ml_dtypes")
    if (offset, scale, data_type) == (0.5, 1, "float8_e8m0fnu"):
        # The counter-example: valid, and its scale is left out (the default 1).
        assert _run(ScaleOffset(offset=offset, scale=scale), data_type, "encode") is not None
        return
    codec = ScaleOffset(offset=offset, scale=scale)  # well-formed JSON
    assert ScaleOffset.from_json(codec.to_json(3), 3) == codec
    spec = ChunkSpec((2,), data_type)
    for use in ("encode", "decode"):
        with pytest.raises(ConfigurationError):
            _run(codec, data_type, use)
    with pytest.raises(ConfigurationError):
        codec.resolve(spec)


# -- hex floats ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data_type", "offset_hex", "offset", "scale_hex", "scale"),
    [
        ("float32", "0x3f800000", 1.0, "0x40000000", 2.0),
        ("float32", "0xbf000000", -0.5, "0x3dcccccd", np.float32(0.1)),
        ("float32", "0x80000000", -0.0, "0x00000001", 2.0**-149),
        ("float64", "0x3ff0000000000000", 1.0, "0xc004000000000000", -2.5),
        ("float64", "0x0000000000000001", 5e-324, "0x7fefffffffffffff", 1.7976931348623157e308),
        ("float16", "0x3c00", 1.0, "0x3555", np.float16(1 / 3)),
        ("float16", "0x7bff", 65504.0, "0x0001", 2.0**-24),
        ("bfloat16", "0x3f80", 1.0, "0xc040", -3.0),
        ("float8_e4m3fnuz", "0x40", 1.0, "0x48", 2.0),
        ("float8_e5m2", "0x3c", 1.0, "0xc0", -2.0),
        ("float4_e2m1fn", "0x02", 1.0, "0x0b", -1.5),
    ],
)
def test_hex_parameters_are_bit_patterns(
    data_type: str, offset_hex: str, offset: float, scale_hex: str, scale: float
) -> None:
    """The fill-value encoding of floats includes "0xYYYYYYYY", the bytes of the value as an
    unsigned integer: the same codec as the numbers, which these values are exactly."""
    dt = DataType.from_name(data_type)
    if dt.v2_code is None:
        pytest.importorskip("ml_dtypes")
    as_hex = ScaleOffset(offset=offset_hex, scale=scale_hex)
    as_numbers = ScaleOffset(offset=float(offset), scale=float(scale))
    assert as_hex != as_numbers, "different JSON, different codecs"
    rng = np.random.default_rng(7)
    array = rng.uniform(-2, 2, 50).astype(dt.numpy_dtype)
    spec = ChunkSpec(array.shape, dt)
    for use in ("encode", "decode"):
        with np.errstate(all="ignore"):
            got = getattr(as_hex, use)(array, spec).tobytes()
            assert got == getattr(as_numbers, use)(array, spec).tobytes(), use
    with pytest.raises(ConfigurationError):  # the bits of another type are no value of this
        _run(ScaleOffset(offset=offset_hex + "00"), data_type, "encode")


# -- no Zarr v2 form -------------------------------------------------------------------------


def test_v2_fails_as_a_codec_error() -> None:
    assert ScaleOffset.codec_id is None
    with pytest.raises(ConfigurationError):
        ScaleOffset(offset=1).to_json(2)
    with pytest.raises(ConfigurationError):
        ScaleOffset.from_json({"id": "scale_offset", "offset": 1}, 2)
    with pytest.raises(UnknownCodecError):
        zarr_codec_shapes.get_codec({"id": "scale_offset", "offset": 1}, 2)
    with pytest.raises(ConfigurationError):
        zarr_codec_shapes.get_codec(v3(offset=1), 2)


# -- registry and entry points ---------------------------------------------------------------


def test_registry_finds_it_through_the_entry_point() -> None:
    assert zarr_codec_shapes.get_codec_class("scale_offset") is ScaleOffset
    assert zarr_codec_shapes.available_codecs()["scale_offset"] is ScaleOffset
    data = v3(offset=-10, scale=0.1)
    codec = zarr_codec_shapes.get_codec(data)
    assert type(codec) is ScaleOffset and codec == ScaleOffset(offset=-10, scale=0.1)
    assert zarr_codec_shapes.get_codec(data, zarr_format=3).to_json(3) == data
    assert zarr_codec_shapes.get_codec(BARE) == ScaleOffset()


def test_entry_points_are_declared() -> None:
    ours = {ep.name: ep.value for ep in entry_points(group="zarr_codec_shapes.codecs")}
    assert ours.get("scale_offset") == "zarr_codec_scale_offset:ScaleOffset"
    # None for zarr: it has its own scale_offset and no config entry choosing between two
    # (zarr_codec_scale_offset.zarr_python.register() opts in).
    zarr_eps = [ep.value for ep in entry_points(group="zarr.codecs")]
    assert not [value for value in zarr_eps if value.startswith("zarr_codec_scale_offset")]


# -- value semantics -------------------------------------------------------------------------

CODECS = [
    ScaleOffset(),
    ScaleOffset(offset=5, scale=0.1),
    ScaleOffset(offset=-0.0),
    ScaleOffset(offset="0x3f800000", scale=-3),
    ScaleOffset(offset=2**64 - 1, scale=2**63),
]


@pytest.mark.parametrize("codec", CODECS, ids=repr)
def test_pickle_copy_equality_hash(codec: ScaleOffset) -> None:
    for clone in (copy.copy(codec), copy.deepcopy(codec), pickle.loads(pickle.dumps(codec))):
        assert type(clone) is ScaleOffset
        assert clone == codec and hash(clone) == hash(codec)
        assert clone.to_json(3) == codec.to_json(3)
    assert eval(repr(codec), {"ScaleOffset": ScaleOffset}) == codec
    assert codec != object() and codec != codec.to_json(3)


def test_copies_compute_alike() -> None:
    codec = ScaleOffset(offset=5, scale=0.1)
    spec = ChunkSpec((4,), "float32")
    values = np.array([1.5, np.nan, -7.25, 1e30], dtype=np.float32)
    clone = pickle.loads(pickle.dumps(codec))
    assert clone.encode(values, spec).tobytes() == codec.encode(values, spec).tobytes()


def test_cached_bindings_are_not_part_of_the_value() -> None:
    used, fresh = ScaleOffset(offset=3, scale=2), ScaleOffset(offset=3, scale=2)
    used.encode(np.zeros(4, np.int32), ChunkSpec((4,), "int32"))
    used.encode(np.zeros(4, np.float64), ChunkSpec((4,), "float64"))
    assert used == fresh and hash(used) == hash(fresh)
    assert pickle.loads(pickle.dumps(used)) == fresh
    assert copy.copy(used).encode(np.ones(2, np.int32), ChunkSpec((2,), "int32")).tolist() == [
        -4,
        -4,
    ]


def test_different_configurations_differ() -> None:
    variants = [
        ScaleOffset(),
        ScaleOffset(offset=1),
        ScaleOffset(offset=1.0),  # another JSON: refused for integer arrays, unlike 1
        ScaleOffset(offset="0x3f800000"),
        ScaleOffset(offset=-0.0),
        ScaleOffset(scale=2),
        ScaleOffset(offset=2),
        ScaleOffset(offset=1, scale=2),
        ScaleOffset(offset=2, scale=-1),
    ]
    assert len(set(variants)) == len(variants)
    assert all(a != b for i, a in enumerate(variants) for b in variants[i + 1 :])


def test_attributes() -> None:
    codec = ScaleOffset(offset=-10, scale=0.1)
    assert (codec.offset, codec.scale) == (-10, 0.1)
    assert codec.configuration() == {"offset": -10, "scale": 0.1}
    codec.configuration()["offset"] = 99  # a copy: the codec is immutable
    assert codec.configuration() == {"offset": -10, "scale": 0.1}
    assert (ScaleOffset().offset, ScaleOffset().scale) == (0, 1)
    assert ScaleOffset.name == "scale_offset" and ScaleOffset.codec_type == "array_array"


# -- resolve: the fill value ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("codec", "data_type", "fill", "encoded_fill"),
    [
        (ScaleOffset(offset=1000), "uint16", 1100, 100),
        (ScaleOffset(offset=1000), "uint16", 1000, 0),
        (ScaleOffset(scale=-1), "int8", 5, -5),
        (ScaleOffset(offset=2**64 - 1), "uint64", 2**64 - 1, 0),
        (ScaleOffset(offset=-(2**63), scale=-1), "int64", -(2**63), 0),
        (
            ScaleOffset(offset=5, scale=0.1),
            "float32",
            15.0,
            float(np.float32(10) * np.float32(0.1)),
        ),
        (ScaleOffset(offset=-10, scale=0.1), "float64", "NaN", "NaN"),
        (ScaleOffset(offset=-10, scale=0.1), "float64", 2540.0, (2540.0 + 10) * 0.1),
        (ScaleOffset(offset=1, scale=-2), "float32", "Infinity", "-Infinity"),
        (ScaleOffset(scale=2), "float16", 65504.0, "Infinity"),  # IEEE overflow
        (ScaleOffset(scale=3), "float64", -0.0, -0.0),
        (ScaleOffset(offset=-0.0), "float64", -0.0, 0.0),
        (ScaleOffset(offset="0x3f800000", scale="0x40000000"), "float32", 3.0, 4.0),
        (ScaleOffset(), "int32", 7, 7),
    ],
    ids=repr,
)
def test_resolve_transforms_the_fill_value(
    codec: ScaleOffset, data_type: str, fill: Any, encoded_fill: Any
) -> None:
    """ "The fill value of out is generated by applying the transformation above to the fill
    value of in", "using the same semantics as the element transformation"."""
    spec = ChunkSpec((5, 2), data_type, _fill(fill, data_type))
    resolved = codec.resolve(spec)
    assert resolved.shape == (5, 2) and resolved.data_type.name == data_type
    assert resolved.fill_value_json() == encoded_fill
    if isinstance(encoded_fill, float) and encoded_fill == 0:  # the sign of zero is kept
        assert np.signbit(resolved.fill_value) == (math.copysign(1, encoded_fill) < 0)
    # The same as encoding an element.
    element = codec.encode(np.array([spec.fill_value]), spec)
    assert element.tobytes() == np.array([resolved.fill_value]).tobytes()


@pytest.mark.parametrize(
    ("codec", "data_type", "fill"),
    [
        (ScaleOffset(offset=1), "uint8", 0),  # 0 - 1 is no uint8
        (ScaleOffset(offset=1000), "uint16", 999),
        (ScaleOffset(scale=2), "int8", 100),
        (ScaleOffset(scale=-1), "int64", -(2**63)),
        (ScaleOffset(offset=-1), "int64", 2**63 - 1),
        (ScaleOffset(offset=-1, scale=-1), "int8", 127),  # 128, then -128: an intermediate
        (ScaleOffset(offset=1, scale=2), "uint64", 2**63 + 1),
    ],
    ids=repr,
)
def test_resolve_refuses_a_fill_value_it_cannot_encode(
    codec: ScaleOffset, data_type: str, fill: Any
) -> None:
    with pytest.raises(ConfigurationError, match="fill value"):
        codec.resolve(ChunkSpec((4,), data_type, _fill(fill, data_type)))


def test_resolve_refuses_a_fill_value_beyond_a_format_without_infinity() -> None:
    pytest.importorskip("ml_dtypes")
    spec = ChunkSpec((4,), "float8_e4m3fnuz", _fill(240.0, "float8_e4m3fnuz"))
    with pytest.raises(ConfigurationError, match="fill value"):
        ScaleOffset(scale=2).resolve(spec)
    assert ScaleOffset(scale=0.5).resolve(spec).fill_value_json() == 120.0


def test_resolve_checks_the_parameters() -> None:
    with pytest.raises(ConfigurationError):
        ScaleOffset(offset=1.5).resolve(ChunkSpec((4,), "int16"))
    with pytest.raises(ConfigurationError):
        ScaleOffset(scale=0).resolve(ChunkSpec((4,), "float32"))
