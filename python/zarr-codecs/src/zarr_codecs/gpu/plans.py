"""What one GPU kernel of ``array_codecs.cu`` computes, as plain data: no CuPy needed.

A :class:`Step` is one array codec (``cast_value`` or ``scale_offset``) or the fused pair, in
one direction, for one array data type. It is built from our CPU codec objects, which check
the configuration first (so a bad one raises exactly the CPU codec's error), and it renders
itself two ways: as C ``#define`` lines for NVRTC (the device kernel is compiled per step, with
every branch on the plan folded away) and as a ``ctypes`` structure for the host build of the
same source that the tests compare with the Rust codecs.
"""

from __future__ import annotations

import ctypes
import json
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from zarr_codec_shapes import DataType, fill_value_from_json

__all__ = [
    "EMULATED_FLOATS",
    "AffineStep",
    "CastStep",
    "Step",
    "TypeLayout",
    "cast_step",
    "layout",
    "scale_offset_step",
]

# Numbers shared with array_codecs.cu.
_INT, _FLOAT = 0, 1
_IEEE, _FNUZ, _FN, _FNU = 0, 1, 2, 3
ROUNDING = {
    "nearest-even": 0,
    "towards-zero": 1,
    "towards-positive": 2,
    "towards-negative": 3,
    "nearest-away": 4,
}
OUT_OF_RANGE = {None: 0, "clamp": 1, "wrap": 2}

# Exponent bits, mantissa bits, bias and encoding of each float type (the constants of the
# Rust crate's `FloatFormat`).
_FLOATS = {
    "float16": (5, 10, 15, _IEEE),
    "bfloat16": (8, 7, 127, _IEEE),
    "float32": (8, 23, 127, _IEEE),
    "float64": (11, 52, 1023, _IEEE),
    "float8_e3m4": (3, 4, 3, _IEEE),
    "float8_e4m3": (4, 3, 7, _IEEE),
    "float8_e4m3b11fnuz": (4, 3, 11, _FNUZ),
    "float8_e4m3fnuz": (4, 3, 8, _FNUZ),
    "float8_e5m2": (5, 2, 15, _IEEE),
    "float8_e5m2fnuz": (5, 2, 16, _FNUZ),
    "float8_e8m0fnu": (8, 0, 127, _FNU),
    "float6_e2m3fn": (2, 3, 1, _FN),
    "float6_e3m2fn": (3, 2, 3, _FN),
    "float4_e2m1fn": (2, 1, 1, _FN),
}

#: Float types whose ``scale_offset`` the CPU computes in float64 with a rounding after each
#: operation; the kernels compute them the same way (``affine_kind`` 3).
EMULATED_FLOATS = frozenset(_FLOATS) - {"float32", "float64"}


class _CType(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_int)
        for name in (
            "kind",
            "size",
            "bits",
            "is_signed",
            "exp_bits",
            "man_bits",
            "bias",
            "encoding",
        )
    ]


class _CCast(ctypes.Structure):
    _fields_ = [
        ("from_", _CType),
        ("to", _CType),
        ("rounding", ctypes.c_int),
        ("out_of_range", ctypes.c_int),
        ("map_len", ctypes.c_int),
    ]


class _CWide(ctypes.Structure):
    _fields_ = [("negative", ctypes.c_int), ("magnitude", ctypes.c_uint64)]


class CStep(ctypes.Structure):
    """``ZcStep`` of ``array_codecs.cu``, field for field."""

    _fields_ = [
        ("mode", ctypes.c_int),
        ("in_size", ctypes.c_int),
        ("out_size", ctypes.c_int),
        ("cast", _CCast),
        ("affine_type", _CType),
        ("encode", ctypes.c_int),
        ("affine_kind", ctypes.c_int),
        ("int_offset", _CWide),
        ("int_scale", _CWide),
        ("f32_offset", ctypes.c_float),
        ("f32_scale", ctypes.c_float),
        ("f64_offset", ctypes.c_double),
        ("f64_scale", ctypes.c_double),
    ]


