"""Adapter: a protocol codec as a numcodecs codec (Zarr v2 compressors and filters).

Bytes codecs become compressors; array codecs whose v2 configuration names their data types
(such as ``fixedscaleoffset``) become filters, given numcodecs' flat buffers and returning arrays.

numcodecs is imported only when a function here is called. numcodecs registers its own codecs
before any entry point, so an entry point can never replace its ``gzip`` or ``blosc``;
:func:`register` does that explicitly, and :func:`unregister` puts the original back.
"""

from __future__ import annotations

import threading
from typing import Any

from zarr_codec.errors import ConfigurationError
from zarr_codec.protocols import Codec

__all__ = ["numcodecs_codec_class", "register", "unregister"]

_replaced: dict[str, Any] = {}  # codec id -> the class registered before ours (None: none)
_lock = threading.Lock()


def numcodecs_codec_class(codec_cls: type[Codec], *, module: str, qualname: str) -> type[Any]:
    """A ``numcodecs.abc.Codec`` subclass wrapping ``codec_cls``: a bytes codec, or an array
    codec that needs no chunk spec (it views numcodecs' flat buffers as its own data types).

    ``module`` and ``qualname`` must name where the result is stored (pickle finds it there).
    """
    from numcodecs.abc import Codec as NumcodecsCodec

    name: Any = getattr(codec_cls, "name", codec_cls)
    codec_id: Any = getattr(codec_cls, "codec_id", None)
    if not isinstance(codec_id, str):
        raise ConfigurationError(f"codec {name!r} has no Zarr v2 id")
    codec_type = getattr(codec_cls, "codec_type", None)
    if codec_type not in ("bytes_bytes", "array_array"):
        raise ConfigurationError(f"codec {name!r} is neither bytes->bytes nor array->array")
    # numcodecs hands filters any buffer (bytes, arrays of other types): flat numpy arrays.
    as_input: Any = _flat_array if codec_type == "array_array" else _unchanged
    factory: Any = codec_cls

    class Adapter(NumcodecsCodec):  # type: ignore[misc]
        codec_class = codec_cls

        codec: Any

        def __init__(self, *args: Any, **config: Any) -> None:
            if not args:  # keywords are v2 configuration, with the v2 defaults
                self.codec = codec_cls.from_json({"id": codec_id, **config}, 2)
                return
            try:  # positional arguments, as numcodecs' own classes take them
                self.codec = factory(*args, **config)
            except TypeError as err:
                raise ConfigurationError(f"{name}: {err}") from None

        @classmethod
        def wrap(cls, codec: Codec) -> Adapter:
            """Adapt an existing codec instance."""
            self = cls.__new__(cls)
            self.codec = codec
            return self

        def encode(self, buf: Any) -> Any:
            return self.codec.encode(as_input(buf))

        def decode(self, buf: Any, out: Any = None) -> Any:
            if out is None:
                return self.codec.decode(as_input(buf))
            if codec_type == "array_array":
                from numcodecs.compat import ndarray_copy

                return ndarray_copy(self.codec.decode(as_input(buf)), out)
            self.codec.decode_into(buf, out)
            return out

        def get_config(self) -> dict[str, Any]:
            config: dict[str, Any] = self.codec.to_json(2)
            return config

        @classmethod
        def from_config(cls, config: dict[str, Any]) -> Adapter:
            # numcodecs.get_codec removes "id" before calling this; get_config keeps it.
            return cls.wrap(codec_cls.from_json({"id": codec_id, **config}, 2))

        def __eq__(self, other: object) -> bool:
            return type(self) is type(other) and self.codec == other.codec

        def __hash__(self) -> int:
            return hash((type(self), self.codec))

        def __repr__(self) -> str:
            return f"{type(self).__name__}({self.codec!r})"

        def __reduce__(self) -> tuple[Any, ...]:
            return (type(self).from_config, (self.get_config(),))

    Adapter.codec_id = codec_id
    Adapter.__module__ = module
    Adapter.__qualname__ = qualname
    Adapter.__name__ = qualname.rsplit(".", 1)[-1]
    return Adapter


def _unchanged(buf: Any) -> Any:
    return buf


def _flat_array(buf: Any) -> Any:
    from numcodecs.compat import ensure_ndarray_like

    return ensure_ndarray_like(buf).reshape(-1, order="A")


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
