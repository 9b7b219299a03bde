"""No buffer given to any method of any of our codec classes can crash the process.

Object arrays hold pointers: compressing one stores addresses, decoding into one writes over
pointers the interpreter later follows (numcodecs' ``GZip.decode(data, out=object_array)``
segfaulted on ours). Every method of every codec, protocol classes and numcodecs classes
alike, must refuse them, and outputs of the wrong size or kind, with an exception: a
``CodecError`` (``BufferTypeError``, also a ``TypeError``, for what is not plain data) or,
from the numcodecs classes, the ``TypeError``/``ValueError`` numcodecs raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from zarr_codec_blosc import Blosc
from zarr_codec_cast_value import CastValue
from zarr_codec_crc32c import Crc32c
from zarr_codec_gzip import Gzip
from zarr_codec_scale_offset import ScaleOffset
from zarr_codec_scale_offset.legacy import FixedScaleOffset
from zarr_codec_shapes import BufferTypeError, ChunkSpec, CodecError
from zarr_codec_zstd import Zstd

numcodecs = pytest.importorskip("numcodecs")

from zarr_codec_blosc.numcodecs import Blosc as NumcodecsBlosc  # noqa: E402
from zarr_codec_crc32c.numcodecs import CRC32C as NumcodecsCRC32C  # noqa: E402
from zarr_codec_gzip.numcodecs import GZip as NumcodecsGZip  # noqa: E402
from zarr_codec_scale_offset.numcodecs import (  # noqa: E402
    FixedScaleOffset as NumcodecsFixedScaleOffset,
)
from zarr_codec_zstd.numcodecs import Zstd as NumcodecsZstd  # noqa: E402

OBJECTS = np.array(["a", 1, None, 2.5] * 4, dtype=object)
VALUES = np.arange(16, dtype="<f8")
BYTES_CODECS: dict[str, Any] = {
    "gzip": Gzip(5),
    "blosc": Blosc("lz4", 5, "shuffle", 8),
    "zstd": Zstd(3),
    "crc32c": Crc32c(),
}
ARRAY_CODECS: dict[str, Any] = {
    "cast_value": CastValue("int32", "nearest-even"),
    "scale_offset": ScaleOffset(1, 2),
    "fixedscaleoffset": FixedScaleOffset(1, 10, "<f8", "<i4"),
}
NUMCODECS: dict[str, Any] = {
    "GZip": NumcodecsGZip(1),
    "Blosc": NumcodecsBlosc(),
    "Zstd": NumcodecsZstd(1),
    "CRC32C": NumcodecsCRC32C(),
    "FixedScaleOffset": NumcodecsFixedScaleOffset(1, 10, "<f8", "<i4"),
}


def _refused(call: Callable[[], Any], *allowed: type[BaseException]) -> BaseException:
    with pytest.raises(allowed or (CodecError,)) as caught:
        call()
    return caught.value


@pytest.mark.parametrize("name", list(BYTES_CODECS))
def test_bytes_codecs_refuse_object_arrays_everywhere(name: str) -> None:
    codec = BYTES_CODECS[name]
    encoded = codec.encode(VALUES)
    out = np.empty(16, dtype=object)
    calls: dict[str, Callable[[], Any]] = {
        "encode": lambda: codec.encode(OBJECTS),
        "decode": lambda: codec.decode(OBJECTS),
        "decode_into object out": lambda: codec.decode_into(encoded, out),
        "decode_into object in": lambda: codec.decode_into(OBJECTS, bytearray(256)),
        "encode_batch": lambda: codec.encode_batch([VALUES, OBJECTS]),
        "decode_batch": lambda: codec.decode_batch([encoded, OBJECTS]),
        "decode_batch_into object out": lambda: codec.decode_batch_into([encoded], [out]),
    }
    if hasattr(codec, "encode_into"):
        calls["encode_into object out"] = lambda: codec.encode_into(VALUES, out)
        calls["encode_into object in"] = lambda: codec.encode_into(OBJECTS, bytearray(4096))
    for label, call in calls.items():
        error = _refused(call, BufferTypeError)
        assert isinstance(error, TypeError), label
    assert all(x is None or isinstance(x, str | int | float) for x in out)  # untouched


@pytest.mark.parametrize("name", list(BYTES_CODECS))
def test_bytes_codecs_refuse_unusable_outputs(name: str) -> None:
    codec = BYTES_CODECS[name]
    encoded = codec.encode(VALUES)
    for out in (
        bytearray(VALUES.nbytes - 1),  # too small
        bytes(VALUES.nbytes),  # read-only
        np.zeros(VALUES.nbytes * 2, np.uint8)[::2],  # not contiguous
        np.zeros((), np.uint8),  # no dimensions
    ):
        _refused(lambda out=out: codec.decode_into(encoded, out))
    for chunk in ("text", [1, 2, 3], None, 5):
        assert isinstance(_refused(lambda chunk=chunk: codec.decode(chunk)), TypeError)


@pytest.mark.parametrize("name", list(ARRAY_CODECS))
def test_array_codecs_refuse_object_arrays_and_wrong_outputs(name: str) -> None:
    codec = ARRAY_CODECS[name]
    spec = ChunkSpec(VALUES.shape, "float64")
    encoded = codec.encode(VALUES, spec)
    _refused(lambda: codec.encode(OBJECTS, spec), CodecError, TypeError)
    _refused(lambda: codec.decode(OBJECTS, spec), CodecError, TypeError)
    for out in (np.empty(15), np.empty(17), np.empty((4, 5))):
        _refused(lambda out=out: codec.decode_into(encoded, out, spec))
    # Into an object array: refused, or (a filter copying through numpy, as numcodecs'
    # does) filled with Python numbers; never raw bytes over its pointers.
    objects_out = np.empty(16, dtype=object)
    try:
        codec.decode_into(encoded, objects_out, spec)
    except CodecError:
        assert all(x is None for x in objects_out)
    else:
        np.testing.assert_array_equal(objects_out.astype("<f8"), codec.decode(encoded, spec))


@pytest.mark.parametrize("name", list(NUMCODECS))
def test_numcodecs_classes_refuse_as_numcodecs_does(name: str) -> None:
    codec = NUMCODECS[name]
    encoded = codec.encode(VALUES)
    _refused(lambda: codec.encode(OBJECTS), TypeError, ValueError)
    _refused(lambda: codec.decode(encoded, out=np.empty(15)), ValueError)
    if name != "FixedScaleOffset":  # a filter copies into any array, as numcodecs' does
        objects = np.empty(16, dtype=object)
        _refused(lambda: codec.decode(encoded, out=objects), TypeError)
        _refused(lambda: codec.encode(["a", "b"]), TypeError)
        _refused(lambda: codec.encode(np.arange(32.0)[::2]), ValueError)  # not contiguous
