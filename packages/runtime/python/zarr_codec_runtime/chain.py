"""``Chain``: a whole Zarr v3 codec chain run on one chunk or a batch, synchronously, without
zarr-python.

A chain is array -> array codecs, exactly one array -> bytes codec (``bytes`` is built in),
then bytes -> bytes codecs, bound to the spec of its chunks. Binding resolves the spec through
the array codecs, fills in unset parameters (``evolve``, as zarr-python does: blosc's typesize),
and fuses adjacent codecs that offer it (``first.fuse(second)``: scale_offset + cast_value run
as one pass).

It is planned once: when every codec has a compiled kernel, each direction becomes one
:class:`~zarr_codec_runtime.Plan`, and a batch of any size is one call into Rust (the GIL
released, chunks on one work-stealing pool, the last step writing into the caller's memory).
Other chains run codec by codec in Python, each codec's batch method where it has one.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import sys
from collections.abc import Buffer, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from zarr_codec_shapes.bytes_codec import BytesCodec
from zarr_codec_shapes.chunk_spec import ChunkSpec
from zarr_codec_shapes.devices import CPU, require_device
from zarr_codec_shapes.errors import ConfigurationError
from zarr_codec_shapes.protocols import Codec
from zarr_codec_shapes.registry import get_codec

from zarr_codec_runtime._runtime import ChunkGrid, Cut, Plan, Runner, plan_chain
from zarr_codec_runtime.sharding import Sharding
from zarr_codec_runtime.transpose import Transpose

__all__ = ["Chain"]


#: What a read or write is told of its chunks: a :class:`Cut` of the whole array, a
#: :class:`ChunkGrid` and a selection to cut, or each chunk's part (a tuple of slices and
#: integers) and its place (slices), as two lists.
Selections = (
    Cut
    | tuple[ChunkGrid, Sequence[int | slice]]
    | tuple[Sequence[tuple[Any, ...]], Sequence[tuple[Any, ...]]]
)

#: The byte order of this machine, as the ``bytes`` codec spells it.
NATIVE: Literal["little", "big"] = "little" if sys.byteorder == "little" else "big"


@dataclass(frozen=True)
class _Stage:
    """A codec (possibly two fused) and the spec of the array going into it."""

    codec: Any
    spec: ChunkSpec


def _codec_from_json(data: Any) -> Codec:
    name = data.get("name") if isinstance(data, dict) else data
    if name == "sharding_indexed":
        return Sharding.from_json(data, 3)  # type: ignore[return-value]
    if name == "transpose":
        return Transpose.from_json(data, 3)  # type: ignore[return-value]
    if name == "bytes":
        return BytesCodec.from_json(data if isinstance(data, dict) else {"name": "bytes"}, 3)
    return get_codec(data, 3)


def _batch(codec: Any, method: str, items: Sequence[Any], *args: Any) -> list[Any]:
    batched = getattr(codec, f"{method}_batch", None)
    if batched is not None and len(items) > 1:
        return list(batched(items, *args))
    single = getattr(codec, method)
    return [single(item, *args) for item in items]


@functools.cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(os.cpu_count() or 1, thread_name_prefix="zarr-codec-chain")


def _each(fn: Callable[..., object], *columns: Sequence[Any]) -> None:
    """``fn`` on each row of ``columns`` (chains without kernels only: codecs that release the
    GIL run in parallel)."""
    rows = list(zip(*columns, strict=True))
    if len(rows) < 2 or (os.cpu_count() or 1) < 2:
        for row in rows:
            fn(*row)
        return
    for _ in _pool().map(lambda row: fn(*row), rows):
        pass


def _flat(array: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """A C-contiguous array's bytes, as a flat ``uint8`` view."""
    return array.reshape(-1).view(np.uint8)


def _direct_out(array: Any) -> bool:
    """Whether the runtime writes into ``array`` itself: C-contiguous, native byte order."""
    return isinstance(array, np.ndarray) and array.flags.c_contiguous and array.dtype.isnative


