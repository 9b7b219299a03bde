"""``zarr-codecs repair-order PATH``: Zarr v2 arrays with order "F" whose chunks zarr-codecs
0.1.0 stored transposed.

zarr-codecs 0.1.0's gzip and blosc, installed into numcodecs, stored each chunk of an
order-"F" Zarr v2 array in C order, where numcodecs (and so every other reader) stores the
chunk's Fortran-order bytes: such chunks read back transposed everywhere but in that release.
Only arrays whose compressor got the chunk itself are affected: no filters (a filter hands the
compressor a flat array), and chunks with at least two dimensions longer than 1.

Which chunks: a gzip chunk with a timestamp in its header was written by numcodecs and is never
rewritten. A gzip chunk without one may be 0.1.0's, but every later zarr-codecs writes the
same header (its output is reproducible), and so do other writers of reproducible gzip (zarrs'):
its bytes cannot tell 0.1.0 from them, and rewriting a correct chunk would transpose it. blosc
chunks are the same bytes whoever wrote them. So only the person who wrote the array knows:
chunks are rewritten only with ``assume_ours``. A repaired array gets a marker file, and is
never rewritten twice.

Repair: each chunk is decompressed, read as the C-order chunk it really holds, and stored again
in Fortran order with the array's own compressor (ours, now writing as numcodecs does).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from zarr_codecs import _repairs

__all__ = ["MARKER", "Candidate", "find_candidates", "render", "repair"]

#: Left in a repaired array's folder (readers ignore it) so that it is never repaired twice.
MARKER = ".zarr-codecs-order-repaired"


@dataclass
class Candidate:
    """An order-"F" v2 array our 0.1.0 compressors could have written transposed."""

    path: Path
    compressor: dict[str, Any]
    dtype: np.dtype[Any]
    chunks: tuple[int, ...]
    others: list[Path] = field(default_factory=list)  # gzip with a timestamp: numcodecs'
    unknown: list[Path] = field(default_factory=list)  # who wrote them cannot be told
    repaired: bool = False  # the marker is there


def _candidate(meta_file: Path) -> Candidate | None:
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    compressor = meta.get("compressor") or {}
    chunks = tuple(meta.get("chunks", ()))
    if (
        meta.get("order") != "F"
        or meta.get("filters")
        or compressor.get("id") not in ("gzip", "blosc")
        or sum(1 for c in chunks if c > 1) < 2
    ):
        return None
    try:
        dtype = np.dtype(meta["dtype"])
    except (TypeError, KeyError):
        return None
    root = meta_file.parent
    found = Candidate(root, compressor, dtype, chunks, repaired=(root / MARKER).exists())
    separator = meta.get("dimension_separator", ".")
    pattern = "*" if separator == "." else "/".join(["*"] * len(chunks))
    for chunk in sorted(root.glob(pattern)):
        if not chunk.is_file() or chunk.name.startswith("."):
            continue
        if compressor["id"] == "gzip" and not _gzip_without_timestamp(chunk):
            found.others.append(chunk)
        else:
            found.unknown.append(chunk)
    return found


def _gzip_without_timestamp(chunk: Path) -> bool:
    with chunk.open("rb") as stream:
        header = stream.read(8)
    return header[:2] == b"\x1f\x8b" and header[4:8] == b"\0\0\0\0"


def find_candidates(root: Path) -> list[Candidate]:
    """Every order-"F" v2 array under ``root`` that could hold transposed chunks."""
    found = (_candidate(meta) for meta in sorted(root.rglob(".zarray")))
    return [c for c in found if c is not None]


def repair(candidate: Candidate, *, assume_ours: bool = False) -> int:
    """With ``assume_ours`` (the caller knows 0.1.0 wrote the array), store the candidate's
    chunks that 0.1.0 could have written in Fortran order; returns how many were rewritten.
    Nothing without ``assume_ours``, or if already repaired."""
    from zarr_codec_shapes import get_codec

    if candidate.repaired:
        return 0
    chunks = candidate.unknown if assume_ours else []
    codec: Any = get_codec(candidate.compressor)
    shape = candidate.chunks
    for path in chunks:
        raw = np.frombuffer(codec.decode(path.read_bytes()), candidate.dtype)
        if raw.size != int(np.prod(shape)):
            raise ValueError(f"{path}: {raw.size} elements, a chunk holds {np.prod(shape)}")
        fortran = raw.reshape(shape).copy(order="F")  # the chunk it holds, in numcodecs' order
        _repairs.replace_file(path, codec.encode(fortran))
    if chunks:
        (candidate.path / MARKER).write_text("chunks stored in Fortran order by zarr-codecs\n")
        candidate.repaired = True
    return len(chunks)


def render(candidates: list[Candidate], *, write: bool, rewritten: dict[Path, int]) -> str:
    """What was found and done, one block per array."""
    return _repairs.render(
        candidates,
        write=write,
        rewritten=rewritten,
        nothing='nothing to repair: no order-"F" v2 array with a gzip or blosc compressor',
        heading=lambda c: f"{c.compressor['id']}, chunks {list(c.chunks)}",
        findings=lambda c: [
            (c.others, "gzip chunk(s) with a timestamp: written by numcodecs (correct as stored)"),
            (
                c.unknown,
                "chunk(s) zarr-codecs 0.1.0 could have written (so could later versions and "
                "other writers: the bytes cannot tell); --assume-ours rewrites them",
            ),
        ],
        done="rewritten in Fortran order",
        dry_run="dry run: nothing was written; run again with --write --assume-ours to repair",
    )
