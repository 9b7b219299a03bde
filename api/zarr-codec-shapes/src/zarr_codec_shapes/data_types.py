"""Zarr data types: names, sizes, numpy dtypes, and their v2 spellings.

The core types are those of the Zarr v3 core specification; the extension types (bfloat16,
int2/int4/uint2/uint4 and the float8/float6/float4 family) are those of zarr-extensions'
``data-types``. Extension types need ``ml_dtypes`` for a numpy dtype; their names, sizes and
formats are known without it, so metadata naming them can be read and checked anyway.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final

from zarr_codec_shapes.errors import ConfigurationError, UnsupportedError

if TYPE_CHECKING:
    import numpy as np

__all__ = ["DataType", "FloatFormat", "Kind"]


class Kind(enum.Enum):
    """The family a data type belongs to."""

    BOOL = "bool"
    SIGNED = "signed"
    UNSIGNED = "unsigned"
    FLOAT = "float"
    COMPLEX = "complex"


@dataclass(frozen=True, slots=True)
class FloatFormat:
    """Bit layout of a binary floating-point format (of a complex type: of one component)."""

    exponent_bits: int
    mantissa_bits: int
    has_infinity: bool
    #: The bit pattern the JSON constant ``"NaN"`` stands for; ``None`` if the type has no NaN.
    nan_bits: int | None


@dataclass(frozen=True, slots=True)
class DataType:
    """One Zarr data type.

    Instances are interned: ``DataType.from_name("float32") is DataType.FLOAT32``. Compare them
    with ``==`` or ``is``.
    """

    #: Zarr v3 name, e.g. ``"float32"``.
    name: str
    kind: Kind
    #: Bytes per element as the ``bytes`` codec stores it (sub-byte types take one byte).
    itemsize: int
    #: Significant bits per element (4 for int4, 16 for bfloat16).
    bits: int
    #: numpy typestr without the byte-order character (``"f4"``); ``None`` if not a v2 type.
    v2_code: str | None
    #: Name of the numpy (or ml_dtypes) scalar type.
    numpy_name: str
    #: Floating-point layout (per component for complex types); ``None`` otherwise.
    float_format: FloatFormat | None = None

    # Filled in below the class body: one constant per data type and a name index.
    ALL: ClassVar[tuple[DataType, ...]]
    BOOL: ClassVar[DataType]
    INT2: ClassVar[DataType]
    INT4: ClassVar[DataType]
    INT8: ClassVar[DataType]
    INT16: ClassVar[DataType]
    INT32: ClassVar[DataType]
    INT64: ClassVar[DataType]
    UINT2: ClassVar[DataType]
    UINT4: ClassVar[DataType]
    UINT8: ClassVar[DataType]
    UINT16: ClassVar[DataType]
    UINT32: ClassVar[DataType]
    UINT64: ClassVar[DataType]
    FLOAT16: ClassVar[DataType]
    BFLOAT16: ClassVar[DataType]
    FLOAT32: ClassVar[DataType]
    FLOAT64: ClassVar[DataType]
    COMPLEX64: ClassVar[DataType]
    COMPLEX128: ClassVar[DataType]

    def __repr__(self) -> str:
        return f"DataType.{self.name.upper()}"

    def __str__(self) -> str:
        return self.name

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickle by name so unpickling returns the interned instance.
        return (DataType.from_name, (self.name,))

    # -- lookups ---------------------------------------------------------------------------

    @staticmethod
    def from_name(name: object) -> DataType:
        """The data type with this Zarr v3 name; ``ConfigurationError`` if there is none."""
        if not isinstance(name, str) or name not in _BY_NAME:
            raise ConfigurationError(f"unknown Zarr data type {name!r}")
        return _BY_NAME[name]

    @staticmethod
    def from_numpy(dtype: Any) -> DataType:
        """The data type of a numpy dtype (any byte order); ``UnsupportedError`` if none."""
        import numpy as np

        dt = np.dtype(dtype)
        name = _BY_NUMPY_NAME.get(dt.type.__name__)
        if name is None:
            raise UnsupportedError(f"numpy dtype {dt} has no Zarr data type")
        return _BY_NAME[name]

    @staticmethod
    def from_v2(typestr: object) -> tuple[DataType, str]:
        """Parse a Zarr v2 ``dtype`` string such as ``"<f4"``.

        Returns the data type and the byte order (``"<"``, ``">"`` or ``"|"``).
        """
        if not isinstance(typestr, str) or len(typestr) < 2 or typestr[0] not in "<>|=":
            raise ConfigurationError(f"invalid Zarr v2 dtype {typestr!r}")
        order, code = typestr[0], typestr[1:]
        found = _BY_V2_CODE.get(code)
        if found is None:
            raise ConfigurationError(f"unsupported Zarr v2 dtype {typestr!r}")
        if order == "=":
            import sys

            order = "<" if sys.byteorder == "little" else ">"
        if found.itemsize == 1:
            order = "|"
        return found, order

    # -- properties ------------------------------------------------------------------------

    @property
    def is_integer(self) -> bool:
        """True for signed and unsigned integer types."""
        return self.kind in (Kind.SIGNED, Kind.UNSIGNED)

    @property
    def is_float(self) -> bool:
        """True for real floating-point types."""
        return self.kind is Kind.FLOAT

    @property
    def swap_size(self) -> int:
        """Bytes reversed together when the byte order changes: ``itemsize``, but one
        component's for complex types (the ``bytes`` codec swaps the real and the imaginary
        part each on its own and keeps their order)."""
        return self.itemsize // 2 if self.kind is Kind.COMPLEX else self.itemsize

    def integer_range(self) -> tuple[int, int]:
        """Inclusive ``(min, max)`` of an integer (or bool, as 0/1) type."""
        if self.kind is Kind.BOOL:
            return (0, 1)
        if self.kind is Kind.SIGNED:
            return (-(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1)
        if self.kind is Kind.UNSIGNED:
            return (0, (1 << self.bits) - 1)
        raise UnsupportedError(f"{self.name} is not an integer type")

    def v2_typestr(self, byteorder: str = "<") -> str:
        """The Zarr v2 ``dtype`` string, e.g. ``"<f4"``; single bytes use ``"|"``."""
        if self.v2_code is None:
            raise UnsupportedError(f"{self.name} has no Zarr v2 dtype")
        return ("|" if self.itemsize == 1 else byteorder) + self.v2_code

    @property
    def numpy_dtype(self) -> np.dtype[Any]:
        """The native-order numpy dtype (extension types need ``ml_dtypes``)."""
        import numpy as np

        if self.v2_code is not None:
            return np.dtype(self.v2_code).newbyteorder("=")
        try:
            import ml_dtypes
        except ImportError as err:
            raise UnsupportedError(
                f"data type {self.name} needs the ml_dtypes package for a numpy dtype"
            ) from err
        scalar = getattr(ml_dtypes, self.numpy_name, None)
        if scalar is None:
            raise UnsupportedError(
                f"data type {self.name} is not provided by this version of ml_dtypes"
            )
        found: np.dtype[Any] = np.dtype(scalar)
        return found


def _float(e: int, m: int, inf: bool, nan: int | None) -> FloatFormat:
    return FloatFormat(exponent_bits=e, mantissa_bits=m, has_infinity=inf, nan_bits=nan)


def _integer(signed: bool, bits: int) -> DataType:
    """``int<bits>`` or ``uint<bits>``; the sub-byte ones (2 and 4 bits) have no v2 code."""
    name = f"{'' if signed else 'u'}int{bits}"
    size = max(1, bits // 8)
    code = f"{'i' if signed else 'u'}{size}" if bits >= 8 else None
    return DataType(name, Kind.SIGNED if signed else Kind.UNSIGNED, size, bits, code, name)


_F16 = _float(5, 10, True, 0x7E00)
_F32 = _float(8, 23, True, 0x7FC00000)
_F64 = _float(11, 52, True, 0x7FF8000000000000)

_TABLE: Final[tuple[DataType, ...]] = (
    DataType("bool", Kind.BOOL, 1, 1, "b1", "bool"),
    *(_integer(signed, bits) for signed in (True, False) for bits in (2, 4, 8, 16, 32, 64)),
    DataType("float16", Kind.FLOAT, 2, 16, "f2", "float16", _F16),
    DataType("bfloat16", Kind.FLOAT, 2, 16, None, "bfloat16", _float(8, 7, True, 0x7FC0)),
    DataType("float32", Kind.FLOAT, 4, 32, "f4", "float32", _F32),
    DataType("float64", Kind.FLOAT, 8, 64, "f8", "float64", _F64),
    DataType("complex64", Kind.COMPLEX, 8, 64, "c8", "complex64", _F32),
    DataType("complex128", Kind.COMPLEX, 16, 128, "c16", "complex128", _F64),
    DataType("float8_e3m4", Kind.FLOAT, 1, 8, None, "float8_e3m4", _float(3, 4, True, 0x78)),
    DataType("float8_e4m3", Kind.FLOAT, 1, 8, None, "float8_e4m3", _float(4, 3, True, 0x7C)),
    DataType(
        "float8_e4m3b11fnuz",
        Kind.FLOAT,
        1,
        8,
        None,
        "float8_e4m3b11fnuz",
        _float(4, 3, False, 0x80),
    ),
    DataType(
        "float8_e4m3fnuz", Kind.FLOAT, 1, 8, None, "float8_e4m3fnuz", _float(4, 3, False, 0x80)
    ),
    DataType("float8_e5m2", Kind.FLOAT, 1, 8, None, "float8_e5m2", _float(5, 2, True, 0x7E)),
    DataType(
        "float8_e5m2fnuz", Kind.FLOAT, 1, 8, None, "float8_e5m2fnuz", _float(5, 2, False, 0x80)
    ),
    DataType("float8_e8m0fnu", Kind.FLOAT, 1, 8, None, "float8_e8m0fnu", _float(8, 0, False, 0xFF)),
    DataType("float6_e2m3fn", Kind.FLOAT, 1, 6, None, "float6_e2m3fn", _float(2, 3, False, None)),
    DataType("float6_e3m2fn", Kind.FLOAT, 1, 6, None, "float6_e3m2fn", _float(3, 2, False, None)),
    DataType("float4_e2m1fn", Kind.FLOAT, 1, 4, None, "float4_e2m1fn", _float(2, 1, False, None)),
)

_BY_NAME: Final[dict[str, DataType]] = {dt.name: dt for dt in _TABLE}
# numpy's bool scalar type is called ``bool`` in numpy 2 and ``bool_`` in numpy 1.
_BY_NUMPY_NAME: Final[dict[str, str]] = {dt.numpy_name: dt.name for dt in _TABLE} | {
    "bool_": "bool"
}
_BY_V2_CODE: Final[dict[str, DataType]] = {dt.v2_code: dt for dt in _TABLE if dt.v2_code}

DataType.ALL = _TABLE
for _dt in _TABLE:
    setattr(DataType, _dt.name.upper(), _dt)
del _dt
