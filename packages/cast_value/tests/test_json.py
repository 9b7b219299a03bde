"""cast_value's Zarr v3 JSON, its validation, its value semantics and ``resolve``.

The configuration (spec "Codec metadata" and ``cast_value.schema.json``)::

    {"name": "cast_value", "configuration": {"data_type": <v3 data type>,
     "rounding": <one of 5>, "out_of_range": "clamp" | "wrap",
     "scalar_map": {"encode": [[in, out], ...], "decode": [[in, out], ...]}}}

``data_type`` is required, the rest optional; "Additional keys ... MUST be treated as
invalid". The codec has no Zarr v2 form. ``resolve`` casts the fill value, which "MUST" come
back unchanged when decoded.
"""

from __future__ import annotations

import copy
import json
import pickle
from importlib.metadata import entry_points
from typing import Any

import numpy as np
import pytest
import zarr_codec_shapes
from zarr_codec_cast_value import ROUNDING_MODES, CastValue
from zarr_codec_shapes import (
    ChunkSpec,
    ConfigurationError,
    UnknownCodecError,
)

NAN_INT16 = {"encode": [["NaN", -32768]], "decode": [[-32768, "NaN"]]}
FLOAT_TARGETS = ["float16", "float32", "float64", "bfloat16", "float8_e4m3fn", "float4_e2m1fn"]
INT_TARGETS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
EXTENSION_TARGETS = ["int2", "int4", "uint2", "uint4", "bfloat16", "float8_e5m2", "float8_e8m0fnu"]


def v3(**config: Any) -> dict[str, Any]:
    return {"name": "cast_value", "configuration": config}


def _normal(data: Any) -> Any:
    """JSON as it is stored: tuples become lists (zarr's built-in writes tuples)."""
    return json.loads(json.dumps(data))


# -- round trips -----------------------------------------------------------------------------

ROUND_TRIPS: list[dict[str, Any]] = [
    v3(data_type="uint8"),
    *[v3(data_type="int16", rounding=mode) for mode in ROUNDING_MODES[1:]],
    v3(data_type="int8", out_of_range="clamp"),
    v3(data_type="uint64", out_of_range="wrap"),
    v3(data_type="float16", out_of_range="clamp"),
    v3(data_type="int16", rounding="towards-negative", out_of_range="clamp", scalar_map=NAN_INT16),
    v3(data_type="uint8", scalar_map={"encode": [["NaN", 0], ["+Infinity", 0], ["-Infinity", 0]]}),
    v3(data_type="float32", scalar_map={"decode": [["0x7fc00001", 7.5], [-0.0, "-Infinity"]]}),
    v3(data_type="float64", scalar_map={"encode": [[1, "0x7ff0000000000000"]]}),
    v3(data_type="int8", scalar_map={}),
    v3(data_type="int8", scalar_map={"encode": []}),
    v3(data_type="int8", scalar_map={"encode": [[1, 2], [1, 3]]}),  # written as given
    *[v3(data_type=name) for name in EXTENSION_TARGETS],
]


@pytest.mark.parametrize("data", ROUND_TRIPS, ids=lambda d: json.dumps(d["configuration"]))
def test_v3_round_trip(data: dict[str, Any]) -> None:
    codec = CastValue.from_json(data, 3)
    assert codec.to_json(3) == data
    assert _normal(codec.to_json(3)) == codec.to_json(3), "not plain JSON"
    assert CastValue.from_json(_normal(data), 3) == codec
    assert CastValue(**data["configuration"]) == codec
    assert zarr_codec_shapes.get_codec(data) == codec


def test_attributes() -> None:
    codec = CastValue("int16", rounding="towards-zero", out_of_range="clamp", scalar_map=NAN_INT16)
    assert (codec.data_type.name, codec.rounding, codec.out_of_range) == (
        "int16",
        "towards-zero",
        "clamp",
    )
    assert codec.scalar_map == NAN_INT16
    codec.scalar_map["encode"].clear()  # a copy: the codec is immutable
    assert codec.scalar_map == NAN_INT16
    plain = CastValue("int16")
    assert (plain.rounding, plain.out_of_range, plain.scalar_map) == ("nearest-even", None, None)
    assert CastValue(zarr_codec_shapes.DataType.from_name("int16")) == plain