@dataclass(frozen=True)
class TypeLayout:
    """A data type as the kernels see it (``ZcType``)."""

    kind: int
    size: int
    bits: int
    is_signed: int
    exp_bits: int
    man_bits: int
    bias: int
    encoding: int

    def values(self) -> tuple[int, ...]:
        return (
            self.kind,
            self.size,
            self.bits,
            self.is_signed,
            self.exp_bits,
            self.man_bits,
            self.bias,
            self.encoding,
        )


def layout(data_type: DataType) -> TypeLayout:
    """The kernels' view of an integer or float ``data_type``."""
    if data_type.is_integer:
        low, _ = data_type.integer_range()
        return TypeLayout(_INT, data_type.itemsize, data_type.bits, int(low < 0), 0, 0, 0, 0)
    if data_type.name in _FLOATS:
        exp_bits, man_bits, bias, encoding = _FLOATS[data_type.name]
        return TypeLayout(_FLOAT, data_type.itemsize, 0, 0, exp_bits, man_bits, bias, encoding)
    raise ValueError(f"{data_type.name} has no GPU layout (integers and floats only)")


def _bits(json_value: Any, data_type: DataType) -> int:
    """The element bits (little-endian, as stored) of a fill-value JSON scalar."""
    if json_value == "+Infinity" and data_type.is_float:
        json_value = "Infinity"  # as the Rust codec reads the spec's own spelling
    value = fill_value_from_json(json_value, data_type)
    if data_type.is_integer:
        # As stored: sub-byte signed values sign-extended to their byte (ml_dtypes' own bytes
        # hold only the value bits).
        return int(value) & ((1 << (8 * data_type.itemsize)) - 1)
    raw = np.asarray(value, dtype=data_type.numpy_dtype).tobytes()
    return int.from_bytes(raw, "little")


@dataclass(frozen=True)
class CastStep:
    """``cast_value`` in one direction between two types (``ZcCast``)."""

    source: DataType
    target: DataType
    rounding: int
    out_of_range: int
    map_keys: tuple[int, ...] = ()
    map_values: tuple[int, ...] = ()


def cast_step(codec: Any, array_type: DataType, direction: Literal["encode", "decode"]) -> CastStep:
    """The step of a ``zarr_codec_cast_value.CastValue`` for arrays of ``array_type``. The CPU
    codec is bound first: a configuration it refuses raises its error here."""
    codec.bind(array_type)
    source, target = (
        (array_type, codec.data_type) if direction == "encode" else (codec.data_type, array_type)
    )
    pairs = (codec.scalar_map or {}).get(direction) or []
    keys = tuple(_bits(key, source) for key, _ in pairs)
    values = tuple(_bits(value, target) for _, value in pairs)
    return CastStep(
        source,
        target,
        ROUNDING[codec.rounding],
        OUT_OF_RANGE[codec.out_of_range],
        keys,
        values,
    )


@dataclass(frozen=True)
class AffineStep:
    """``scale_offset`` in one direction for one type: integers exactly, float32 and float64
    in their own arithmetic, the other float types in float64 rounded after each operation
    (``affine_kind`` 0, 1, 2, 3)."""

    data_type: DataType
    encode: bool
    affine_kind: int
    offset: int | float
    scale: int | float


def scale_offset_step(codec: Any, data_type: DataType, encode: bool) -> AffineStep:
    """The step of a ``zarr_codec_scale_offset.ScaleOffset`` for ``data_type``: integers
    exactly, float32 and float64 in their own arithmetic, the other float types
    (:data:`EMULATED_FLOATS`) in float64 with a rounding to the type after each operation, as
    the CPU computes them. The CPU plan is built first, so a configuration it refuses raises
    its error here."""
    codec.bind(data_type)
    config = json.loads(json.dumps(codec.configuration()))
    if data_type.is_integer:
        offset = fill_value_from_json(config.get("offset", 0), data_type)
        scale = fill_value_from_json(config.get("scale", 1), data_type)
        return AffineStep(data_type, encode, 0, int(offset), int(scale))
    # A missing offset subtracts nothing (float8_e8m0fnu has no 0 to parse), as on the CPU.
    offset_value = (
        float(fill_value_from_json(config["offset"], data_type)) if "offset" in config else 0.0
    )
    scale_value = float(fill_value_from_json(config.get("scale", 1), data_type))
    kind = {"float32": 1, "float64": 2}.get(data_type.name, 3)
    return AffineStep(data_type, encode, kind, offset_value, scale_value)


