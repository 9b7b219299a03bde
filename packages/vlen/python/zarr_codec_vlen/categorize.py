"""numcodecs' ``categorize`` as a codec of the codec API, with no numcodecs needed: what a
Zarr v2 array with a ``categorize`` filter reads and writes through (zarr-python without
numcodecs resolves it from the API's registry by its v2 id).
"""

from __future__ import annotations

import codecs
from typing import Any, ClassVar, Self

import numpy as np
from zarr_codec_shapes.base import ArrayArrayCodecBase
from zarr_codec_shapes.chunk_spec import ChunkSpec
from zarr_codec_shapes.data_types import DataType
from zarr_codec_shapes.errors import ConfigurationError, OutOfRangeError
from zarr_codec_shapes.protocols import ZarrFormat

from zarr_codec_vlen import _vlen

__all__ = ["Categorize"]

_NO_V3 = (
    "categorize has no Zarr v3 form: numcodecs and zarr-python use it in Zarr v2 arrays only "
    "(a Zarr v3 string array has no fixed-width type for it to decode to)"
)


def _text(label: Any) -> str:
    """A label as text: ``str`` as it is, a buffer decoded as UTF-8 (numcodecs' rule)."""
    if isinstance(label, str):
        return label
    return codecs.decode(memoryview(label).cast("B"), "utf-8")


def _ndarray(data: Any) -> np.ndarray[Any, Any]:
    """``data`` as a numpy array (a buffer as its bytes), flattened in memory order."""
    array = data if isinstance(data, np.ndarray) else np.asarray(memoryview(data))
    return array.reshape(-1, order="A")


class Categorize(ArrayArrayCodecBase):
    """numcodecs' ``categorize`` (Zarr v2 id ``categorize``, registered as
    ``numcodecs.categorize``): strings (numpy ``U`` or object arrays) stored as the codes of
    their labels, ``1 +`` the label's position and 0 for a string that is no label; decoded to
    the labels, the empty string for 0. Bytes for bytes what numcodecs 0.17 writes. Zarr v2
    only, as in numcodecs and zarr-python: its v3 JSON, either way, is a
    ``ConfigurationError`` (the v3 name is only the key it is registered under).

    Parameters
    ----------
    labels
        The strings that get a code, in code order.
    dtype
        The decoded data type: a numpy unicode (``"<U3"``) or object (``"|O"``) type.
    astype
        The type of the codes (``"u1"`` by default); not ``object``.
    """

    name: ClassVar[str] = "numcodecs.categorize"
    codec_id: ClassVar[str | None] = "categorize"

    def __init__(self, labels: Any, dtype: Any, astype: Any = "u1") -> None:
        try:
            self.dtype = np.dtype(dtype)
            self.astype = np.dtype(astype)
        except TypeError as err:
            raise ConfigurationError(f"categorize: {err}") from None
        if self.dtype.kind not in "UO":
            raise ConfigurationError(
                "categorize: only unicode ('U') and object ('O') dtypes are supported, "
                f"got {self.dtype.str!r}"
            )
        if self.astype == np.dtype(object):
            raise ConfigurationError("categorize: encoding as an object array is not supported")
        if isinstance(labels, str | bytes):
            raise ConfigurationError("categorize: labels must be a list of strings")
        self.labels = [_text(label) for label in labels]
        self._codes = _vlen.Categorizer(self.labels)

    def to_json(self, zarr_format: ZarrFormat = 3) -> dict[str, Any]:
        """The Zarr v2 JSON (numcodecs' configuration); ``ConfigurationError`` for v3."""
        if zarr_format == 3:
            raise ConfigurationError(_NO_V3)
        return super().to_json(zarr_format)

    @classmethod
    def from_json(cls, data: Any, zarr_format: ZarrFormat = 3) -> Self:
        """Build from Zarr v2 JSON; ``ConfigurationError`` for v3."""
        if zarr_format == 3:
            raise ConfigurationError(_NO_V3)
        return super().from_json(data, zarr_format)

    def configuration(self) -> dict[str, Any]:
        """The labels, the decoded type and the codes' type (numpy type strings)."""
        return {"labels": self.labels, "dtype": self.dtype.str, "astype": self.astype.str}

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        """The chunk's shape, in codes of ``astype``, filled with 0 (no label)."""
        return ChunkSpec(spec.shape, DataType.from_numpy(self.astype), 0)

    def encode(self, array: Any, spec: ChunkSpec | None = None) -> np.ndarray[Any, Any]:
        """The codes of ``array``'s strings (flattened in memory order, as numcodecs does;
        in ``array``'s shape when a spec is given)."""
        codes = self._codes_of(array)
        if self.astype.kind in "iu" and len(self.labels) > np.iinfo(self.astype).max:
            # numcodecs assigns each label's code in turn and fails at the first too large.
            raise OutOfRangeError(
                f"Python integer {np.iinfo(self.astype).max + 1} out of bounds for {self.astype}"
            )
        encoded = codes.astype(self.astype)
        return encoded if spec is None else encoded.reshape(np.shape(array))

    def _codes_of(self, array: Any) -> np.ndarray[Any, Any]:
        if self.dtype == np.dtype(object):
            return self._codes.codes(np.asarray(array, dtype=object).reshape(-1, order="A"))
        items = _ndarray(array).view(self.dtype)
        width = self.dtype.itemsize // 4
        if width == 0:
            # Every item is the empty string: a label's code only if "" is a label.
            return self._codes.codes(np.full(items.shape, "", dtype=object))
        chars = np.ascontiguousarray(items).view(self.dtype.byteorder.replace("|", "=") + "u4")
        return self._codes.codes(chars.astype(np.uint32, copy=False), width)

    def decode(self, array: Any, spec: ChunkSpec | None = None) -> np.ndarray[Any, Any]:
        """The labels of ``array``'s codes (its bytes viewed as ``astype`` when it is not
        already), flat, or in ``spec``'s shape when given."""
        codes = _ndarray(array).view(self.astype)
        table = np.empty(len(self.labels) + 1, dtype=self.dtype)
        table[0] = ""
        table[1:] = self.labels
        if self.astype.kind == "b":
            index = codes.astype(np.intp)
        else:
            # A code names label i exactly where it equals i + 1 (numcodecs' `enc == i + 1`).
            named = (codes >= 1) & (codes <= len(self.labels))
            if self.astype.kind in "fc":
                named &= codes == np.floor(codes.real)
            index = np.where(named, codes.real if self.astype.kind == "c" else codes, 0)
            index = index.astype(np.intp)
        decoded: np.ndarray[Any, Any] = table[index]
        return decoded if spec is None else decoded.reshape(spec.shape)

    def __repr__(self) -> str:
        labels = repr(self.labels[:3])
        if len(self.labels) > 3:
            labels = labels[:-1] + ", ...]"
        return f"Categorize(dtype={self.dtype.str!r}, astype={self.astype.str!r}, labels={labels})"