def test_explicit_defaults_are_omitted() -> None:
    """ "If this field is not present, implementations MUST use "nearest-even"": equal, and
    written without the field, as zarr-python writes it."""
    explicit = CastValue.from_json(v3(data_type="uint8", rounding="nearest-even"), 3)
    assert explicit.to_json(3) == v3(data_type="uint8")
    assert explicit == CastValue("uint8") and hash(explicit) == hash(CastValue("uint8"))


def test_scalar_map_as_a_mapping_is_written_as_pairs() -> None:
    as_mapping = CastValue("uint8", scalar_map={"encode": {"NaN": 0, "Infinity": 255}})
    as_pairs = CastValue("uint8", scalar_map={"encode": [("NaN", 0), ("Infinity", 255)]})
    expected = v3(data_type="uint8", scalar_map={"encode": [["NaN", 0], ["Infinity", 255]]})
    assert as_mapping.to_json(3) == as_pairs.to_json(3) == expected
    assert as_mapping == as_pairs


# -- the same JSON as zarr-python's built-in -------------------------------------------------

AS_ZARR_WRITES: list[dict[str, Any]] = [
    {"data_type": "uint8"},
    {"data_type": "uint8", "rounding": "nearest-even"},
    {"data_type": "int16", "rounding": "towards-zero", "out_of_range": None},
    {"data_type": "int32", "rounding": "nearest-away", "out_of_range": "wrap"},
    {"data_type": "float16", "rounding": "towards-positive", "out_of_range": "clamp"},
    {"data_type": "int16", "out_of_range": "clamp", "scalar_map": NAN_INT16},
    {"data_type": "uint8", "scalar_map": {"encode": {"NaN": 0, "Infinity": 255}}},
    {"data_type": "uint8", "scalar_map": {"decode": [(255, "NaN")]}},
    {"data_type": "uint8", "scalar_map": {}},
    {"data_type": "float64", "rounding": "towards-negative"},
]


@pytest.mark.parametrize("kwargs", AS_ZARR_WRITES, ids=json.dumps)
def test_json_is_what_zarr_python_writes(kwargs: dict[str, Any]) -> None:
    zarr_cast_value = pytest.importorskip("zarr.codecs.cast_value")
    builtin = zarr_cast_value.CastValue(**kwargs)
    ours = CastValue(**kwargs)
    assert ours.to_json(3) == _normal(builtin.to_dict())
    assert CastValue.from_json(_normal(builtin.to_dict()), 3) == ours
    assert _normal(zarr_cast_value.CastValue.from_dict(ours.to_json(3)).to_dict()) == ours.to_json(
        3
    )


# -- invalid configurations ------------------------------------------------------------------

#: scalar_map directions that are not arrays of [input, output] pairs.
NOT_PAIRS: tuple[Any, ...] = (
    [[1]],
    [[1, 2, 3]],
    [[]],
    [1],
    ["ab"],
    [{"NaN": 0}],
    {"NaN": 0},  # a JSON object where the spec has an array of pairs
    "NaN",
    0,
)

