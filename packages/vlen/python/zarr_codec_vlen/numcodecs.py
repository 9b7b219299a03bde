"""numcodecs' ``VLenUTF8``, ``VLenBytes``, ``VLenArray`` and ``Base64`` on our codecs, for
Zarr v2 object arrays and numcodecs users: the same constructors, configuration, ``repr`` and
bytes, object arrays out, ``out`` filled as numcodecs fills it, and ``ValueError`` (our
``CorruptInputError``) for truncated or malformed data.

numcodecs registers its own classes first; :func:`register` makes numcodecs use these, and
:func:`unregister` restores numcodecs' own.
"""

from __future__ import annotations

import pickle
import textwrap
from typing import Any

import numpy as np
from numcodecs.abc import Codec
from numcodecs.compat import ensure_contiguous_ndarray, ensure_ndarray, ensure_text, ndarray_copy
from zarr_codec_shapes import numcodecs as _adapter
from zarr_codec_shapes.errors import CorruptInputError

import zarr_codec_vlen as _ours
from zarr_codec_vlen import _vlen, pickles
from zarr_codec_vlen import categorize as _categorize

__all__ = [
    "IDS",
    "JSON",
    "Base64",
    "Categorize",
    "MsgPack",
    "Pickle",
    "VLenArray",
    "VLenBytes",
    "VLenUTF8",
    "register",
    "unregister",
]

#: The numcodecs ids these classes take over when registered.
IDS = (
    "vlen-utf8",
    "vlen-bytes",
    "vlen-array",
    "base64",
    "pickle",
    "categorize",
    "json2",
    "msgpack2",
)


def _values(buf: Any) -> np.ndarray[Any, Any]:
    return np.asarray(buf, dtype=object).reshape(-1, order="A")


def _output(decoded: np.ndarray[Any, Any], out: Any) -> Any:
    """``decoded`` into ``out`` as numcodecs checks and fills it, or ``decoded`` itself."""
    if out is None:
        return decoded
    if not isinstance(out, np.ndarray):
        raise TypeError("out must be 1-dimensional array")
    if out.dtype != object:
        raise ValueError("out must be object array")
    flat = out.reshape(-1, order="A")
    if flat.shape[0] < decoded.shape[0]:
        raise ValueError("out is too small")
    flat[: decoded.shape[0]] = decoded
    return flat


def _input(buf: Any) -> Any:
    return ensure_contiguous_ndarray(buf)


class VLenUTF8(Codec):  # type: ignore[misc]
    """numcodecs' ``VLenUTF8()``: strings as UTF-8, each after its length."""

    codec_id = "vlen-utf8"

    def encode(self, buf: Any) -> bytes:
        return bytes(_vlen.encode_utf8(_values(buf)))

    def decode(self, buf: Any, out: Any = None) -> Any:
        return _output(_vlen.decode_utf8(_input(buf)), out)


class VLenBytes(Codec):  # type: ignore[misc]
    """numcodecs' ``VLenBytes()``: byte strings, each after its length."""

    codec_id = "vlen-bytes"

    def encode(self, buf: Any) -> bytes:
        return bytes(_vlen.encode_bytes(_values(buf)))

    def decode(self, buf: Any, out: Any = None) -> Any:
        return _output(_vlen.decode_bytes(_input(buf)), out)


class VLenArray(Codec):  # type: ignore[misc]
    """numcodecs' ``VLenArray(dtype)``: one-dimensional arrays of ``dtype``, each after its
    length in bytes."""

    codec_id = "vlen-array"

    def __init__(self, dtype: Any) -> None:
        self.dtype = np.dtype(dtype)

    def get_config(self) -> dict[str, Any]:
        return {"id": self.codec_id, "dtype": self.dtype.str}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(dtype={self.dtype.str!r})"

    def encode(self, buf: Any) -> bytes:
        items = []
        for value in _values(buf):
            array = (
                np.array([], dtype=self.dtype)
                if value is None
                else np.ascontiguousarray(value, self.dtype)
            )
            if array.ndim != 1:
                raise ValueError("only 1-dimensional arrays are supported")
            items.append(array)
        return bytes(_vlen.encode_bytes(items, zero=False))

    def decode(self, buf: Any, out: Any = None) -> Any:
        items = _vlen.decode_bytes(_input(buf))
        decoded = np.empty(len(items), dtype=object)
        for index, item in enumerate(items):
            decoded[index] = np.frombuffer(item, dtype=self.dtype)
        return _output(decoded, out)


