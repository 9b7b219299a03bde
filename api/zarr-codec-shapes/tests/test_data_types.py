"""DataType: names from the v3 core spec and zarr-extensions, sizes, v2 strings, numpy."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from zarr_codec_shapes import ConfigurationError, DataType, Kind, UnsupportedError

CORE = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]
EXTENSIONS = [
    "bfloat16",
    "int2",
    "int4",
    "uint2",
    "uint4",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float4_e2m1fn",
]


@pytest.mark.parametrize("name", CORE + EXTENSIONS)
def test_every_spec_name_is_known_and_interned(name: str) -> None:
    dt = DataType.from_name(name)
    assert dt.name == name and str(dt) == name
    assert DataType.from_name(name) is dt
    assert pickle.loads(pickle.dumps(dt)) is dt
    assert getattr(DataType, name.upper()) is dt


@pytest.mark.parametrize("name", CORE)
def test_core_types_match_numpy(name: str) -> None:
    dt = DataType.from_name(name)
    native = np.dtype(name if name != "bool" else "?")
    assert dt.numpy_dtype == native
    assert dt.itemsize == native.itemsize
    assert DataType.from_numpy(native) is dt
    assert DataType.from_numpy(native.newbyteorder(">")) is dt
    parsed, order = DataType.from_v2(dt.v2_typestr("<"))
    assert parsed is dt and order == ("|" if dt.itemsize == 1 else "<")


@pytest.mark.parametrize(
    ("typestr", "name", "order"),
    [
        ("<f4", "float32", "<"),
        (">i8", "int64", ">"),
        ("|b1", "bool", "|"),
        ("|u1", "uint8", "|"),
        ("<c16", "complex128", "<"),
        ("<i1", "int8", "|"),
    ],
)
def test_v2_strings(typestr: str, name: str, order: str) -> None:
    assert DataType.from_v2(typestr) == (DataType.from_name(name), order)


@pytest.mark.parametrize("bad", ["float", "Float32", "", None, 3, "r8", "int128"])
def test_unknown_names_are_configuration_errors(bad: object) -> None:
    with pytest.raises(ConfigurationError):
        DataType.from_name(bad)


@pytest.mark.parametrize("bad", ["f4", "<f3", "<U4", "", "<", 4])
def test_bad_v2_strings(bad: object) -> None:
    with pytest.raises(ConfigurationError):
        DataType.from_v2(bad)


def test_ranges_and_kinds() -> None:
    assert DataType.INT4.integer_range() == (-8, 7)
    assert DataType.UINT2.integer_range() == (0, 3)
    assert DataType.INT64.integer_range() == (-(2**63), 2**63 - 1)
    assert DataType.UINT64.integer_range() == (0, 2**64 - 1)
    assert DataType.BFLOAT16.kind is Kind.FLOAT and DataType.BFLOAT16.itemsize == 2
    assert DataType.FLOAT4_E2M1FN.itemsize == 1 and DataType.FLOAT4_E2M1FN.bits == 4
    with pytest.raises(UnsupportedError):
        DataType.FLOAT32.integer_range()
    with pytest.raises(UnsupportedError):
        DataType.BFLOAT16.v2_typestr()


def test_extension_types_use_ml_dtypes_when_installed() -> None:
    try:
        import ml_dtypes
    except ImportError:
        with pytest.raises(UnsupportedError, match="ml_dtypes"):
            _ = DataType.BFLOAT16.numpy_dtype
    else:
        assert DataType.BFLOAT16.numpy_dtype == np.dtype(ml_dtypes.bfloat16)
        assert DataType.from_numpy(ml_dtypes.bfloat16) is DataType.BFLOAT16
        assert DataType.FLOAT8_E5M2.numpy_dtype == np.dtype(ml_dtypes.float8_e5m2)


def test_unsupported_numpy_dtype() -> None:
    with pytest.raises(UnsupportedError):
        DataType.from_numpy("U4")


def test_swap_size_is_one_part_of_a_complex_number() -> None:
    """The ``bytes`` codec reverses each part of a complex number on its own (numpy's own
    byte order change is the reference), with bytes distinct within every element."""
    for data_type in DataType.ALL:
        if data_type.v2_code is None:
            continue
        raw = (np.arange(6 * data_type.itemsize) % 251).astype(np.uint8)
        native = raw.view(data_type.numpy_dtype)
        swapped = native.astype(native.dtype.newbyteorder("S")).view(np.uint8)
        mine = raw.reshape(-1, data_type.swap_size)[:, ::-1].reshape(-1)
        assert np.array_equal(swapped, mine), data_type
    assert DataType.COMPLEX64.swap_size == 4 and DataType.COMPLEX128.swap_size == 8