INVALID: list[Any] = [
    # unknown keys, at every level
    pytest.param(v3(data_type="uint8", zz_unknown=1), id="unknown key"),
    pytest.param(v3(data_type="uint8", id="cast_value"), id="v2 id inside"),
    pytest.param({**v3(data_type="uint8"), "extra": 1}, id="key beside configuration"),
    pytest.param(v3(data_type="uint8", scalar_map={"both": []}), id="scalar_map direction"),
    pytest.param(v3(data_type="uint8", scalar_map={"Encode": []}), id="scalar_map case"),
    # structure
    pytest.param({"name": "cast_value"}, id="no configuration"),
    pytest.param({"name": "cast_value", "configuration": None}, id="configuration null"),
    pytest.param({"name": "cast_value", "configuration": ["uint8"]}, id="configuration list"),
    pytest.param(v3(), id="no data_type"),
    pytest.param({"name": "cast_values", "configuration": {"data_type": "uint8"}}, id="name"),
    pytest.param({"configuration": {"data_type": "uint8"}}, id="no name"),
    pytest.param("cast_value", id="a string"),
    # data_type: integers and floats only
    *[pytest.param(v3(data_type=t), id=f"data_type {t}") for t in ("bool", "complex64")],
    pytest.param(v3(data_type="complex128"), id="data_type complex128"),
    pytest.param(v3(data_type="nonsense"), id="data_type unknown"),
    pytest.param(v3(data_type="r16"), id="data_type raw bits"),
    pytest.param(v3(data_type=5), id="data_type number"),
    pytest.param(v3(data_type=None), id="data_type null"),
    # rounding and out_of_range enums
    *[
        pytest.param(v3(data_type="uint8", rounding=r), id=f"rounding {r!r}")
        for r in ("nearest", "NEAREST-EVEN", "nearest_even", "", 1, ["nearest-even"])
    ],
    *[
        pytest.param(v3(data_type="uint8", out_of_range=o), id=f"out_of_range {o!r}")
        for o in ("saturate", "Clamp", "", 0, True, ["wrap"])
    ],
    pytest.param(
        v3(data_type="uint8", rounding=None),
        id="rounding null",
    ),
    pytest.param(
        v3(data_type="uint8", out_of_range=None),
        id="out_of_range null",
    ),
    # "wrap ... Only permitted when data_type is an integral type"
    *[
        pytest.param(v3(data_type=t, out_of_range="wrap"), id=f"wrap into {t}")
        for t in FLOAT_TARGETS
    ],
    # scalar_map: not a mapping, entries that are not pairs
    *[
        pytest.param(v3(data_type="uint8", scalar_map=m), id=f"scalar_map {m!r}")
        for m in ([], [["NaN", 0]], "NaN", 0)
    ],
    pytest.param(
        v3(data_type="uint8", scalar_map=None),
        id="scalar_map null",
    ),
    *[
        pytest.param(v3(data_type="uint8", scalar_map={"encode": e}), id=f"encode {e!r}")
        for e in NOT_PAIRS
    ],
    pytest.param(
        v3(data_type="uint8", scalar_map={"encode": None}),
        id="encode null",
    ),
    # scalars the target type cannot hold (encode outputs and decode inputs are of data_type)
    *[
        pytest.param(v3(data_type=t, scalar_map={"encode": [["NaN", s]]}), id=f"{s!r} as {t}")
        for t, s in [
            ("int8", 128),
            ("int8", -129),
            ("uint8", -1),
            ("uint8", 256),
            ("int8", 1.5),
            ("int8", 1.0),  # integers are written without a fraction
            ("int8", "NaN"),
            ("int8", "Infinity"),
            ("int8", "1"),
            ("int8", True),
            ("int8", None),
            ("uint64", 2**64),
            ("int64", 2**63),
            ("float32", "nan"),
            ("float32", "inf"),
            ("float32", "0x7fc0"),  # float32 hex needs 8 digits
            ("float16", "0x7fc00000"),
            ("float16", 1e10),  # beyond float16's finite range (zarr's built-in reads +inf)
            ("float32", [1.0]),
        ]
    ],
    *[
        pytest.param(v3(data_type=t, scalar_map={"decode": [[s, 0]]}), id=f"decode key {s!r}")
        for t, s in [("uint8", 256), ("int16", "NaN"), ("int16", 0.5)]
    ],
]


@pytest.mark.parametrize("data", INVALID)
def test_invalid_configuration(data: Any) -> None:
    with pytest.raises(ConfigurationError):
        CastValue.from_json(data, 3)
    with pytest.raises(ConfigurationError):
        zarr_codec_shapes.get_codec(data)