@dataclass(frozen=True)
class Step:
    """One kernel: ``mode`` 0 a cast, 1 ``scale_offset``, 2 ``scale_offset`` then the cast
    (encoding the fused pair), 3 the cast then ``scale_offset`` (decoding it)."""

    mode: int
    cast: CastStep | None = None
    affine: AffineStep | None = None

    @property
    def source(self) -> DataType:
        if self.mode in (1, 2):
            assert self.affine is not None
            return self.affine.data_type
        assert self.cast is not None
        return self.cast.source

    @property
    def target(self) -> DataType:
        if self.mode in (1, 3):
            assert self.affine is not None
            return self.affine.data_type
        assert self.cast is not None
        return self.cast.target

    @property
    def in_size(self) -> int:
        """Bytes per input element."""
        return self.source.itemsize

    @property
    def out_size(self) -> int:
        """Bytes per output element."""
        return self.target.itemsize

    def _fields(self) -> dict[str, Any]:
        cast = self.cast
        affine = self.affine
        no_type = (0,) * 8
        fields: dict[str, Any] = {
            "mode": self.mode,
            "in_size": self.source.itemsize,
            "out_size": self.target.itemsize,
            "cast": (
                (
                    layout(cast.source).values(),
                    layout(cast.target).values(),
                    cast.rounding,
                    cast.out_of_range,
                    len(cast.map_keys),
                )
                if cast is not None
                else (no_type, no_type, 0, 0, 0)
            ),
            "affine_type": layout(affine.data_type).values() if affine else no_type,
            "encode": int(affine.encode) if affine else 0,
            "affine_kind": affine.affine_kind if affine else 0,
            "int_offset": (0, 0),
            "int_scale": (0, 1),
            "f32_offset": 0.0,
            "f32_scale": 1.0,
            "f64_offset": 0.0,
            "f64_scale": 1.0,
        }
        if affine is not None and affine.affine_kind == 0:
            fields["int_offset"] = _wide(int(affine.offset))
            fields["int_scale"] = _wide(int(affine.scale))
        elif affine is not None:
            prefix = "f32" if affine.affine_kind == 1 else "f64"
            fields[f"{prefix}_offset"] = float(affine.offset)
            fields[f"{prefix}_scale"] = float(affine.scale)
        return fields

    def c_struct(self) -> CStep:
        """The step as the host build takes it."""
        return CStep(**self._fields())

    def defines(self) -> str:
        """The ``#define`` lines that make ``array_codecs.cu`` this step's device kernel."""
        fields = self._fields()
        order = [field[0] for field in CStep._fields_]
        step = "{" + ", ".join(_c_literal(fields[name]) for name in order) + "}"
        keys = self.cast.map_keys if self.cast else ()
        values = self.cast.map_values if self.cast else ()
        capacity = max(1, len(keys))
        return "\n".join(
            [
                f"#define ZC_PLAN_STEP {step}",
                f"#define ZC_PLAN_MAP_CAPACITY {capacity}",
                f"#define ZC_PLAN_MAP_KEYS {_c_literal(tuple(keys) or (0,))}",
                f"#define ZC_PLAN_MAP_VALUES {_c_literal(tuple(values) or (0,))}",
                "",
            ]
        )


def _wide(value: int) -> tuple[int, int]:
    return (int(value < 0), abs(value))


def _c_literal(value: Any) -> str:
    if isinstance(value, tuple):
        return "{" + ", ".join(_c_literal(item) for item in value) + "}"
    if isinstance(value, float):
        return value.hex()  # exact: a hexadecimal float literal (C++17)
    if isinstance(value, int) and value > 0x7FFFFFFF:
        return f"{value}ull"
    return str(int(value))
