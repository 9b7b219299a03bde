"""Adapter: any protocol codec as a zarr-python 3.4 codec class.

zarr-python checks codecs with ``isinstance`` against its own base classes, so the adapter
subclasses them. Use it in a module that zarr's ``zarr.codecs`` entry point names::

    from zarr_codec_shapes.zarr_python import zarr_codec_class
    from my_package import MyCodec

    MyZarrCodec = zarr_codec_class(MyCodec, module=__name__, qualname="MyZarrCodec")

zarr is imported only when :func:`zarr_codec_class` is called, and that call never raises:
an entry point that fails to import would make every array using the codec name unreadable.
If the adapter cannot be built (an incompatible zarr), the class it returns explains why as
soon as zarr tries to use it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Buffer, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from zarr_codec_shapes.chunk_spec import ChunkSpec
from zarr_codec_shapes.data_types import DataType
from zarr_codec_shapes.errors import ConfigurationError, UnsupportedError
from zarr_codec_shapes.protocols import Codec, SupportsBatch, SupportsEncodedSize, SupportsEvolve

if TYPE_CHECKING:
    from zarr.core.array_spec import ArraySpec

__all__ = ["chunk_spec_from_zarr", "select", "unselect", "zarr_codec_class"]

_log = logging.getLogger(__name__)


def chunk_spec_from_zarr(spec: ArraySpec) -> ChunkSpec:
    """Our ``ChunkSpec`` for a zarr-python ``ArraySpec``. A Zarr v2 array's null fill value
    is its data type's default, as zarr-python reads and pads chunks with it (not NaN)."""
    name = spec.dtype.to_json(zarr_format=3)
    try:
        data_type = DataType.from_name(name)
    except ConfigurationError:
        raise UnsupportedError(
            f"data type {name!r} is not supported by zarr-codec-shapes codecs"
        ) from None
    value = spec.fill_value
    if value is None:
        value = spec.dtype.default_scalar()
    fill = np.asarray(value, dtype=data_type.numpy_dtype)[()]
    return ChunkSpec(spec.shape, data_type, fill)


@dataclass(frozen=True)
class _Selection:
    """What :func:`select` replaced: the config entry (absent: empty) and whether the class
    was already registered (by its entry point), so that :func:`unselect` restores both."""

    config: list[Any]
    registered: bool
    #: Whether zarr had a registry for the name (else :func:`select` made it).
    existed: bool = True


_selected: dict[str, _Selection] = {}  # by codec name, while selected

_PLAIN_KEYS = frozenset({"name", "configuration"})


def _config_path(cls: type[Any]) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def select(name: str, cls: type[Any]) -> bool:
    """Make zarr-python use ``cls`` for codec ``name``: registered, and named by zarr's config
    (``codecs.<name>``). For codecs zarr ships itself without a config entry (cast_value,
    scale_offset), where a registered entry point would make zarr warn and pick either.
    Idempotent; :func:`unselect` undoes it exactly. Returns whether ``name`` was not selected
    before (so a caller that selects for a while knows whether to unselect)."""
    import zarr
    from zarr.registry import _codec_registries, register_codec

    path = _config_path(cls)
    newly = name not in _selected
    if newly:
        registry = _codec_registries.get(name)
        if registry is not None:
            registry.lazy_load()  # entry points first, so we know what was registered before
        codecs = zarr.config.get("codecs", {})
        _selected[name] = _Selection(
            config=[codecs[name]] if name in codecs else [],
            registered=registry is not None and path in registry,
            existed=registry is not None,
        )
    register_codec(name, cls)
    _set_config_entry(name, path)
    return newly


def unselect(name: str, cls: type[Any]) -> None:
    """Undo :func:`select`: zarr's registry and config entry as they were (idempotent)."""
    import zarr
    from zarr.registry import _codec_registries

    selection = _selected.pop(name, None)
    if selection is None:
        return
    path = _config_path(cls)
    if not selection.registered and name in _codec_registries:
        _codec_registries[name].pop(path, None)
        if not selection.existed and not _codec_registries[name]:
            del _codec_registries[name]
    if zarr.config.get("codecs", {}).get(name) == path:
        _set_config_entry(name, *selection.config)


def _set_config_entry(name: str, *path: str) -> None:
    """Set (or with no ``path``, remove) zarr's ``codecs.<name>`` entry. The whole table is
    replaced: ``{"codecs.<name>": ...}`` would split a dotted name such as
    ``numcodecs.fixedscaleoffset`` into nested keys."""
    import zarr

    codecs = {key: value for key, value in zarr.config.get("codecs", {}).items() if key != name}
    if path:
        codecs[name] = path[0]
    zarr.config.set({"codecs": codecs})


def _array_spec_from(spec: ChunkSpec, like: ArraySpec) -> ArraySpec:
    from zarr.core.array_spec import ArraySpec
    from zarr.core.dtype import get_data_type_from_json

    zdtype = get_data_type_from_json(spec.data_type.name, zarr_format=3)
    fill = zdtype.from_json_scalar(spec.fill_value_json(), zarr_format=3)
    return ArraySpec(
        shape=spec.shape,
        dtype=zdtype,
        fill_value=fill,
        config=like.config,
        prototype=like.prototype,
    )