CONSTRUCTOR_INVALID: list[Any] = [
    pytest.param({"rounding": "nearest"}, id="rounding"),
    pytest.param(
        {"rounding": None},
        id="rounding None",
    ),
    pytest.param({"out_of_range": "saturate"}, id="out_of_range"),
    pytest.param({"data_type": "float32", "out_of_range": "wrap"}, id="wrap into float32"),
    pytest.param({"data_type": "bool"}, id="bool"),
    pytest.param({"data_type": "complex128"}, id="complex128"),
    pytest.param({"scalar_map": [["NaN", 0]]}, id="scalar_map list"),
    pytest.param({"scalar_map": "NaN"}, id="scalar_map str"),
    pytest.param({"scalar_map": {"both": []}}, id="scalar_map direction"),
    pytest.param({"scalar_map": {"encode": [[1]]}}, id="short pair"),
    pytest.param({"scalar_map": {"encode": [[1, 2, 3]]}}, id="long pair"),
    pytest.param({"scalar_map": {"encode": ["ab"]}}, id="string pair"),
    pytest.param({"scalar_map": {"encode": [["NaN", 300]]}}, id="300 as uint8"),
    *[
        pytest.param(
            {"scalar_map": {"encode": e}},
            id=f"encode {e!r}",
        )
        for e in (None, 0, [1])
    ],
]


@pytest.mark.parametrize("kwargs", CONSTRUCTOR_INVALID)
def test_invalid_constructor_arguments(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigurationError):
        CastValue(**{"data_type": "uint8", **kwargs})


@pytest.mark.parametrize(
    ("config", "array_type"),
    [
        ({"scalar_map": {"encode": [[1.5, 0]]}}, "int32"),  # encode keys: the array's type
        ({"scalar_map": {"encode": [["NaN", 0]]}}, "uint16"),
        ({"scalar_map": {"encode": [[70000, 0]]}}, "int16"),
        ({"scalar_map": {"encode": [["0x7fc00000", 0]]}}, "float64"),
        ({"scalar_map": {"decode": [[0, "NaN"]]}}, "int32"),  # decode outputs: the array's
        ({"scalar_map": {"decode": [[0, -1]]}}, "uint32"),
        ({"data_type": "uint8"}, "bool"),  # the array's type must be a number type too
        ({"data_type": "uint8"}, "complex64"),
    ],
    ids=repr,
)
def test_scalars_of_the_array_type_are_checked_once_it_is_known(
    config: dict[str, Any], array_type: str
) -> None:
    """encode inputs and decode outputs are "encoded using the fill value encoding" of the
    array's data type, which only ``resolve``/``encode``/``decode`` learn."""
    codec = CastValue(**{"data_type": "uint8", **config})
    spec = ChunkSpec((2,), array_type)
    with pytest.raises(ConfigurationError):
        codec.resolve(spec)  # both directions

    def direction_holding_the_scalar() -> object:
        if "decode" in config.get("scalar_map", {}):
            return codec.decode(np.zeros(2, dtype=np.uint8), spec)
        return codec.encode(np.zeros(2, dtype=spec.numpy_dtype), spec)

    with pytest.raises(ConfigurationError):
        direction_holding_the_scalar()


# -- no Zarr v2 form -------------------------------------------------------------------------


def test_v2_fails_as_a_codec_error() -> None:
    """What the conformance kit checks for a codec without a v2 id, and the registry."""
    assert CastValue.codec_id is None
    with pytest.raises(ConfigurationError):
        CastValue("uint8").to_json(2)
    with pytest.raises(ConfigurationError):
        CastValue.from_json({"id": "cast_value", "data_type": "uint8"}, 2)
    with pytest.raises(UnknownCodecError):
        zarr_codec_shapes.get_codec({"id": "cast_value", "data_type": "uint8"}, 2)
    with pytest.raises(ConfigurationError):
        zarr_codec_shapes.get_codec(v3(data_type="uint8"), 2)