_Base64Base: Any = _adapter.numcodecs_codec_class(_ours.Base64, module=__name__, qualname="Base64")


class Base64(_Base64Base):  # type: ignore[misc]
    """numcodecs' ``Base64()``."""

    def __init__(self) -> None:
        self._codec = self._build()

    def _build(self) -> _ours.Base64:
        return _ours.Base64()

    def get_config(self) -> dict[str, Any]:
        return {"id": self.codec_id}

    def __repr__(self) -> str:
        return "Base64()"


class Categorize(Codec):  # type: ignore[misc]
    """numcodecs' ``Categorize(labels, dtype, astype="u1")``: strings (numpy ``U`` or object
    arrays) as the codes of their labels, ``1 +`` the label's position, 0 for none; decoded
    to the labels, the empty string for 0. One hash lookup per item, in Rust (the codec API's
    :class:`zarr_codec_vlen.categorize.Categorize`, with numcodecs' errors and ``out``)."""

    codec_id = "categorize"

    def __init__(self, labels: Any, dtype: Any, astype: Any = "u1") -> None:
        self.dtype = np.dtype(dtype)
        if self.dtype.kind not in "UO":
            raise TypeError("only unicode ('U') and object ('O') dtypes are supported")
        self.labels = [ensure_text(label) for label in labels]
        self.astype = np.dtype(astype)
        if self.astype == np.dtype(object):
            raise TypeError("encoding as object array not supported")
        self._codec = _categorize.Categorize(self.labels, self.dtype, self.astype)

    def encode(self, buf: Any) -> Any:
        if self.dtype != np.dtype(object):
            buf = ensure_ndarray(buf)
        return self._codec.encode(buf)

    def decode(self, buf: Any, out: Any = None) -> Any:
        return ndarray_copy(self._codec.decode(ensure_ndarray(buf)), out)

    def get_config(self) -> dict[str, Any]:
        return {"id": self.codec_id, **self._codec.configuration()}

    def __repr__(self) -> str:
        return repr(self._codec)


def _checked(items: Any, codec_id: str) -> list[Any]:
    """Decoded ``items`` that have numcodecs' layout (a list ending in a numpy type string and
    a shape); else ``CorruptInputError`` (numcodecs fails with whatever numpy or indexing
    raises)."""
    if (
        not isinstance(items, list)
        or len(items) < 2
        or not isinstance(items[-2], str | bytes)
        or not isinstance(items[-1], list)
        or not all(type(n) is int and n >= 0 for n in items[-1])
    ):
        raise CorruptInputError(
            f"{codec_id}: not numcodecs' layout (items, then a dtype and a shape)"
        )
    return items


def _filled(items: list[Any], out: Any) -> Any:
    """The array numcodecs' ``JSON`` makes of decoded ``items`` (the values, then the numpy
    type string and the shape), copied into ``out`` if given."""
    items = _checked(items, "json2")
    dec = np.empty(items[-1], dtype=items[-2])
    if not items[-1]:
        dec[...] = items[0]
    else:
        dec[:] = items[:-2]
    if out is None:
        return dec
    np.copyto(out, dec)
    return out


def _listed(buf: Any) -> list[Any]:
    """An array's items as numcodecs' ``JSON`` and ``MsgPack`` list them: the values, then the
    numpy type string and the shape."""
    try:
        buf = np.asarray(buf)
    except ValueError:  # ragged nested sequences
        buf = np.asarray(buf, dtype=object)
    items: list[Any] = np.atleast_1d(buf).tolist()
    items.append(buf.dtype.str)
    items.append(buf.shape)
    return items


