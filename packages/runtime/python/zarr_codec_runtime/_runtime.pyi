"""The compiled half of ``zarr-codec-runtime`` (``crates/zarr-codec-runtime`` through pyo3)."""

from collections.abc import Buffer, Sequence
from typing import Any

import numpy as np

#: The name of the capsules codec kernels travel in.
KERNEL_CAPSULE: str

def plan_chain(
    array: Sequence[tuple[str, object, object, int, int]],
    endian: str | None,
    stored: tuple[int, int, str],
    bytes: Sequence[tuple[str, object, object]],
    decoded_len: int,
) -> tuple[Plan, Plan]:
    """Both directions of a chain, ``(decode, encode)``, planned by the runtime's one planner
    (``zarr_codec_runtime::plan`` in Rust): it decides the byte swap, every step's size and
    what each input must be. ``array``: each array codec as ``(name, encode kernel, decode
    kernel, decoded bytes, encoded bytes)``, or ``("transpose", (shape, order, element
    size), None, ...)``; ``endian``: the ``bytes`` codec's (``None`` only for one-byte
    elements); ``stored``: ``(bytes, swap size, data type name)`` of what it stores;
    ``bytes``: each bytes codec as ``(name, encode kernel, decode kernel)``."""

class Plan:
    """One direction of a chain, planned once (by :func:`plan_chain`): its steps in running
    order. No steps: chunks pass as they are."""

    def __len__(self) -> int: ...
    @property
    def input_len(self) -> int | None: ...
    @property
    def output_len(self) -> int | None: ...
    def run(self, chunks: Sequence[Buffer], threads: int | None = None) -> list[bytes]:
        """Each chunk through the plan into a new ``bytes``, in parallel, GIL released."""
    def run_into(
        self, chunks: Sequence[Buffer], outs: Sequence[Buffer], threads: int | None = None
    ) -> None:
        """Each chunk into the matching writable ``out`` (exactly the output size, sharing no
        memory with another ``out`` or a chunk)."""
    def run_files_into(
        self, paths: Sequence[str], outs: Sequence[Buffer], threads: int | None = None
    ) -> list[bool]:
        """Each chunk file into its ``out``; whether each file was there."""
    def run_to_files(
        self, chunks: Sequence[Buffer], paths: Sequence[str], threads: int | None = None
    ) -> None:
        """Each chunk through the plan, written to its file (a temporary file renamed)."""

class Runner:
    """A chain's reads and writes, plain or sharded, with what every call shares held once:
    the planned chain (or shards of one), the chunks' shape, their numpy data type, the fill
    value's bytes and the rule for chunks left all fill value. Each method answers ``None``,
    with nothing done, where the runtime does not take a call (an array of another data type,
    selections other than slices and integers, no empty-chunk rule for the data type)."""

    @staticmethod
    def chain(
        decode: Plan,
        encode: Plan,
        shape: Sequence[int],
        dtype: np.dtype[Any],
        fill: bytes,
        empty: str | None,
    ) -> Runner:
        """The runner of a plain chain: chunks of ``shape`` and ``dtype``, ``fill`` one
        element of the fill value, ``empty`` the rule for chunks left all fill value
        (``"same-bytes"``, ``"all-nan"``; ``None``: the runtime has none)."""
    @staticmethod
    def sharded(
        shard_shape: Sequence[int],
        inner: Runner,
        index: tuple[Plan, Plan],
        index_location: str,
        write_order: str,
    ) -> Runner:
        """``sharding_indexed``: shards of ``shard_shape`` whose inner chunks ``inner`` runs,
        the index coded by ``index`` (decode, encode) at ``index_location`` ("start" or
        "end"), inner chunks laid out in ``write_order`` ("morton", "lexicographic",
        "colexicographic", "unordered")."""
    @property
    def shape(self) -> list[int]:
        """Every chunk's shape (every shard's, sharded)."""
    @property
    def is_sharded(self) -> bool: ...
    @property
    def index_len(self) -> int:
        """The stored size of a shard's index (sharded runners only)."""
    def read(
        self,
        sources: Sequence[Buffer | str | None] | None,
        selections: Selections,
        out: np.ndarray[Any, Any],
        threads: int | None = None,
    ) -> list[bool] | None:
        """A batch read into places of ``out`` in one call: chunk ``i`` (bytes, a file's
        path, or ``None``: missing, the fill value; ``sources`` ``None``: a :class:`Cut`'s
        keys, as files), its part at its place; of a shard, only the inner chunks needed are
        read. ``selections``: a :class:`Cut`, ``(ChunkGrid, selection)`` (cut in this call), or
        each chunk's part and place as two lists. ``None``, with nothing done, where the
        runtime does not take ``out`` or a selection."""
    def write_files(
        self,
        paths: Sequence[str] | None,
        selections: Selections,
        values: np.ndarray[Any, Any],
        write_empty_chunks: bool = False,
        threads: int | None = None,
    ) -> list[bool] | None:
        """A batch write of chunk files in one call, old chunks merged where only part of
        one is written, chunks left all fill value removed unless ``write_empty_chunks``;
        whether each is stored."""
    def write_buffers(
        self,
        olds: Sequence[Buffer | None],
        selections: Selections,
        values: np.ndarray[Any, Any],
        write_empty_chunks: bool = False,
        threads: int | None = None,
    ) -> list[Any] | None:
        """``write_files`` for chunks kept in memory: each chunk's new stored bytes
        (``bytes``; a ``uint8`` array for a shard), or ``None`` for one not stored."""
    def needed(
        self, index: Buffer, chunk_selection: tuple[Any, ...]
    ) -> list[tuple[int, int, int]] | None:
        """The ``(inner chunk, start, stop)`` byte ranges of a shard that ``chunk_selection``
        needs, from its encoded ``index`` alone; ``None`` for another kind of selection."""
    def read_fetched(
        self,
        fetched: Sequence[tuple[Buffer | None, Sequence[tuple[int, Buffer]]]],
        selections: Selections,
        out: np.ndarray[Any, Any],
        threads: int | None = None,
    ) -> list[bool] | None:
        """:meth:`read` for shards fetched in parts: each one's index (``None``: no shard)
        and the ``(inner chunk, bytes)`` pairs :meth:`needed` named."""

