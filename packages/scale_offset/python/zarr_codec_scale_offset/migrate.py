"""Rewrite a Zarr v3 array's metadata from ``numcodecs.fixedscaleoffset`` to the
``[scale_offset, cast_value]`` pair that supersedes it, without rewriting any chunk.

The spec's conversion ("Conversion to scale_offset") keeps ``offset`` and ``scale`` and casts
to ``astype`` with round-half-even and ``out_of_range: "wrap"``. The two are not always
equal: numcodecs decodes integer chunks in float64 before rounding to ``dtype``, while
``scale_offset`` works in ``dtype`` itself. So before anything is written, a sample of the
stored chunks is decoded both ways and must agree bit for bit; a dry run (the default) only
reports.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from zarr_codec_shapes import CodecError

__all__ = ["Migration", "migrate_fixedscaleoffset"]

LEGACY = "numcodecs.fixedscaleoffset"


@dataclass
class Migration:
    """What :func:`migrate_fixedscaleoffset` found and did."""

    path: Path
    old_codecs: list[Any]
    new_codecs: list[Any]
    chunks_checked: int = 0
    mismatches: list[str] = field(default_factory=list)
    written: bool = False

    @property
    def safe(self) -> bool:
        """Whether every sampled chunk decodes identically both ways."""
        return self.chunks_checked > 0 and not self.mismatches


def _replacement(codec: dict[str, Any]) -> list[dict[str, Any]]:
    config = codec.get("configuration", {})
    astype = np.dtype(config.get("astype", config["dtype"]))
    from zarr_codec_shapes import DataType

    target = DataType.from_numpy(astype).name
    cast: dict[str, Any] = {"data_type": target}
    if DataType.from_name(target).is_integer:
        cast["out_of_range"] = "wrap"
    return [
        {
            "name": "scale_offset",
            "configuration": {"offset": config["offset"], "scale": config["scale"]},
        },
        {"name": "cast_value", "configuration": cast},
    ]


def migrate_fixedscaleoffset(
    path: str | Path, *, dry_run: bool = True, sample: int = 8
) -> Migration:
    """Check, and unless ``dry_run`` write, the rewrite of the array at ``path`` (a local
    Zarr v3 array directory). Up to ``sample`` stored chunks are decoded with the old and the
    new metadata through zarr-python, with our codecs selected for both; the metadata is
    written only when they all agree. ``ValueError`` when the array has no such codec."""
    import zarr
    from zarr_codec_cast_value.zarr_python import CastValueCodec
    from zarr_codec_shapes.zarr_python import select, unselect

    from zarr_codec_scale_offset.zarr_python import ScaleOffsetCodec

    root = Path(path)
    meta_path = root / "zarr.json"
    meta = json.loads(meta_path.read_text())
    codecs = meta.get("codecs", [])
    positions = [i for i, c in enumerate(codecs) if isinstance(c, dict) and c.get("name") == LEGACY]
    if not positions:
        raise ValueError(f"{root}: no {LEGACY} codec in the array's codecs")
    new_codecs: list[Any] = []
    for i, codec in enumerate(codecs):
        new_codecs += _replacement(codec) if i in positions else [codec]
    migration = Migration(root, codecs, new_codecs)

    new_meta = dict(meta, codecs=new_codecs)
    chunk_keys = sorted(
        str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and p.name != "zarr.json"
    )[:sample]
    old_store = zarr.storage.LocalStore(root, read_only=True)
    new_store = zarr.storage.MemoryStore()
    _put(new_store, "zarr.json", json.dumps(new_meta).encode())
    for key in chunk_keys:
        _put(new_store, key, (root / key).read_bytes())
    ours = {"cast_value": CastValueCodec, "scale_offset": ScaleOffsetCodec}
    selected = [name for name, cls in ours.items() if select(name, cls)]
    try:
        _compare(migration, old_store, new_store, chunk_keys)
    except CodecError as err:
        # The new chain cannot even be used here (e.g. cast_value's fill value rule).
        migration.mismatches.append(f"the new codecs refuse this array: {err}")
    finally:  # leave a selection made by someone else (zarr_codecs.install()) in place
        for name in selected:
            unselect(name, ours[name])
    if migration.safe and not dry_run:
        meta_path.write_text(json.dumps(new_meta, indent=2))
        migration.written = True
    return migration


def _compare(migration: Migration, old_store: Any, new_store: Any, chunk_keys: list[str]) -> None:
    """Decode every sampled chunk with the old and the new metadata; record differences."""
    import zarr

    old = zarr.open_array(old_store, mode="r")
    new = zarr.open_array(new_store, mode="r")
    grid = old.metadata.chunk_grid.chunk_shape  # type: ignore[union-attr]
    for key in chunk_keys:
        index = tuple(int(part) for part in key.split("/")[1:])  # "c/i/j"
        region = tuple(
            slice(i * n, min((i + 1) * n, size))
            for i, n, size in zip(index, grid, old.shape, strict=True)
        )
        a, b = np.asarray(old[region]), np.asarray(new[region])
        migration.chunks_checked += 1
        if a.dtype != b.dtype or a.tobytes() != b.tobytes():
            migration.mismatches.append(key)


def _put(store: Any, key: str, data: bytes) -> None:
    import asyncio

    from zarr.core.buffer import default_buffer_prototype

    asyncio.run(store.set(key, default_buffer_prototype().buffer.from_bytes(data)))