class JSON(Codec):  # type: ignore[misc]
    """numcodecs' ``JSON(...)`` (id ``json2``): an array's items as JSON text, written and read
    in Rust exactly as Python's ``json`` module with the same options does."""

    codec_id = "json2"

    def __init__(
        self,
        encoding: str = "utf-8",
        skipkeys: bool = False,
        ensure_ascii: bool = True,
        check_circular: bool = True,
        allow_nan: bool = True,
        sort_keys: bool = True,
        indent: int | str | None = None,
        separators: tuple[str, str] | None = None,
        strict: bool = True,
    ) -> None:
        self._text_encoding = encoding
        if separators is None:
            separators = (",", ":") if indent is None else (", ", ": ")
        separators = tuple(separators)  # type: ignore[assignment]
        self._encoder_config = {
            "skipkeys": skipkeys,
            "ensure_ascii": ensure_ascii,
            "check_circular": check_circular,
            "allow_nan": allow_nan,
            "indent": indent,
            "separators": separators,
            "sort_keys": sort_keys,
        }
        self._decoder_config = {"strict": strict}
        # Python's json: an int indent is that many spaces (none below 1), a str as it is.
        spaces = indent if indent is None or isinstance(indent, str) else " " * indent
        item, key = separators
        self._style = (ensure_ascii, allow_nan, sort_keys, spaces, (str(item), str(key)))
        self._skipkeys = skipkeys

    def encode(self, buf: Any) -> bytes:
        text = _vlen.json2_encode(_listed(buf), *self._style, self._skipkeys)
        return text.encode(self._text_encoding)

    def decode(self, buf: Any, out: Any = None) -> Any:
        text = ensure_text(buf, self._text_encoding)
        items = _vlen.json2_decode(text, bool(self._decoder_config["strict"]))
        return _filled(items, out)

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"id": self.codec_id, "encoding": self._text_encoding}
        config.update(self._encoder_config)
        config.update(self._decoder_config)
        return config

    def __repr__(self) -> str:
        params = [f"encoding={self._text_encoding!r}"]
        for k, v in sorted(self._encoder_config.items()):
            params.append(f"{k}={v!r}")
        for k, v in sorted(self._decoder_config.items()):
            params.append(f"{k}={v!r}")
        text = f"{type(self).__name__}({', '.join(params)})"
        return textwrap.fill(text, width=80, break_long_words=False, subsequent_indent="     ")


class MsgPack(Codec):  # type: ignore[misc]
    """numcodecs' ``MsgPack(...)`` (id ``msgpack2``): an array's items in MessagePack, packed
    and unpacked in Rust exactly as the ``msgpack`` package does (which this does not need)."""

    codec_id = "msgpack2"

    def __init__(
        self, use_single_float: bool = False, use_bin_type: bool = True, raw: bool = False
    ) -> None:
        self.use_single_float = use_single_float
        self.use_bin_type = use_bin_type
        self.raw = raw

    def encode(self, buf: Any) -> bytes:
        try:
            buf = np.asarray(buf)
        except ValueError:
            buf = np.asarray(buf, dtype=object)
        items = buf.tolist()
        items.extend((buf.dtype.str, buf.shape))
        return bytes(
            _vlen.msgpack2_encode(items, bool(self.use_bin_type), bool(self.use_single_float))
        )

    def decode(self, buf: Any, out: Any = None) -> Any:
        items = _vlen.msgpack2_decode(ensure_contiguous_ndarray(buf), bool(self.raw))
        items = _checked(items, "msgpack2")
        dec = np.empty(items[-1], dtype=items[-2])
        dec[:] = items[:-2]
        if out is None:
            return dec
        np.copyto(out, dec)
        return out

    def get_config(self) -> dict[str, Any]:
        return {
            "id": self.codec_id,
            "raw": self.raw,
            "use_single_float": self.use_single_float,
            "use_bin_type": self.use_bin_type,
        }

    def __repr__(self) -> str:
        return (
            f"MsgPack(raw={self.raw!r}, use_bin_type={self.use_bin_type!r}, "
            f"use_single_float={self.use_single_float!r})"
        )


class Pickle(Codec):  # type: ignore[misc]
    """numcodecs' ``Pickle(protocol)``: encodes as numcodecs does (``pickle.dumps``); decodes
    only after the caller opts in (:func:`zarr_codec_vlen.allow_pickle`), since decoding a
    pickle runs the code it names."""

    codec_id = "pickle"

    def __init__(self, protocol: int = pickle.HIGHEST_PROTOCOL) -> None:
        self.protocol = protocol

    def encode(self, buf: Any) -> bytes:
        return pickle.dumps(buf, protocol=self.protocol)

    def decode(self, buf: Any, out: Any = None) -> Any:
        decoded = pickles.loads(ensure_contiguous_ndarray(buf))
        if out is None:
            return decoded
        np.copyto(out, decoded)
        return out

    def get_config(self) -> dict[str, Any]:
        return {"id": self.codec_id, "protocol": self.protocol}

    def __repr__(self) -> str:
        return f"Pickle(protocol={self.protocol})"


_CLASSES = (VLenUTF8, VLenBytes, VLenArray, Base64, Pickle, Categorize, JSON, MsgPack)


def register() -> None:
    """Use these codecs for their ids (:data:`IDS`) in numcodecs."""
    for cls in _CLASSES:
        _adapter.register(cls)


def unregister() -> None:
    """Give the ids back to whatever numcodecs had before :func:`register`."""
    for codec_id in IDS:
        _adapter.unregister(codec_id)