class Chain:
    """A Zarr v3 codec chain bound to ``spec``, the shape, data type and fill value of its
    chunks. Build it from codec objects or, with :meth:`from_json`, from the v3 ``codecs``
    list of an array's metadata."""

    def __init__(self, codecs: Sequence[Codec], spec: ChunkSpec) -> None:
        self.spec = spec
        kinds = [getattr(codec, "codec_type", None) for codec in codecs]
        if kinds.count("array_bytes") != 1:
            raise ConfigurationError(
                f"a chain needs exactly one array -> bytes codec, got {kinds.count('array_bytes')}"
            )
        split = kinds.index("array_bytes")
        if any(k != "array_array" for k in kinds[:split]) or any(
            k != "bytes_bytes" for k in kinds[split + 1 :]
        ):
            raise ConfigurationError(
                "a chain is array -> array codecs, one array -> bytes codec, then bytes -> "
                f"bytes codecs; got {kinds}"
            )
        evolved: list[Any] = []
        current = spec
        for position, given in enumerate(codecs):
            evolve = getattr(given, "evolve", None)
            codec: Any = evolve(current) if evolve is not None else given
            evolved.append(codec)
            if position < split:
                current = codec.resolve(current)
        #: The inner and index chains when the chain is ``sharding_indexed`` alone.
        self.shards: tuple[Chain, Chain] | None = None
        if isinstance(evolved[split], Sharding):
            evolved[split], self.shards = self._bind_sharding(evolved[split], len(evolved))
        self.codecs: tuple[Any, ...] = tuple(evolved)
        self.array_stages = self._fuse(evolved[:split], spec)
        #: Whether any adjacent codecs run as one pass.
        self.fused = len(self.array_stages) < split
        self.encoded_spec = current
        self.array_bytes = _Stage(evolved[split], current)
        self.bytes_codecs = tuple(evolved[split + 1 :])

    def _bind_sharding(
        self, sharding: Sharding, codecs: int
    ) -> tuple[Sharding, tuple[Chain, Chain]]:
        """``sharding`` with its inner codecs evolved for its inner chunks, and the chains of
        its inner chunks and of its index."""
        if codecs != 1:
            raise ConfigurationError(
                "the runtime runs sharding_indexed only as the chain's one codec"
            )
        counts = sharding.chunks_per_shard(self.spec.shape)
        inner = Chain(
            sharding.codecs,
            ChunkSpec(sharding.chunk_shape, self.spec.data_type, self.spec.fill_value),
        )
        index = Chain(sharding.index_codecs, ChunkSpec((*counts, 2), "uint64", 2**64 - 1))
        return dataclasses.replace(sharding, codecs=inner.codecs), (inner, index)

    @functools.cached_property
    def runner(self) -> Runner | None:
        """The runtime's runner of this chain's reads and writes (plain or sharded), or
        ``None`` where a codec (or a codec of the shards' inner or index chains) has no
        compiled kernel."""
        dtype, fill = self.spec.numpy_dtype, self._fill_bytes
        if self.shards is None:
            plans = self._plans
            if plans is None:
                return None
            return Runner.chain(*plans, list(self.spec.shape), dtype, fill, self._empty_rule())
        inner_chain, index = self.shards
        inner, sharding = inner_chain.runner, self.array_bytes.codec
        if inner is None or index._plans is None:
            return None
        return Runner.sharded(
            list(self.spec.shape),
            inner,
            index._plans,
            sharding.index_location,
            sharding.write_order,
        )

    @staticmethod
    def _fuse(codecs: Sequence[Any], spec: ChunkSpec) -> tuple[_Stage, ...]:
        stages: list[_Stage] = []
        current, position = spec, 0
        while position < len(codecs):
            codec = codecs[position]
            fuse = getattr(codec, "fuse", None)
            fused = fuse(codecs[position + 1]) if fuse and position + 1 < len(codecs) else None
            stage = _Stage(codec if fused is None else fused, current)
            stages.append(stage)
            current = stage.codec.resolve(current)
            position += 1 if fused is None else 2
        return tuple(stages)

    @classmethod
    def from_json(cls, codecs: Sequence[Any], spec: ChunkSpec) -> Chain:
        """The chain of a v3 ``codecs`` list (every codec from the ``zarr_codec_shapes``
        registry, ``bytes`` built in)."""
        if isinstance(codecs, str | bytes) or not isinstance(codecs, Sequence):
            raise ConfigurationError(f"codecs must be a list of codec objects, got {codecs!r}")
        return cls([_codec_from_json(codec) for codec in codecs], spec)

    def to_json(self) -> list[dict[str, Any]]:
        """The v3 ``codecs`` list, with evolved parameters recorded."""
        return [codec.to_json(3) for codec in self.codecs]

    def __repr__(self) -> str:
        return f"Chain({list(self.codecs)!r}, {self.spec!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its codecs and spec (the compiled plans are made again where it is
        unpickled: a worker process plans its own)."""
        return (Chain, (list(self.codecs), self.spec))

    # -- the plans -----------------------------------------------------------------------

    @property
    def stored_as_is(self) -> bool:
        """Whether a chunk's stored bytes are its elements in native order: the ``bytes``
        codec alone, so a chunk can be read from a file straight into place."""
        return self.decode_plan is not None and len(self.decode_plan) == 0

    @functools.cached_property
    def _plans(self) -> tuple[Plan, Plan] | None:
        """Both directions planned by the runtime's one planner (Rust), from each codec's
        compiled kernels and sizes; ``None`` when a codec has none (the chain then runs codec
        by codec)."""
        endian, compressors = self._element_bytes()
        if endian is False:
            return None
        array: list[tuple[str, object, object, int, int]] = []
        for stage in self.array_stages:
            kernels = _kernels(stage.codec, stage.spec)
            if kernels is None:
                return None
            encoded = stage.codec.resolve(stage.spec).num_bytes
            name = str(getattr(stage.codec, "name", "fused"))
            array.append((name, *kernels, stage.spec.num_bytes, encoded))
        for codec in self.bytes_codecs:
            kernels = _kernels(codec, None)
            if kernels is None:
                return None
            compressors.append((codec.name, *kernels))
        stored = self.encoded_spec
        planned: tuple[Plan, Plan] = plan_chain(
            array,
            endian,
            (stored.num_bytes, stored.data_type.swap_size, stored.data_type.name),
            compressors,
            self.spec.num_bytes,
        )
        return planned

    def _element_bytes(self) -> tuple[Any, list[tuple[str, object, object]]]:
        """How the array -> bytes codec is planned: the ``bytes`` codec's endianness and no
        bytes codec before the chain's own; for a codec that runs as the ``bytes`` codec in
        native order then a bytes codec of the element bytes (``element_bytes_codec(spec)``,
        such as pcodec), the native order and that codec's kernels; ``(False, [])`` where it
        has no such form or no kernels."""
        codec, spec = self.array_bytes.codec, self.array_bytes.spec
        if isinstance(codec, BytesCodec):
            return codec.endian, []
        as_bytes = getattr(codec, "element_bytes_codec", None)
        if as_bytes is None:
            return False, []
        elements = as_bytes(spec)
        kernels = _kernels(elements, None)
        if kernels is None:
            return False, []
        endian = NATIVE if spec.data_type.itemsize > 1 else None
        return endian, [(str(elements.name), *kernels)]

    @functools.cached_property
    def decode_plan(self) -> Plan | None:
        """Decoding, planned for the runtime, or ``None`` when a codec has no kernel."""
        return None if self._plans is None else self._plans[0]

    @functools.cached_property
    def encode_plan(self) -> Plan | None:
        """Encoding, planned for the runtime, or ``None`` when a codec has no kernel."""
        return None if self._plans is None else self._plans[1]

    # -- checks --------------------------------------------------------------------------

    def _matches(self, array: Any) -> bool:
        """Shape and data type of the chain's chunks, in either byte order."""
        if not isinstance(array, np.ndarray):
            require_device(CPU, "zarr_codec_runtime.Chain", array=array)
        dtype = np.asarray(array).dtype
        native = dtype.newbyteorder("=") if dtype.byteorder in "<>" else dtype
        return bool(np.shape(array) == self.spec.shape and native == self.spec.numpy_dtype)

    def _check(self, array: Any) -> np.ndarray[Any, Any]:
        """``array`` in native byte order (copied only when swapped)."""
        if not self._matches(array):
            data = np.asarray(array)
            raise ConfigurationError(
                f"chunk of shape {data.shape} and type {data.dtype} does not match the "
                f"chain's {self.spec.shape} {self.spec.data_type.name}"
            )
        return np.asarray(array, dtype=self.spec.numpy_dtype)

    def _elements(self, arrays: Sequence[Any]) -> list[np.ndarray[Any, Any]]:
        """Each chunk's native C-order element bytes."""
        return [_flat(np.ascontiguousarray(self._check(a))) for a in arrays]

    def _direct(self, outs: Sequence[Any]) -> Plan | None:
        """The decode plan when every ``out`` takes it directly (C-contiguous, native)."""
        plan = self.decode_plan
        if plan is None or not all(_direct_out(out) for out in outs):
            return None
        return plan

    # -- one chunk -----------------------------------------------------------------------

    def encode(self, array: Any) -> Buffer:
        """Encode one chunk (shape and data type of :attr:`spec`) to its stored bytes."""
        return self.encode_batch([array])[0]

    def decode(self, data: Buffer) -> np.ndarray[Any, Any]:
        """Decode one chunk's stored bytes into a new array."""
        return self.decode_batch([data])[0]

    def decode_into(self, data: Buffer, out: Any) -> None:
        """Decode one chunk straight into ``out`` (an array of the chunk's shape and type,
        for example a view of the chunk's place in a larger array)."""
        self.decode_batch_into([data], [out])

    # -- batches -------------------------------------------------------------------------

    def encode_batch(self, arrays: Sequence[Any]) -> list[Buffer]:
        """Encode many chunks: in one runtime call when every codec has a compiled kernel,
        else stage by stage (each codec's batch method where it has one)."""
        plan = self.encode_plan
        if plan is not None:
            return list(plan.run(self._elements(arrays)))
        if self.shards is not None:
            return [self._encode_shard(self._check(array)) for array in arrays]
        data: list[Any] = [self._check(a) for a in arrays]
        for stage in self.array_stages:
            data = _batch(stage.codec, "encode", data, stage.spec)
        data = _batch(self.array_bytes.codec, "encode", data, self.array_bytes.spec)
        for codec in self.bytes_codecs:
            data = _batch(codec, "encode", data)
        return data

    def decode_batch(self, chunks: Sequence[Buffer]) -> list[np.ndarray[Any, Any]]:
        """Decode many chunks into new arrays."""
        if self.decode_plan is not None:
            outs = [np.empty(self.spec.shape, self.spec.numpy_dtype) for _ in chunks]
            self.decode_batch_into(chunks, outs)
            return outs
        if self.shards is not None:
            return [self._decode_shard(chunk) for chunk in chunks]
        data: list[Any] = list(chunks)
        for codec in reversed(self.bytes_codecs):
            data = _batch(codec, "decode", data)
        arrays = _batch(self.array_bytes.codec, "decode", data, self.array_bytes.spec)
        for stage in reversed(self.array_stages):
            arrays = _batch(stage.codec, "decode", arrays, stage.spec)
        return [np.asarray(a) for a in arrays]

    def decode_batch_into(self, chunks: Sequence[Buffer], outs: Sequence[Any]) -> None:
        """Decode many chunks, each into its own ``out`` array (its shape and type)."""
        if len(chunks) != len(outs):
            raise ConfigurationError(f"{len(chunks)} chunks but {len(outs)} outputs")
        for out in outs:
            if not self._matches(out):
                raise ConfigurationError(
                    f"out has shape {np.shape(out)}, the chain's chunks {self.spec.shape} "
                    f"{self.spec.data_type.name}"
                )
        plan = self._direct(outs)
        if plan is not None:
            plan.run_into(list(chunks), [_flat(out) for out in outs])
            return
        decoded = self.decode_batch(chunks) if self.decode_plan is None else None
        if decoded is None:  # a plan, but outputs it cannot write: decode, then copy
            decoded = [np.empty(self.spec.shape, self.spec.numpy_dtype) for _ in chunks]
            self.decode_batch_into(chunks, decoded)
        _each(lambda out, array: np.copyto(out, array), outs, decoded)

    def _whole(self) -> tuple[slice, ...]:
        return tuple(slice(0, n) for n in self.spec.shape)

    def _encode_shard(self, array: np.ndarray[Any, Any]) -> Buffer:
        """One shard with every inner chunk stored (none elided)."""
        whole = ([self._whole()], [self._whole()])
        stored = self.write_buffers(
            [None], whole, np.ascontiguousarray(array), write_empty_chunks=True
        )
        if stored is None or stored[0] is None:
            raise ConfigurationError("sharding_indexed: the runtime cannot encode these shards")
        return stored[0]

    def _decode_shard(self, data: Buffer) -> np.ndarray[Any, Any]:
        out = np.empty(self.spec.shape, self.spec.numpy_dtype)
        if self.read([data], ([self._whole()], [self._whole()]), out) is None:
            raise ConfigurationError("sharding_indexed: the runtime cannot decode these shards")
        return out

    # -- reads into a larger array and writes from one: the runner's (see Runner) ----------
    # Each is the :class:`Runner` method of the same name (documented there) with this chain's
    # runner, or ``None``, with nothing done, where the chain has none.

    def read(
        self, sources: Sequence[Buffer | str | None] | None, selections: Selections, out: Any
    ) -> list[bool] | None:
        """:meth:`Runner.read`: chunk ``i`` (stored bytes, a file's path, ``None`` for a
        missing chunk; ``sources`` ``None``: a cut's keys, as files) decoded, its part put at
        its place in ``out``; whether each chunk was there."""
        runner = self.runner
        return None if runner is None else runner.read(sources, selections, out)

    def read_fetched(
        self,
        fetched: Sequence[tuple[Buffer | None, Sequence[tuple[int, Buffer]]]],
        selections: Selections,
        out: Any,
    ) -> list[bool] | None:
        """:meth:`Runner.read_fetched`: :meth:`read` for shards fetched in parts."""
        runner = self.runner
        if runner is None or not runner.is_sharded:
            return None
        return runner.read_fetched(fetched, selections, out)

    @functools.cached_property
    def _fill_bytes(self) -> bytes:
        """One element of the fill value, native order."""
        return np.full((), self.spec.fill_value, dtype=self.spec.numpy_dtype).tobytes()

    def write_files(
        self,
        paths: Sequence[str | os.PathLike[str]] | None,
        selections: Selections,
        values: Any,
        *,
        write_empty_chunks: bool = False,
    ) -> list[bool] | None:
        """:meth:`Runner.write_files`: each chunk file (``paths`` ``None``: a cut's keys) gets
        the values at its place in ``values``, merged with its old contents where only part
        of it is written; a chunk left all fill value is removed, as zarr-python decides,
        unless ``write_empty_chunks``. Whether each chunk is stored."""
        runner = self.runner
        if runner is None:
            return None
        named = None if paths is None else [os.fspath(path) for path in paths]
        return runner.write_files(named, selections, values, write_empty_chunks)

    def write_buffers(
        self,
        olds: Sequence[Buffer | None],
        selections: Selections,
        values: Any,
        *,
        write_empty_chunks: bool = False,
    ) -> list[Buffer | None] | None:
        """:meth:`Runner.write_buffers`: :meth:`write_files` for chunks kept anywhere else,
        merged with their old stored bytes ``olds[i]`` (``None``: the fill value); each
        chunk's new stored bytes, or ``None`` for a chunk not stored."""
        runner = self.runner
        if runner is None:
            return None
        return runner.write_buffers(list(olds), selections, values, write_empty_chunks)

    def _empty_rule(self) -> str | None:
        """Which chunks a write leaves out, in the runtime's terms: zarr-python's rule (every
        element equal to the fill value, NaNs equal to a NaN fill value), ``None`` where the
        runtime has no such rule (complex numbers, floats it does not know)."""
        dtype = self.spec.numpy_dtype
        if dtype.kind == "c":
            return None
        if dtype.kind == "f" and np.isnan(np.asarray(self.spec.fill_value, dtype=dtype)):
            return "all-nan" if dtype.itemsize in (2, 4, 8) else None
        return "same-bytes"

    # -- chunk files ---------------------------------------------------------------------

    def decode_files_into(
        self, paths: Sequence[str | os.PathLike[str]], outs: Sequence[Any]
    ) -> list[bool] | None:
        """Read each chunk file of ``paths`` and decode it into the matching array of ``outs``
        (whole chunks, C-contiguous and in native byte order), every chunk in Rust in one call
        with the GIL released; whether each file was there (a missing one leaves its ``out``
        untouched). ``None``, with nothing read, when the chain (a codec without a compiled
        kernel) or an ``out`` cannot; ``OSError`` for a file that cannot be read."""
        plan = self._direct(outs)
        if plan is None or not all(self._matches(out) for out in outs):
            return None
        found: list[bool] = plan.run_files_into(
            [os.fspath(path) for path in paths], [_flat(out) for out in outs]
        )
        return found

    def encode_files(self, arrays: Sequence[Any], paths: Sequence[str | os.PathLike[str]]) -> bool:
        """Encode each chunk of ``arrays`` and write it to the matching file of ``paths`` as
        zarr-python's ``LocalStore`` writes one (a temporary file renamed over it, directories
        made as needed), every chunk in Rust in one call with the GIL released. ``False``,
        with nothing written, when the chain (a codec without a compiled kernel) cannot."""
        plan = self.encode_plan
        if plan is None:
            return False
        plan.run_to_files(self._elements(arrays), [os.fspath(path) for path in paths])
        return True


def _kernels(codec: Any, spec: ChunkSpec | None) -> tuple[object, object] | None:
    """A codec's compiled ``(encode, decode)`` kernels, ``None`` when it lacks either."""
    encode, decode = getattr(codec, "encode_kernel", None), getattr(codec, "decode_kernel", None)
    if encode is None or decode is None:
        return None
    kernels = (encode(spec), decode(spec))
    return None if None in kernels else kernels