def _as_uint8(data: Buffer) -> np.ndarray[Any, np.dtype[np.uint8]]:
    """A flat uint8 view of a codec's output buffer (no copy for contiguous output)."""
    if isinstance(data, np.ndarray) and data.dtype == np.uint8 and data.ndim == 1:
        return data
    return np.frombuffer(data, dtype=np.uint8)


def zarr_codec_class(codec_cls: type[Codec], *, module: str, qualname: str) -> type[Any]:
    """A zarr-python codec class wrapping ``codec_cls``; never raises.

    ``module`` and ``qualname`` must name where the result is stored, so that zarr's config
    (``zarr.config.set({"codecs.<name>": "<module>.<qualname>"})``) and pickle can find it.
    """
    try:
        cls = _build(codec_cls)
    except Exception as err:
        _log.warning("cannot adapt %r to zarr-python: %s", codec_cls, err)
        cls = _unavailable(codec_cls, f"{type(err).__name__}: {err}")
    cls.__module__ = module
    cls.__qualname__ = qualname
    cls.__name__ = qualname.rsplit(".", 1)[-1]
    return cls


def _unavailable(codec_cls: type[Codec], reason: str) -> type[Any]:
    class Unavailable:
        codec_name = getattr(codec_cls, "name", "?")

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            raise ConfigurationError(
                f"codec {self.codec_name!r} cannot be used with this zarr-python: {reason}"
            )

        @classmethod
        def from_dict(cls, data: Any) -> Any:
            return cls()

    return Unavailable


def _build(codec_cls: type[Codec]) -> type[Any]:
    from zarr.abc import codec as zarr_abc

    kind: Any = getattr(codec_cls, "codec_type", None)
    base = {
        "bytes_bytes": zarr_abc.BytesBytesCodec,
        "array_array": zarr_abc.ArrayArrayCodec,
        "array_bytes": zarr_abc.ArrayBytesCodec,
    }[kind]
    body = {"bytes_bytes": _BytesBytes, "array_array": _ArrayArray, "array_bytes": _ArrayBytes}
    return type(codec_cls.__name__, (body[kind], _Common, base), {"codec_class": codec_cls})


class _Common:
    """What every adapted codec shares: construction, JSON, value semantics, async."""

    codec_class: type[Codec]
    codec: Any

    @property
    def is_fixed_size(self) -> bool:
        """Whether the encoded size follows from the input size alone (zarr's sharding codec
        accepts only such codecs for its index)."""
        return isinstance(self.codec, SupportsEncodedSize)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # The codec's own constructor, defaults included, as zarr's built-ins take them.
        factory: Any = self.codec_class
        try:
            inner = factory(*args, **kwargs)
        except TypeError as err:  # an unknown or missing argument: a configuration problem
            raise ConfigurationError(f"{getattr(factory, 'name', factory)}: {err}") from None
        object.__setattr__(self, "codec", inner)

    @classmethod
    def wrap(cls, codec: Codec) -> Any:
        """Adapt an existing codec instance."""
        self = object.__new__(cls)
        object.__setattr__(self, "codec", codec)
        return self

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        # A codec may accept what zarr-python's own class accepts from users (left-out keys
        # that it resolves from the array); what it writes back is always complete.
        lenient = getattr(cls.codec_class, "from_zarr_python_configuration", None)
        if lenient is not None and isinstance(data, dict) and set(data) <= _PLAIN_KEYS:
            return cls.wrap(lenient(dict(data.get("configuration") or {})))
        return cls.wrap(cls.codec_class.from_json(data, 3))

    def to_dict(self) -> dict[str, Any]:
        json: dict[str, Any] = self.codec.to_json(3)
        return json

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and bool(self.codec == other.codec)

    def __hash__(self) -> int:
        return hash((type(self), self.codec))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.codec!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # The codec object itself, not its JSON: a configuration still to be resolved from
        # the array (blosc's typesize and shuffle) has no v3 JSON yet, and pickles all the same.
        return (type(self).wrap, (self.codec,))

    def evolve_from_array_spec(self, array_spec: ArraySpec) -> Any:
        if not isinstance(self.codec, SupportsEvolve):
            return self
        try:
            spec = chunk_spec_from_zarr(array_spec)
        except UnsupportedError:
            if getattr(self.codec, "codec_type", None) != "bytes_bytes" or hasattr(
                array_spec.dtype, "item_size"
            ):
                # A data type we have no ChunkSpec for (zarr's fixed-length bytes, structs): a
                # codec whose configuration is complete needs nothing from it; an incomplete
                # one says so when its metadata is written.
                return self
            # Variable-length elements (strings): a bytes codec sees bytes, as zarr-python's
            # own codecs do (an element size of 1).
            spec = ChunkSpec(tuple(array_spec.shape), DataType.UINT8, 0)
        evolved: Any = self.codec.evolve(spec)
        return self.wrap(evolved)

    def _encode_sync(self, chunk: Any, spec: ArraySpec) -> Any:
        raise NotImplementedError

    def _decode_sync(self, chunk: Any, spec: ArraySpec) -> Any:
        raise NotImplementedError

    # Codecs release the GIL in their sync methods, so a worker thread runs them in parallel.
    async def _decode_single(self, chunk: Any, spec: ArraySpec) -> Any:
        return await asyncio.to_thread(self._decode_sync, chunk, spec)

    async def _encode_single(self, chunk: Any, spec: ArraySpec) -> Any:
        return await asyncio.to_thread(self._encode_sync, chunk, spec)

    def compute_encoded_size(self, input_byte_length: int, chunk_spec: ArraySpec) -> int:
        if isinstance(self.codec, SupportsEncodedSize):
            return self.codec.encoded_size(input_byte_length)
        raise NotImplementedError(f"{self.codec!r} has no fixed encoded size")


