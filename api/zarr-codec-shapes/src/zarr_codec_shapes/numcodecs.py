"""Adapter: a protocol codec as a numcodecs codec (Zarr v2 compressors and filters).

Bytes codecs become compressors; array codecs whose v2 configuration names their data types
(such as ``fixedscaleoffset``) become filters, given numcodecs' flat buffers and returning arrays.

An adapter behaves as numcodecs' own classes do, because Zarr v2 data and the code around it
depend on the details:

- a compressor takes input as numcodecs' do (``numcodecs.compat.ensure_contiguous_ndarray_like``):
  a contiguous array in its memory order (so an order-"F" chunk is stored as numcodecs stores
  it), datetime64/timedelta64 as their int64 bytes, ``TypeError`` for object arrays and
  objects without a buffer, ``ValueError`` for non-contiguous arrays and for buffers over
  ``max_buffer_size``; ``out`` the same way, filled in its memory order; a filter flattens
  any array in its memory order;
- the configuration is the instance's public attributes (numcodecs' rule), so ``get_config``,
  ``from_config``, ``repr`` and equality are numcodecs' own, symmetric with numcodecs' classes
  of the same configuration; setting an attribute changes what the codec does.

Inbound, :func:`from_numcodecs` makes any numcodecs codec one of ours (``numcodecs.<id>``, as
zarr-python names them in v3 metadata), so a :class:`~zarr_codec_shapes.Chain` can include
codecs we do not implement; the registry falls back to it for ``numcodecs.<id>`` names no
package provides.

numcodecs is imported only when a function here is called. numcodecs registers its own codecs
before any entry point, so an entry point can never replace its ``gzip`` or ``blosc``;
:func:`register` does that explicitly, and :func:`unregister` puts the original back.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Buffer, Callable
from typing import Any, ClassVar, Self, cast

from zarr_codec_shapes.base import (
    ArrayArrayCodecBase,
    BytesBytesCodecBase,
    _freeze,
    as_byte_view,
)
from zarr_codec_shapes.chunk_spec import ChunkSpec
from zarr_codec_shapes.codec_json import split_codec_json
from zarr_codec_shapes.data_types import DataType
from zarr_codec_shapes.errors import CodecError, ConfigurationError, CorruptInputError
from zarr_codec_shapes.protocols import Codec, ZarrFormat

__all__ = ["ARRAY_FILTERS", "from_numcodecs", "numcodecs_codec_class", "register", "unregister"]

_replaced: dict[str, Any] = {}  # codec id -> the class registered before ours (None: none)
_lock = threading.Lock()


def numcodecs_codec_class(codec_cls: type[Codec], *, module: str, qualname: str) -> type[Any]:
    """A ``numcodecs.abc.Codec`` subclass wrapping ``codec_cls``: a bytes codec, or an array
    codec that needs no chunk spec (it views numcodecs' flat buffers as its own data types).

    Its constructor takes the v2 configuration as keywords (or ``codec_cls``'s own positional
    arguments) and keeps it as public attributes. A subclass with numcodecs' exact signature
    sets those attributes itself and overrides ``_build`` (the codec they describe).
    ``module`` and ``qualname`` must name where the result is stored (pickle finds it there).
    """
    import numpy as np
    from numcodecs.abc import Codec as NumcodecsCodec
    from numcodecs.compat import ensure_contiguous_ndarray_like, ensure_ndarray_like, ndarray_copy

    name: Any = getattr(codec_cls, "name", codec_cls)
    codec_id: Any = getattr(codec_cls, "codec_id", None)
    if not isinstance(codec_id, str):
        raise ConfigurationError(f"codec {name!r} has no Zarr v2 id")
    codec_type = getattr(codec_cls, "codec_type", None)
    if codec_type not in ("bytes_bytes", "array_array"):
        raise ConfigurationError(f"codec {name!r} is neither bytes->bytes nor array->array")
    arrays = codec_type == "array_array"
    factory: Any = codec_cls
    byte = np.dtype(np.uint8)

    class Adapter(NumcodecsCodec):  # type: ignore[misc]
        codec_class = codec_cls
        #: Larger inputs are refused with ``ValueError``, as numcodecs does (None: no limit).
        max_buffer_size: int | None = None

        _codec: Any = None  # the codec the attributes describe, built when first used

        def __init__(self, *args: Any, **config: Any) -> None:
            if args:  # positional arguments, as numcodecs' own classes take them
                try:
                    codec = factory(*args, **config)
                except TypeError as err:
                    raise ConfigurationError(f"{name}: {err}") from None
            else:  # keywords are v2 configuration, with the v2 defaults
                codec = codec_cls.from_json({"id": codec_id, **config}, 2)
            self._adopt(codec)

        def _adopt(self, codec: Any) -> None:
            for key, value in codec.to_json(2).items():
                if key != "id":
                    setattr(self, key, value)
            self._codec = codec

        @classmethod
        def wrap(cls, codec: Codec) -> Adapter:
            """Adapt an existing codec instance."""
            self = cls.__new__(cls)
            self._adopt(codec)
            return self

        def __setattr__(self, key: str, value: Any) -> None:
            # numcodecs' codecs read their attributes at every call: so does this one.
            object.__setattr__(self, key, value)
            if key != "_codec":
                object.__setattr__(self, "_codec", None)

        @property
        def codec(self) -> Any:
            """The codec doing the work, as the attributes describe it now."""
            codec = self._codec
            if codec is None:
                codec = self._build()
                object.__setattr__(self, "_codec", codec)
            return codec

        def _build(self) -> Any:
            config = {k: v for k, v in self.get_config().items() if k != "id"}
            return codec_cls.from_json({"id": codec_id, **config}, 2)

        def _input(self, buf: Any) -> Any:
            # A numpy array, or bytes (what a store returns), is taken as numcodecs' checks
            # would take it, without them (a protocol test costs more than a small chunk's
            # filter): bytes as a flat, read-only array of their bytes.
            if type(buf) is bytes:
                limit = self.max_buffer_size
                if not arrays and limit is not None and len(buf) > limit:
                    raise ValueError(f"Codec does not support buffers of > {limit} bytes")
                return np.frombuffer(buf, byte)
            if arrays:  # numcodecs' filters flatten any array in its memory order
                data = buf if type(buf) is np.ndarray else ensure_ndarray_like(buf)
                # A 1-d array is flat already (reshape would only make another view of it).
                return data if data.ndim == 1 else data.reshape(-1, order="A")
            return ensure_contiguous_ndarray_like(buf, self.max_buffer_size)

        def encode(self, buf: Any) -> Any:
            return self.codec.encode(self._input(buf))

        def decode(self, buf: Any, out: Any = None) -> Any:
            data = self._input(buf)
            if out is None:
                return self.codec.decode(data)
            if arrays:
                return ndarray_copy(self.codec.decode(data), out)
            self.codec.decode_into(data, ensure_contiguous_ndarray_like(out))
            return out

        @classmethod
        def from_config(cls, config: dict[str, Any]) -> Adapter:
            # numcodecs.get_codec removes "id" before calling this; get_config keeps it.
            config = dict(config)
            config.pop("id", None)
            return cls(**config)

        def __hash__(self) -> int:  # consistent with numcodecs' equality of configurations
            return hash(_freeze(self.get_config()))

        def __getstate__(self) -> dict[str, Any]:
            return {k: v for k, v in vars(self).items() if k != "_codec"}

        def __setstate__(self, state: dict[str, Any]) -> None:
            for key, value in state.items():
                object.__setattr__(self, key, value)

    Adapter.codec_id = codec_id
    Adapter.__module__ = module
    Adapter.__qualname__ = qualname
    Adapter.__name__ = qualname.rsplit(".", 1)[-1]
    return Adapter


def register(cls: type[Any]) -> None:
    """Make numcodecs use ``cls`` (a class from :func:`numcodecs_codec_class`) for its id.

    This replaces numcodecs' built-in codec of the same id, which entry points cannot do, so
    Zarr v2 arrays read and write through our codec. :func:`unregister` undoes it.
    """
    from numcodecs.registry import codec_registry, register_codec

    with _lock:
        if cls.codec_id not in _replaced:
            _replaced[cls.codec_id] = codec_registry.get(cls.codec_id)
        register_codec(cls, codec_id=cls.codec_id)


def unregister(codec_id: str) -> None:
    """Restore whatever numcodecs had for ``codec_id`` before :func:`register`."""
    from numcodecs.registry import codec_registry, register_codec

    with _lock:
        if codec_id not in _replaced:
            return
        previous = _replaced.pop(codec_id)
        if previous is None:
            codec_registry.pop(codec_id, None)
        else:
            register_codec(previous, codec_id=codec_id)


# -- inbound: numcodecs codecs as ours ---------------------------------------------------------

#: numcodecs ids whose codecs map arrays to arrays (filters); every other id is taken as bytes
#: to bytes (compressors and checksums), as zarr-python's ``numcodecs.*`` codecs do.
ARRAY_FILTERS = frozenset(
    {"delta", "fixedscaleoffset", "quantize", "astype", "packbits", "bitround", "categorize"}
)


def from_numcodecs(codec: Any) -> Codec:
    """A numcodecs codec object (or its ``get_config()`` dict) as a ``v1`` codec named
    ``numcodecs.<id>``, as zarr-python names them in Zarr v3 metadata, so a
    :class:`~zarr_codec_shapes.Chain` can include codecs we do not implement. Filters
    (:data:`ARRAY_FILTERS`) become array -> array codecs, everything else bytes -> bytes."""
    config = dict(codec) if isinstance(codec, dict) else dict(getattr(codec, "get_config", dict)())
    codec_id = config.pop("id", None)
    if not isinstance(codec_id, str):
        raise ConfigurationError(f"{codec!r} is not a numcodecs codec or its configuration")
    made: Codec = _inbound_class(codec_id)(**config)
    return made


@functools.cache
def _inbound_class(codec_id: str) -> type[Any]:
    """One class per numcodecs id, so ``name`` and ``codec_id`` are class attributes as for
    every other codec."""
    base = _NumcodecsArrayCodec if codec_id in ARRAY_FILTERS else _NumcodecsBytesCodec
    attributes = {"name": f"numcodecs.{codec_id}", "codec_id": codec_id}
    return type(f"Numcodecs_{codec_id}", (base,), {**attributes, "__module__": __name__})


class _Inbound:
    """What both inbound kinds share: the numcodecs object and its configuration."""

    name: ClassVar[str]
    codec_id: ClassVar[str | None]

    def __init__(self, **config: Any) -> None:
        import numcodecs

        spec = {"id": self.codec_id, **config}
        self._config = dict(config)
        self._codec = _foreign(self.name, ConfigurationError, lambda: numcodecs.get_codec(spec))

    def configuration(self) -> dict[str, Any]:
        return dict(self._config)

    def to_json(self, zarr_format: ZarrFormat = 3) -> dict[str, Any]:
        if zarr_format == 2:
            return {"id": self.codec_id, **self._config}
        return {"name": self.name, "configuration": dict(self._config)}

    @classmethod
    def from_json(cls, data: Any, zarr_format: ZarrFormat = 3) -> Self:
        name, config = split_codec_json(data, zarr_format)
        codec_id = name if zarr_format == 2 else name.removeprefix("numcodecs.")
        if zarr_format == 3 and not name.startswith("numcodecs."):
            raise ConfigurationError(f"expected a 'numcodecs.<id>' codec, got {name!r}")
        return cast(Self, from_numcodecs({"id": codec_id, **config}))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Inbound):
            return NotImplemented
        return (self.name, self._config) == (other.name, other._config)

    def __hash__(self) -> int:
        return hash((self.name, _freeze(self._config)))

    def __reduce__(self) -> tuple[Any, ...]:
        return (from_numcodecs, ({"id": self.codec_id, **self._config},))


class _NumcodecsBytesCodec(_Inbound, BytesBytesCodecBase):
    """A numcodecs compressor or checksum as a bytes -> bytes codec."""

    def encode(self, data: Buffer, spec: ChunkSpec | None = None) -> bytes:
        view = as_byte_view(data)
        return _bytes(_foreign(self.name, CodecError, lambda: self._codec.encode(view)))

    def decode(self, data: Buffer, spec: ChunkSpec | None = None) -> bytes:
        view = as_byte_view(data)
        return _bytes(_foreign(self.name, CorruptInputError, lambda: self._codec.decode(view)))


class _NumcodecsArrayCodec(_Inbound, ArrayArrayCodecBase):
    """A numcodecs filter as an array -> array codec (flat in, reshaped to the chunk)."""

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        import numpy as np

        sample = np.zeros(1, dtype=spec.numpy_dtype)
        encoded = np.asarray(self._codec.encode(sample))
        encoded_type = DataType.from_numpy(encoded.dtype)
        return ChunkSpec(spec.shape, encoded_type)

    def encode(self, array: Any, spec: ChunkSpec) -> Any:
        import numpy as np

        data = np.ascontiguousarray(array).reshape(-1)
        encoded = _foreign(self.name, CodecError, lambda: self._codec.encode(data))
        return np.asarray(encoded).reshape(spec.shape)

    def decode(self, array: Any, spec: ChunkSpec) -> Any:
        import numpy as np

        data = np.ascontiguousarray(array).reshape(-1)
        decoded = _foreign(self.name, CorruptInputError, lambda: self._codec.decode(data))
        return np.asarray(decoded).view(spec.numpy_dtype).reshape(spec.shape)


def _foreign(name: str, error: type[CodecError], call: Callable[[], Any]) -> Any:
    """``call()``, with any exception numcodecs raises turned into ours (``error``)."""
    try:
        return call()
    except CodecError:
        raise
    except Exception as err:
        raise error(f"{name}: {type(err).__name__}: {err}") from err


def _bytes(result: Any) -> bytes:
    from numcodecs.compat import ensure_bytes

    return bytes(ensure_bytes(result))
