"""``zarr-codecs repair-complex PATH``: Zarr v3 arrays of complex numbers stored big-endian
whose chunks our pipeline wrote with the real and imaginary parts exchanged.

Up to 0.1.0 our runtime (``install(pipeline=True)``, ``zarr_codec_runtime.Chain``) swapped the
byte order of a ``complex64``/``complex128`` element as one 8- or 16-byte number, where the
``bytes`` codec's spec swaps each part on its own: every element it stored under
``{"name": "bytes", "configuration": {"endian": "big"}}`` holds its imaginary part first, and
every other reader (zarr-python's own pipeline, TensorStore, zarrs) sees the parts exchanged.
Arrays stored little-endian, arrays written through zarr-python's own pipeline (our codecs
installed or not), and Zarr v2 arrays (which our pipeline left to zarr-python when big-endian)
were not affected.

Which chunks: who wrote a chunk cannot be told from its bytes, except gzip chunks that carry a
timestamp in their header (numcodecs' gzip, which zarr-python's own pipeline uses, writes one;
ours never does): those are left as they are. The others are rewritten only with
``assume_ours``: the person who wrote the array knows. A repaired array gets a marker file and is
never rewritten twice.

Repair: the stored bytes under the ``bytes`` codec (inside each inner chunk of a shard too) get
the two parts of every element exchanged back, and are compressed again with the array's own
codecs (ours); a shard gets its index rebuilt.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from zarr_codecs import _repairs

__all__ = ["MARKER", "Candidate", "find_candidates", "render", "repair", "repair_chunk"]

#: Left in a repaired array's folder (readers ignore it) so that it is never repaired twice.
MARKER = ".zarr-codecs-complex-repaired"

JSON = dict[str, Any]
#: An absent inner chunk in a shard index (the sharding spec's all-ones offset and size).
_ABSENT = 2**64 - 1


@dataclass
class Candidate:
    """A v3 array of complex numbers stored big-endian by the ``bytes`` codec."""

    path: Path
    data_type: str
    codecs: list[JSON]
    chunk_shape: tuple[int, ...]
    ours: list[Path] = field(default_factory=list)  # assumed ours (assume_ours) or repaired
    others: list[Path] = field(default_factory=list)  # gzip with a timestamp: not ours
    unknown: list[Path] = field(default_factory=list)  # who wrote them cannot be told
    repaired: bool = False  # the marker is there


def _big_endian_serializer(codecs: list[JSON]) -> bool:
    """Whether the chain (or the inner chain of its shards) stores elements big-endian, with
    only ``transpose`` (which keeps each element's bytes) before it."""
    for codec in codecs:
        name, config = codec.get("name"), codec.get("configuration") or {}
        if name == "transpose":
            continue
        if name == "sharding_indexed":
            return _big_endian_serializer(list(config.get("codecs", [])))
        return bool(name == "bytes" and config.get("endian") == "big")
    return False


def _chunk_files(root: Path) -> list[Path]:
    """Every stored chunk of the array in ``root`` (whatever its key encoding)."""
    return sorted(
        path
        for path in root.rglob("*")
        if path.is_file()
        and path.name != "zarr.json"
        and not path.name.startswith(".")
        and not any(part.startswith(".") for part in path.relative_to(root).parts)
    )


def _gzip_with_timestamp(chunk: Path, codecs: list[JSON]) -> bool:
    last = [c for c in codecs if c.get("name") != "crc32c"][-1:]
    if not last or last[0].get("name") != "gzip":
        return False
    with chunk.open("rb") as stream:
        header = stream.read(8)
    return header[:2] == b"\x1f\x8b" and header[4:8] != b"\0\0\0\0"


def _candidate(meta_file: Path) -> Candidate | None:
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("zarr_format") != 3:
        return None
    codecs = meta.get("codecs")
    if (
        meta.get("node_type") != "array"
        or meta.get("data_type") not in ("complex64", "complex128")
        or not isinstance(codecs, list)
        or not _big_endian_serializer(codecs)
    ):
        return None
    grid = (meta.get("chunk_grid") or {}).get("configuration") or {}
    root = meta_file.parent
    found = Candidate(
        root,
        meta["data_type"],
        codecs,
        tuple(grid.get("chunk_shape", ())),
        repaired=(root / MARKER).exists(),
    )
    for chunk in _chunk_files(root):
        (found.others if _gzip_with_timestamp(chunk, codecs) else found.unknown).append(chunk)
    return found


def find_candidates(root: Path) -> list[Candidate]:
    """Every v3 array under ``root`` that could hold complex chunks with exchanged parts."""
    found = (_candidate(meta) for meta in sorted(root.rglob("zarr.json")))
    return [c for c in found if c is not None]


# -- the repair of one chunk -------------------------------------------------------------------


def _codec(data: JSON) -> Any:
    from zarr_codec_shapes import get_codec

    return get_codec(data, 3)


def _exchange_parts(raw: bytes, part: int, count: int, where: str) -> bytes:
    """``raw``, ``count`` complex elements of two ``part``-byte parts, with the parts of each
    element exchanged."""
    if len(raw) != count * 2 * part:
        raise ValueError(f"{where}: {len(raw)} bytes, {count} elements need {count * 2 * part}")
    elements = np.frombuffer(raw, np.uint8).reshape(count, 2, part)
    return elements[:, ::-1, :].tobytes()


def _repair_plain(data: bytes, codecs: list[JSON], shape: tuple[int, ...], part: int) -> bytes:
    position = next(i for i, c in enumerate(codecs) if c.get("name") == "bytes")
    compressors = [_codec(c) for c in codecs[position + 1 :]]
    raw = data
    for codec in reversed(compressors):
        raw = bytes(codec.decode(raw))
    fixed = _exchange_parts(raw, part, int(np.prod(shape)), "a chunk")
    for codec in compressors:
        fixed = bytes(codec.encode(fixed))
    return fixed


def _repair_shard(data: bytes, config: JSON, shape: tuple[int, ...], part: int) -> bytes:
    inner_shape = tuple(config["chunk_shape"])
    count = int(np.prod([s // i for s, i in zip(shape, inner_shape, strict=True)]))
    index_codecs = list(config.get("index_codecs", [{"name": "bytes"}, {"name": "crc32c"}]))
    serializer = index_codecs[0].get("configuration") or {}
    index_type = np.dtype(">u8" if serializer.get("endian") == "big" else "<u8")
    compressors = [_codec(c) for c in index_codecs[1:]]

    def encode_index(index: np.ndarray[Any, Any]) -> bytes:
        encoded = index.astype(index_type).tobytes()
        for codec in compressors:
            encoded = bytes(codec.encode(encoded))
        return encoded

    index_len = len(encode_index(np.zeros(2 * count, np.uint64)))
    at_start = config.get("index_location", "end") == "start"
    stored = data[:index_len] if at_start else data[len(data) - index_len :]
    for codec in reversed(compressors):
        stored = bytes(codec.decode(stored))
    index = np.frombuffer(stored, index_type).astype(np.uint64).reshape(count, 2)
    inner = list(config.get("codecs", []))
    pieces, offset = [], index_len if at_start else 0
    new_index = np.full((count, 2), _ABSENT, np.uint64)
    for position, (start, size) in enumerate(index.tolist()):
        if start == _ABSENT and size == _ABSENT:
            continue
        if start + size > len(data):
            raise ValueError(
                f"inner chunk {position}: bytes {start}..{start + size} of {len(data)}"
            )
        fixed = repair_chunk(data[start : start + size], inner, inner_shape, part)
        new_index[position] = (offset, len(fixed))
        pieces.append(fixed)
        offset += len(fixed)
    encoded_index = encode_index(new_index.reshape(-1))
    body = b"".join(pieces)
    return encoded_index + body if at_start else body + encoded_index


def repair_chunk(data: bytes, codecs: list[JSON], shape: tuple[int, ...], part: int) -> bytes:
    """A stored chunk (or shard) of complex elements of two ``part``-byte parts, as it should
    have been stored: the parts of each element exchanged, under the chain's compressors."""
    if codecs and codecs[0].get("name") == "sharding_indexed":
        return _repair_shard(data, codecs[0].get("configuration") or {}, shape, part)
    return _repair_plain(data, codecs, shape, part)


# -- the command -------------------------------------------------------------------------------


def repair(candidate: Candidate, *, assume_ours: bool = False) -> int:
    """Store the candidate's chunks that could be ours (only with ``assume_ours``) with their
    parts in place; returns how many were rewritten. Nothing if already repaired."""
    if candidate.repaired or not assume_ours:
        return 0
    part = 4 if candidate.data_type == "complex64" else 8
    chunks = candidate.unknown
    for path in chunks:
        fixed = repair_chunk(path.read_bytes(), candidate.codecs, candidate.chunk_shape, part)
        _repairs.replace_file(path, fixed)
    (candidate.path / MARKER).write_text("complex parts stored in place by zarr-codecs\n")
    candidate.ours, candidate.unknown = chunks, []
    candidate.repaired = True
    return len(chunks)


def render(candidates: list[Candidate], *, write: bool, rewritten: dict[Path, int]) -> str:
    """What was found and done, one block per array."""
    return _repairs.render(
        candidates,
        write=write,
        rewritten=rewritten,
        nothing="nothing to repair: no Zarr v3 complex array stored big-endian",
        heading=lambda c: f"{c.data_type}, big-endian, chunks {list(c.chunk_shape)}",
        findings=lambda c: [
            (
                c.others,
                "gzip chunk(s) with a timestamp: written by numcodecs' gzip "
                "(zarr-python's own pipeline), correct as stored",
            ),
            (
                c.unknown,
                "chunk(s): who wrote them cannot be told; --assume-ours rewrites them (only if "
                "zarr-codecs' pipeline wrote the array)",
            ),
        ],
        done="rewritten with the parts in place",
        dry_run="dry run: nothing was written; run again with --write --assume-ours to repair",
    )
