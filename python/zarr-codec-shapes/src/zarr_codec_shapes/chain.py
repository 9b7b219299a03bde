"""``Chain``: a whole Zarr v3 codec chain run on one chunk or a batch, synchronously, without
zarr-python.

A chain is array -> array codecs, exactly one array -> bytes codec (``bytes`` is built in),
then bytes -> bytes codecs, bound to the spec of its chunks. Binding resolves the spec through
the array codecs, fills in unset parameters (``evolve``, as zarr-python does: blosc's typesize),
and fuses adjacent codecs that offer it (``first.fuse(second)``: scale_offset + cast_value run
as one pass). Decoding can go straight into the caller's array, such as the chunk's slot in the
output. Batches go stage by stage through each codec's ``*_batch`` methods, which run in
parallel with the GIL released where the codec has them.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from collections import deque
from collections.abc import Buffer, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

import numpy as np

from zarr_codec_shapes.bytes_codec import BytesCodec
from zarr_codec_shapes.chunk_spec import ChunkSpec
from zarr_codec_shapes.errors import ConfigurationError, CorruptInputError
from zarr_codec_shapes.protocols import ChainFileRunners, ChainRunner, Codec
from zarr_codec_shapes.registry import get_codec

__all__ = ["Chain"]


@dataclass(frozen=True)
class _Stage:
    """A codec (possibly two fused) and the spec of the array going into it."""

    codec: Any
    spec: ChunkSpec


def _codec_from_json(data: Any) -> Codec:
    name = data.get("name") if isinstance(data, dict) else data
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
def file_runners() -> ChainFileRunners | None:
    """The chain runners on chunk files: the module of the first ``zarr_codec_shapes.runners`` entry
    point (each of our wheels registers its compiled module) that loads; ``None`` with none
    installed. Any wheel's runners run any wheel's kernels."""
    from importlib.metadata import entry_points

    for point in sorted(entry_points(group="zarr_codec_shapes.runners"), key=lambda p: p.name):
        try:
            module = point.load()
        except Exception:
            continue
        if isinstance(module, ChainFileRunners):
            return module
    return None


_pools: dict[bool, ThreadPoolExecutor] = {}
_pool_lock = threading.Lock()


def each_in_parallel(fn: Callable[..., object], *columns: Sequence[Any], io: bool = False) -> None:
    """``fn`` on each row of ``columns``, on a thread pool when there are several rows: the
    copies into a chunk's place in the output release the GIL, so they run in parallel.

    Each worker takes a contiguous run of rows, front to back, then helps the others from the
    back of their runs: neighbouring chunks (neighbouring pages of the output) stay on one
    thread, and one task per worker, not per row, goes through the pool.

    ``io``: the rows mostly wait on files, so a larger pool runs them (on one core too),
    sized as Python's default executor, which zarr's own file writes run on. They are taken
    in order from one queue, as zarr's own writes are, so files are written in key order."""
    rows = list(zip(*columns, strict=True))
    cpus = os.cpu_count() or 1
    if len(rows) < 2 or (cpus < 2 and not io):
        for row in rows:
            fn(*row)
        return
    size = min(32, cpus + 4) if io else cpus
    with _pool_lock:
        pool = _pools.get(io)
        if pool is None:
            pool = _pools[io] = ThreadPoolExecutor(size, thread_name_prefix="zarr-codec-chain")
    workers = min(len(rows), size)
    count = 1 if io else workers
    runs = [
        deque(rows[r * len(rows) // count : (r + 1) * len(rows) // count]) for r in range(count)
    ]
    failed = threading.Event()

    def work(worker: int) -> None:
        # deque.popleft and pop are atomic, so each row runs exactly once.
        own = worker % count
        for run in (runs[own], *runs[own + 1 :], *runs[:own]):
            take = run.popleft if run is runs[own] else run.pop
            while not failed.is_set():
                try:
                    row = take()
                except IndexError:
                    break
                try:
                    fn(*row)
                except BaseException:
                    failed.set()  # the others stop taking rows; result() raises this
                    raise

    futures = [pool.submit(work, w) for w in range(workers)]
    wait(futures)  # every worker done with its rows before an error is raised
    for future in futures:
        future.result()


#: The byte order of this machine, as the ``bytes`` codec spells it.
NATIVE = "little" if sys.byteorder == "little" else "big"


def _decode_whole(codec: Any, data: Buffer, out: np.ndarray[Any, Any]) -> None:
    """Decode ``data`` into all of ``out``'s bytes; a chunk that decodes short is corrupt."""
    target = out.reshape(-1).view(np.uint8)
    _check_whole(codec, codec.decode_into(data, target), target.size)


def _decode_all_whole(
    codec: Any, chunks: Sequence[Buffer], outs: Sequence[np.ndarray[Any, Any]]
) -> None:
    """:func:`_decode_whole` for a batch: one call to the codec's ``decode_batch_into``
    (parallel, GIL released) when it has one, else a pool task per chunk."""
    batch_into = getattr(codec, "decode_batch_into", None)
    if batch_into is None:
        each_in_parallel(lambda data, out: _decode_whole(codec, data, out), chunks, outs)
        return
    targets = [out.reshape(-1).view(np.uint8) for out in outs]
    for written, target in zip(batch_into(chunks, targets), targets, strict=True):
        _check_whole(codec, written, target.size)


def _check_whole(codec: Any, written: int, expected: int) -> None:
    if written != expected:
        raise CorruptInputError(
            f"{codec.name}: the chunk decodes to {written} bytes, {expected} expected"
        )


def _c_contiguous(array: Any) -> bool:
    return isinstance(array, np.ndarray) and array.flags.c_contiguous


def _native(array: Any) -> bool:
    return bool(np.asarray(array).dtype.isnative)


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
        self.codecs: tuple[Any, ...] = tuple(evolved)
        self.array_stages = self._fuse(evolved[:split], spec)
        self.encoded_spec = current
        self.array_bytes = _Stage(evolved[split], current)
        self.bytes_codecs = tuple(evolved[split + 1 :])

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
        """The chain of a v3 ``codecs`` list (every codec from the ``zarr_codec_shapes`` registry,
        ``bytes`` built in)."""
        if isinstance(codecs, str | bytes) or not isinstance(codecs, Sequence):
            raise ConfigurationError(f"codecs must be a list of codec objects, got {codecs!r}")
        return cls([_codec_from_json(codec) for codec in codecs], spec)

    def to_json(self) -> list[dict[str, Any]]:
        """The v3 ``codecs`` list, with evolved parameters recorded."""
        return [codec.to_json(3) for codec in self.codecs]

    @property
    def fused(self) -> bool:
        """Whether any adjacent codecs run as one pass."""
        return len(self.array_stages) < self.array_bytes_index

    @property
    def array_bytes_index(self) -> int:
        """The position of the array -> bytes codec in :attr:`codecs`."""
        return next(i for i, c in enumerate(self.codecs) if c.codec_type == "array_bytes")

    def __repr__(self) -> str:
        return f"Chain({list(self.codecs)!r}, {self.spec!r})"

    # -- one chunk -----------------------------------------------------------------------

    def _matches(self, array: Any) -> bool:
        """Shape and data type of the chain's chunks, in either byte order."""
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

    def encode(self, array: Any) -> Buffer:
        """Encode one chunk (shape and data type of :attr:`spec`) to its stored bytes."""
        compiled = self._encode_with_kernels([array])
        if compiled is not None:
            return compiled[0]
        data: Any = self._check(array)
        for stage in self.array_stages:
            data = stage.codec.encode(data, stage.spec)
        encoded: Any = self.array_bytes.codec.encode(data, self.array_bytes.spec)
        for codec in self.bytes_codecs:
            encoded = codec.encode(encoded)
        return encoded  # type: ignore[no-any-return]

    def _to_array_bytes(self, data: Buffer) -> Any:
        for codec in reversed(self.bytes_codecs):
            data = codec.decode(data)
        return data

    def decode(self, data: Buffer) -> np.ndarray[Any, Any]:
        """Decode one chunk's stored bytes into a new array."""
        array: Any = self.array_bytes.codec.decode(
            self._to_array_bytes(data), self.array_bytes.spec
        )
        for stage in reversed(self.array_stages):
            array = stage.codec.decode(array, stage.spec)
        return np.asarray(array)

    def decode_into(self, data: Buffer, out: Any) -> None:
        """Decode one chunk straight into ``out`` (an array of the chunk's shape and type,
        for example a view of the chunk's place in a larger array)."""
        if not self._matches(out):
            raise ConfigurationError(
                f"out has shape {np.shape(out)}, the chain's chunks {self.spec.shape} "
                f"{self.spec.data_type.name}"
            )
        if not _native(out):  # the codecs write native elements: swap on the way in
            np.copyto(out, self.decode(data))
            return
        if self._straight_into([out]):  # the compressor writes straight into `out`
            _decode_whole(self.bytes_codecs[0], data, out)
            return
        if self._run_kernels([data], [out]):
            return
        raw = self._to_array_bytes(data)
        if not self.array_stages:
            self.array_bytes.codec.decode_into(raw, out, self.array_bytes.spec)
            return
        array: Any = self.array_bytes.codec.decode(raw, self.array_bytes.spec)
        for stage in reversed(self.array_stages[1:]):
            array = stage.codec.decode(array, stage.spec)
        first = self.array_stages[0]
        first.codec.decode_into(array, out, first.spec)

    # -- whole chains in Rust ------------------------------------------------------------

    @functools.cached_property
    def _kernel_steps(self) -> tuple[list[tuple[str, object, int]], ChainRunner] | None:
        """The chain's decoding as compiled kernel steps and a runner for them, when every
        codec has a kernel (:class:`~zarr_codec_shapes.protocols.SupportsDecodeKernel`) and each
        step's output size is known (at most one bytes -> bytes codec); else ``None``."""
        codec = self.array_bytes.codec
        if len(self.bytes_codecs) > 1 or not isinstance(codec, BytesCodec):
            return None
        runners: list[ChainRunner] = []

        def kernel(codec: Any, spec: ChunkSpec | None) -> object | None:
            make = getattr(codec, "decode_kernel", None)
            if make is None:
                return None
            made: object
            made, runner = make(spec)
            runners.append(runner)
            return made

        steps: list[tuple[str, object, int]] = []
        for bytes_codec in self.bytes_codecs:
            made = kernel(bytes_codec, None)
            if made is None:
                return None
            steps.append((bytes_codec.name, made, self.encoded_spec.num_bytes))
        size = self.encoded_spec.data_type.itemsize
        if size > 1 and codec.endian != NATIVE:
            if codec.endian is None:
                return None  # the Python path raises the ConfigurationError
            steps.append(("bytes", size, 0))
        for stage in reversed(self.array_stages):
            made = kernel(stage.codec, stage.spec)
            if made is None:
                return None
            steps.append((getattr(stage.codec, "name", "fused"), made, stage.spec.num_bytes))
        if not runners:
            return None
        return steps, runners[0]

    @functools.cached_property
    def _encode_kernel_steps(self) -> tuple[list[tuple[str, object, int]], ChainRunner] | None:
        """The chain's encoding as compiled kernel steps and a runner for them, when every
        codec has an encode kernel (:class:`~zarr_codec_shapes.protocols.SupportsEncodeKernel`) and
        there is one to run; else ``None``."""
        codec = self.array_bytes.codec
        if not isinstance(codec, BytesCodec):
            return None
        runners: list[ChainRunner] = []

        def kernel(codec: Any, spec: ChunkSpec | None) -> object | None:
            make = getattr(codec, "encode_kernel", None)
            made: tuple[object, ChainRunner] | None = None if make is None else make(spec)
            if made is None:
                return None
            runners.append(made[1])
            return made[0]

        steps: list[tuple[str, object, int]] = []
        for stage in self.array_stages:
            made = kernel(stage.codec, stage.spec)
            if made is None:
                return None
            encoded = stage.codec.resolve(stage.spec)
            steps.append((getattr(stage.codec, "name", "fused"), made, encoded.num_bytes))
        size = self.encoded_spec.data_type.itemsize
        if size > 1 and codec.endian != NATIVE:
            if codec.endian is None:
                return None  # the Python path raises the ConfigurationError
            steps.append(("bytes", size, 0))
        for bytes_codec in self.bytes_codecs:
            made = kernel(bytes_codec, None)
            if made is None:
                return None
            steps.append((bytes_codec.name, made, -1))
        if not runners:
            return None
        return steps, runners[0]

    def _encode_with_kernels(self, arrays: Sequence[Any]) -> list[Buffer] | None:
        """``arrays`` encoded through the compiled kernels in one call with the GIL released,
        or ``None`` (nothing done) when this chain cannot."""
        compiled = self._encode_kernel_steps
        if compiled is None:
            return None
        steps, runner = compiled
        chunks = [np.ascontiguousarray(self._check(a)).reshape(-1).view(np.uint8) for a in arrays]
        encoded: list[Buffer] = runner(steps, chunks)
        return encoded

    def _run_kernels(self, chunks: Sequence[Buffer], outs: Sequence[Any]) -> bool:
        """Decode ``chunks`` into ``outs`` through the compiled kernels, in one call with the
        GIL released; ``False`` (nothing done) when this chain or these outputs cannot."""
        compiled = self._kernel_steps
        if compiled is None or not all(_c_contiguous(out) and _native(out) for out in outs):
            return False
        steps, runner = compiled
        if not self.bytes_codecs:  # the first kernel reads the stored elements themselves
            expected = self.encoded_spec.num_bytes
            for chunk in chunks:
                if (size := memoryview(chunk).nbytes) != expected:
                    spec = self.encoded_spec
                    raise CorruptInputError(
                        f"bytes: a {spec.shape} {spec.data_type.name} chunk is {expected} "
                        f"bytes, got {size}"
                    )
        runner(steps, list(chunks), [out.reshape(-1).view(np.uint8) for out in outs])
        return True

    # -- chunk files ---------------------------------------------------------------------

    def decode_files_into(
        self, paths: Sequence[str | os.PathLike[str]], outs: Sequence[Any]
    ) -> list[bool] | None:
        """Read each chunk file of ``paths`` and decode it into the matching array of ``outs``
        (whole chunks, C-contiguous and in native byte order), every chunk in Rust in one call
        with the GIL released; whether each file was there (a missing one leaves its ``out``
        untouched). ``None``, with nothing read, when the chain (a codec without a compiled
        kernel) or an ``out`` cannot; ``OSError`` for a file that cannot be read."""
        runners = file_runners()
        if runners is None or not all(
            self._matches(out) and _c_contiguous(out) and _native(out) for out in outs
        ):
            return None
        steps: list[tuple[str, object, int]] = []
        stored_len = None
        if not self.stored_as_is:
            compiled = self._kernel_steps
            if compiled is None:
                return None
            steps = compiled[0]
            if not self.bytes_codecs:  # the first kernel reads the stored elements themselves
                stored_len = self.encoded_spec.num_bytes
        return runners.decode_chain_files_into(
            steps,
            [os.fspath(path) for path in paths],
            [out.reshape(-1).view(np.uint8) for out in outs],
            stored_len,
        )

    def encode_files(self, arrays: Sequence[Any], paths: Sequence[str | os.PathLike[str]]) -> bool:
        """Encode each chunk of ``arrays`` and write it to the matching file of ``paths`` as
        zarr-python's ``LocalStore`` writes one (a temporary file renamed over it, directories
        made as needed), every chunk in Rust in one call with the GIL released. ``False``,
        with nothing written, when the chain (a codec without a compiled kernel) cannot."""
        runners = file_runners()
        if runners is None:
            return False
        steps: list[tuple[str, object, int]] = []
        if not self.stored_as_is:
            compiled = self._encode_kernel_steps
            if compiled is None:
                return False
            steps = compiled[0]
        chunks = [np.ascontiguousarray(self._check(a)).reshape(-1).view(np.uint8) for a in arrays]
        runners.encode_chain_files(steps, chunks, [os.fspath(path) for path in paths])
        return True

    # -- batches -------------------------------------------------------------------------

    @property
    def stored_as_is(self) -> bool:
        """Whether a chunk's stored bytes are its elements in native order: the ``bytes``
        codec alone, so a chunk can be read from a file straight into place."""
        codec = self.array_bytes.codec
        return (
            not self.array_stages
            and not self.bytes_codecs
            and isinstance(codec, BytesCodec)
            and (codec.endian == NATIVE or self.spec.data_type.itemsize == 1)
        )

    def _straight_into(self, outs: Sequence[Any]) -> bool:
        """Whether a chunk's stored bytes decompress straight into ``out``'s memory: one
        bytes codec after ``bytes`` in native order, no array codecs, and every ``out`` a
        C-contiguous native array."""
        codec = self.array_bytes.codec
        return (
            not self.array_stages
            and len(self.bytes_codecs) == 1
            and isinstance(codec, BytesCodec)
            and (codec.endian == NATIVE or self.spec.data_type.itemsize == 1)
            and all(_c_contiguous(out) and _native(out) for out in outs)
        )

    def encode_batch(self, arrays: Sequence[Any]) -> list[Buffer]:
        """Encode many chunks: through every codec in Rust when they all have compiled
        kernels, else stage by stage (each codec's batch method where it has one)."""
        compiled = self._encode_with_kernels(arrays)
        if compiled is not None:
            return compiled
        data: list[Any] = [self._check(a) for a in arrays]
        for stage in self.array_stages:
            data = _batch(stage.codec, "encode", data, stage.spec)
        data = _batch(self.array_bytes.codec, "encode", data, self.array_bytes.spec)
        for codec in self.bytes_codecs:
            data = _batch(codec, "encode", data)
        return data

    def _batch_to_array_bytes(self, chunks: Sequence[Buffer]) -> list[Any]:
        data: list[Any] = list(chunks)
        for codec in reversed(self.bytes_codecs):
            data = _batch(codec, "decode", data)
        return data

    def decode_batch(self, chunks: Sequence[Buffer]) -> list[np.ndarray[Any, Any]]:
        """Decode many chunks into new arrays."""
        raw = self._batch_to_array_bytes(chunks)
        arrays = _batch(self.array_bytes.codec, "decode", raw, self.array_bytes.spec)
        for stage in reversed(self.array_stages):
            arrays = _batch(stage.codec, "decode", arrays, stage.spec)
        return [np.asarray(a) for a in arrays]

    def decode_batch_into(self, chunks: Sequence[Buffer], outs: Sequence[Any]) -> None:
        """Decode many chunks, each into its own ``out`` array."""
        if len(chunks) != len(outs):
            raise ConfigurationError(f"{len(chunks)} chunks but {len(outs)} outputs")
        if self._straight_into(outs):
            # The last bytes codec decompresses straight into each chunk's memory.
            _decode_all_whole(self.bytes_codecs[0], chunks, outs)
            return
        if self._run_kernels(chunks, outs):  # every codec's step in Rust, chunk by chunk
            return
        raw = self._batch_to_array_bytes(chunks)
        if not self.array_stages:
            stage = self.array_bytes
            each_in_parallel(
                lambda data, out: stage.codec.decode_into(data, out, stage.spec), raw, outs
            )
            return
        arrays = _batch(self.array_bytes.codec, "decode", raw, self.array_bytes.spec)
        for stage in reversed(self.array_stages[1:]):
            arrays = _batch(stage.codec, "decode", arrays, stage.spec)
        first = self.array_stages[0]
        into = getattr(first.codec, "decode_batch_into", None)
        # Batch methods write whole C-contiguous arrays. A chunk's place in a larger array (a
        # strided view) gets a batch-decoded chunk copied in, which keeps the parallelism.
        contiguous = [i for i, out in enumerate(outs) if _c_contiguous(out) and _native(out)]
        if into is None or len(contiguous) < 2:
            contiguous = []
        else:
            into([arrays[i] for i in contiguous], first.spec, [outs[i] for i in contiguous])
        done = set(contiguous)
        rest = [i for i in range(len(outs)) if i not in done]
        decoded = _batch(first.codec, "decode", [arrays[i] for i in rest], first.spec)
        each_in_parallel(
            lambda out, array: np.copyto(out, np.asarray(array).reshape(np.shape(out))),
            [outs[i] for i in rest],
            decoded,
        )