class Remote:
    """An object store (S3, HTTP) whose chunks the runtime fetches itself, on its own client
    (object_store, which obstore wraps) and its own threads: a batch read is one call, every
    request in flight at once, each chunk decoded as it arrives, the GIL released."""

    @staticmethod
    def s3(
        options: Sequence[tuple[str, str]],
        from_env: bool = False,
        retry: tuple[int, float, float, float, float] | None = None,
    ) -> Remote:
        """An S3 bucket or an S3-compatible server's: ``options`` are obstore's ``S3Store``
        settings and client options by name (``bucket``, ``endpoint``, ``region``,
        ``access_key_id``, ``secret_access_key``, ``token``, ``skip_signature``,
        ``allow_http``, ...), over the ``AWS_*`` environment variables with ``from_env``;
        ``retry`` is ``(max_retries, retry_timeout, init_backoff, max_backoff, base)`` in
        seconds (object_store's defaults without). An unknown name raises
        ``UnsupportedError``."""
    @staticmethod
    def http(
        url: str,
        options: Sequence[tuple[str, str]],
        retry: tuple[int, float, float, float, float] | None = None,
    ) -> Remote:
        """Objects under an HTTP(S) ``url``, with obstore's client options by name and
        ``retry`` as for :meth:`s3`."""
    def get(self, key: str) -> bytes | None:
        """One object's bytes, or ``None`` where there is none; a store's error is an
        ``OSError``."""
    def read(
        self,
        runner: Runner,
        keys: Sequence[str] | None,
        selections: Selections,
        out: np.ndarray[Any, Any],
        limit: int,
        threads: int | None = None,
        whole: Sequence[bool] | None = None,
    ) -> list[bool] | None:
        """:meth:`Runner.read` of the objects ``keys``: at most
        ``limit`` objects' requests in flight, each chunk decoded as it arrives, a missing
        object its fill value. A chunk is fetched whole; so is a shard where ``whole[i]`` (by
        default, for a cut, where its part is all of it within the array, else all of it),
        its inner chunks decoded as its body streams in
        (the index of a shard of 1 MiB or more fetched by a request of its own beside the
        body's); else a shard's index, then the inner chunks needed, by byte ranges (the indexes
        read are kept, so that a later read of part of the same shard is one round trip: on
        S3, where the server honours ``If-Match``, each range asked on condition that the
        shard is unchanged; elsewhere, the ranges asked beside the shard's current index and
        used only if it equals the kept one). ``None``,
        with nothing fetched, for selections or an ``out`` of another kind. A store's error,
        or a shard replaced between two requests, is an ``OSError`` naming the key."""

class Cut:
    """A basic selection of a whole array cut into the chunks it touches, kept in Rust: a
    :class:`Runner`'s reads and writes (and :meth:`Remote.read`) take it as it is."""

    def __len__(self) -> int: ...
    @property
    def keys(self) -> list[str]:
        """Each chunk's key (after the prefix), in C order."""
    @property
    def complete(self) -> list[bool]:
        """Whether each part is all of its chunk inside the array (zarr-python's "complete
        chunk")."""
    @property
    def covered(self) -> list[bool]:
        """Whether each part is all of its chunk, outside the array included."""
    @property
    def shape(self) -> list[int]:
        """The shape of what the selection selects."""
    def part(self, start: int, stop: int) -> Cut:
        """The chunks ``start`` to ``stop``."""
    def take(self, indices: Sequence[int]) -> Cut:
        """The chunks at ``indices``, in that order."""
    def as_lists(
        self,
    ) -> tuple[list[str], list[tuple[Any, ...]], list[tuple[slice, ...]], list[bool]]:
        """Keys, each chunk's part (slices, and integers where the selection has one), its
        place in the output (slices; integer-selected dimensions dropped), completeness."""

class ChunkGrid:
    """An array's regular chunk grid and chunk keys: an array of ``shape`` in chunks of
    ``chunk_shape``, whose keys are ``prefix`` then the ``encoding`` (``"default"`` or
    ``"v2"``) with ``separator``. Reads and writes take ``(grid, selection)`` in place of a
    :class:`Cut` and cut it themselves: a whole read of files is one call."""

    def __init__(
        self,
        shape: Sequence[int],
        chunk_shape: Sequence[int],
        prefix: str,
        encoding: str,
        separator: str,
    ) -> None: ...
    def cut(self, selection: Sequence[int | slice]) -> Cut:
        """A basic selection (an ``int`` or a ``slice`` with a positive step per dimension)
        cut into the chunks it touches, in C order, in one call; ``UnsupportedError`` for one
        of more chunks than one call names."""

#: A :class:`Cut`, a :class:`ChunkGrid` and a basic selection to cut, or each chunk's part and
#: place as two lists (zarr-python's batches).
Selections = (
    Cut
    | tuple[ChunkGrid, Sequence[int | slice]]
    | tuple[Sequence[tuple[Any, ...]], Sequence[tuple[Any, ...]]]
)

def cut_selection(
    shape: Sequence[int],
    chunk_shape: Sequence[int],
    selection: Sequence[int | slice],
    prefix: str,
    encoding: str,
    separator: str,
) -> Cut:
    """``ChunkGrid(shape, chunk_shape, prefix, encoding, separator).cut(selection)``."""