# -- registry --------------------------------------------------------------------------------


def test_registry_finds_it_through_the_entry_point() -> None:
    assert zarr_codec_shapes.get_codec_class("cast_value") is CastValue
    assert zarr_codec_shapes.available_codecs()["cast_value"] is CastValue
    data = v3(data_type="int16", out_of_range="clamp", scalar_map=NAN_INT16)
    codec = zarr_codec_shapes.get_codec(data)
    assert type(codec) is CastValue
    assert codec == CastValue("int16", out_of_range="clamp", scalar_map=NAN_INT16)
    assert zarr_codec_shapes.get_codec(data, zarr_format=3).to_json(3) == data


def test_entry_points_are_declared() -> None:
    ours = {ep.name: ep.value for ep in entry_points(group="zarr_codec_shapes.codecs")}
    assert ours.get("cast_value") == "zarr_codec_cast_value:CastValue"
    # None for zarr: it has its own cast_value and no config entry choosing between two
    # (zarr_codec_cast_value.zarr_python.register() opts in).
    zarr_eps = [ep.value for ep in entry_points(group="zarr.codecs", name="cast_value")]
    assert not [value for value in zarr_eps if value.startswith("zarr_codec_cast_value")]


# -- value semantics -------------------------------------------------------------------------

CODECS = [
    CastValue("uint8"),
    CastValue("int16", rounding="towards-zero", out_of_range="clamp", scalar_map=NAN_INT16),
    CastValue("float16", out_of_range="clamp", scalar_map={"decode": [["Infinity", "0x7f7fffff"]]}),
    CastValue("int4", out_of_range="wrap"),
]


@pytest.mark.parametrize("codec", CODECS, ids=repr)
def test_pickle_copy_equality_hash(codec: CastValue) -> None:
    spec = ChunkSpec((3,), "float32")
    for clone in (copy.copy(codec), copy.deepcopy(codec), pickle.loads(pickle.dumps(codec))):
        assert type(clone) is CastValue
        assert clone == codec and hash(clone) == hash(codec)
        assert clone.to_json(3) == codec.to_json(3)
    if codec.data_type.name in ("int16", "float16"):  # the copies cast alike
        values = np.array([1.5, np.nan, -7.25], dtype=np.float32)
        clone = pickle.loads(pickle.dumps(codec))
        assert clone.encode(values, spec).tobytes() == codec.encode(values, spec).tobytes()
    assert eval(repr(codec), {"CastValue": CastValue}) == codec


def test_cached_plans_are_not_part_of_the_value() -> None:
    used, fresh = CastValue("int16", out_of_range="clamp"), CastValue("int16", out_of_range="clamp")
    used.encode(np.zeros(4, dtype=np.float64), ChunkSpec((4,), "float64"))
    assert used == fresh and hash(used) == hash(fresh)
    assert pickle.loads(pickle.dumps(used)) == fresh


def test_different_configurations_differ() -> None:
    variants = [
        CastValue("int16"),
        CastValue("uint16"),
        CastValue("int16", rounding="towards-zero"),
        CastValue("int16", out_of_range="clamp"),
        CastValue("int16", out_of_range="wrap"),
        CastValue("int16", scalar_map=NAN_INT16),
        CastValue("int16", scalar_map={"encode": NAN_INT16["encode"]}),
    ]
    assert len(set(variants)) == len(variants)
    assert all(a != b for i, a in enumerate(variants) for b in variants[i + 1 :])
    assert CastValue("int16") != object()
    assert CastValue("int16") != CastValue("int16").to_json(3)


def test_equality_ignores_the_order_of_json_objects() -> None:
    encode_first = CastValue("int16", scalar_map=NAN_INT16)
    decode_first = CastValue(
        "int16", scalar_map={"decode": NAN_INT16["decode"], "encode": NAN_INT16["encode"]}
    )
    assert encode_first.to_json(3) == decode_first.to_json(3)
    assert encode_first == decode_first and hash(encode_first) == hash(decode_first)