class _BytesBytes:
    codec: Any

    # A codec with batch methods gets zarr's whole batch in one worker-thread call, which
    # spreads it over its own threads with the GIL released: one hop instead of one per chunk.
    # Anything else goes to zarr's own per-chunk batching (the next class in the MRO).
    async def decode(self, chunks_and_specs: Iterable[tuple[Any, ArraySpec]]) -> Iterable[Any]:
        pairs = list(chunks_and_specs)
        if _batchable(self.codec, pairs):
            return await _run_batch(self.codec.decode_batch, pairs)
        return await super().decode(pairs)  # type: ignore[misc,no-any-return]

    async def encode(self, chunks_and_specs: Iterable[tuple[Any, ArraySpec]]) -> Iterable[Any]:
        pairs = list(chunks_and_specs)
        if _batchable(self.codec, pairs):
            return await _run_batch(self.codec.encode_batch, pairs)
        return await super().encode(pairs)  # type: ignore[misc,no-any-return]

    def _decode_sync(self, chunk_bytes: Any, chunk_spec: ArraySpec) -> Any:
        out = self.codec.decode(chunk_bytes.as_array_like())
        return chunk_spec.prototype.buffer.from_array_like(_as_uint8(out))

    def _encode_sync(self, chunk_bytes: Any, chunk_spec: ArraySpec) -> Any:
        out = self.codec.encode(chunk_bytes.as_array_like())
        return chunk_spec.prototype.buffer.from_array_like(_as_uint8(out))


def _batchable(codec: Any, pairs: list[tuple[Any, ArraySpec]]) -> bool:
    present = sum(chunk is not None for chunk, _ in pairs)
    return present > 1 and isinstance(codec, SupportsBatch)


async def _run_batch(run: Any, pairs: list[tuple[Any, ArraySpec]]) -> list[Any]:
    """``run`` (a codec's ``*_batch``) over the chunks present; ``None`` stays ``None``."""
    present = [(i, chunk, spec) for i, (chunk, spec) in enumerate(pairs) if chunk is not None]
    outputs = await asyncio.to_thread(run, [chunk.as_array_like() for _, chunk, _ in present])
    results: list[Any] = [None] * len(pairs)
    for (i, _, spec), out in zip(present, outputs, strict=True):
        results[i] = spec.prototype.buffer.from_array_like(_as_uint8(out))
    return results


class _ArrayArray:
    codec: Any
    #: Element by element: as many elements out as in.
    is_fixed_size = True

    def resolve_metadata(self, chunk_spec: ArraySpec) -> ArraySpec:
        resolved = self.codec.resolve(chunk_spec_from_zarr(chunk_spec))
        return _array_spec_from(resolved, chunk_spec)

    def _decode_sync(self, chunk_array: Any, chunk_spec: ArraySpec) -> Any:
        spec = chunk_spec_from_zarr(chunk_spec)
        out = self.codec.decode(chunk_array.as_ndarray_like(), spec)
        return chunk_spec.prototype.nd_buffer.from_ndarray_like(out)

    def _encode_sync(self, chunk_array: Any, chunk_spec: ArraySpec) -> Any:
        spec = chunk_spec_from_zarr(chunk_spec)
        out = self.codec.encode(chunk_array.as_ndarray_like(), spec)
        return chunk_spec.prototype.nd_buffer.from_ndarray_like(out)

    def compute_encoded_size(self, input_byte_length: int, chunk_spec: ArraySpec) -> int:
        spec = chunk_spec_from_zarr(chunk_spec)
        resolved = self.codec.resolve(spec)
        count = input_byte_length // spec.data_type.itemsize
        return count * int(resolved.data_type.itemsize)


class _ArrayBytes:
    codec: Any

    def _decode_sync(self, chunk_bytes: Any, chunk_spec: ArraySpec) -> Any:
        spec = chunk_spec_from_zarr(chunk_spec)
        out = self.codec.decode(chunk_bytes.as_array_like(), spec)
        return chunk_spec.prototype.nd_buffer.from_ndarray_like(out)

    def _encode_sync(self, chunk_array: Any, chunk_spec: ArraySpec) -> Any:
        spec = chunk_spec_from_zarr(chunk_spec)
        out = self.codec.encode(chunk_array.as_ndarray_like(), spec)
        return chunk_spec.prototype.buffer.from_array_like(_as_uint8(out))