# -- resolve: the fill value ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("codec", "array_type", "fill", "encoded_type", "encoded_fill"),
    [
        (CastValue("int16"), "float32", -3.0, "int16", -3),
        (CastValue("int16"), "float32", 0.0, "int16", 0),
        (CastValue("int16", scalar_map=NAN_INT16), "float32", "NaN", "int16", -32768),
        (CastValue("float16"), "float32", "NaN", "float16", "NaN"),
        (CastValue("float16"), "float64", "-Infinity", "float16", "-Infinity"),
        (CastValue("float16"), "float32", -0.0, "float16", -0.0),
        (CastValue("float16"), "float32", 0.5, "float16", 0.5),
        (CastValue("uint8", out_of_range="wrap"), "int32", 200, "uint8", 200),
        (CastValue("float64"), "int64", 2**53, "float64", 2.0**53),
        (CastValue("int8", out_of_range="clamp"), "uint16", 127, "int8", 127),
    ],
    ids=repr,
)
def test_resolve_casts_the_fill_value(
    codec: CastValue, array_type: str, fill: Any, encoded_type: str, encoded_fill: Any
) -> None:
    """ "The fill value of the output array MUST be cast to the target data type using the same
    casting semantics as elements." """
    spec = ChunkSpec((5, 2), array_type, _fill(fill, array_type))
    resolved = codec.resolve(spec)
    assert resolved.shape == (5, 2) and resolved.data_type.name == encoded_type
    assert resolved.fill_value_json() == encoded_fill
    if isinstance(encoded_fill, float) and encoded_fill == 0:  # the sign of zero is kept
        assert np.signbit(resolved.fill_value) == np.signbit(encoded_fill)
    back = codec.decode(np.array([resolved.fill_value]), spec)
    assert back.tobytes() == np.array([spec.fill_value]).tobytes()


def _fill(json_value: Any, data_type: str) -> Any:
    return zarr_codec_shapes.fill_value_from_json(
        json_value, zarr_codec_shapes.DataType.from_name(data_type)
    )


@pytest.mark.parametrize(
    ("codec", "array_type", "fill"),
    [
        (CastValue("int16"), "float32", 0.5),  # rounds to 0, decodes to 0.0
        (CastValue("int16", rounding="towards-positive"), "float32", 0.5),
        (CastValue("int16"), "float32", 1e6),  # out of range, no out_of_range
        (CastValue("int16", out_of_range="clamp"), "float32", 1e6),  # clamps to 32767
        (CastValue("int16"), "float32", "NaN"),  # NaN into an integer, unmapped
        (CastValue("int16", out_of_range="clamp"), "float32", "Infinity"),
        (CastValue("int16", scalar_map={"encode": [["NaN", -1]]}), "float32", "NaN"),  # 1 way
        (CastValue("float16"), "float32", 0.1),  # rounds to 0.0999755859375
        (CastValue("float16", out_of_range="clamp"), "float32", 1e6),  # clamps to inf
        (CastValue("float16"), "int32", 70000),
        (CastValue("float32"), "int64", 2**53 + 1),
        (CastValue("int8", out_of_range="wrap"), "uint16", 200),  # wraps to -56 -> 65480
        (CastValue("uint8", out_of_range="clamp"), "int16", -5),
        (CastValue("float4_e2m1fn", out_of_range="clamp"), "float32", "NaN"),
    ],
    ids=repr,
)
def test_resolve_refuses_a_fill_value_that_does_not_round_trip(
    codec: CastValue, array_type: str, fill: Any
) -> None:
    """ "If the fill value cannot survive a round-trip cast, implementations MUST treat this as
    an error." (e.g. a float32 fill value of 0.5 with an int16 data_type)"""
    with pytest.raises(ConfigurationError, match="fill value"):
        codec.resolve(ChunkSpec((4,), array_type, _fill(fill, array_type)))
