"""``zarr-codecs migrate PATH``: every Zarr v3 array in a store that uses
``numcodecs.fixedscaleoffset`` gets ``[scale_offset, cast_value]`` instead, metadata only, after
a sample of its chunks decodes the same both ways, or within a stated tolerance (see
``zarr_codec_scale_offset.migrate``). A dry run unless asked to write. Zarr v2 arrays that use
``fixedscaleoffset`` are listed and left alone: the two codecs that replace it exist only in
Zarr v3."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from zarr_codec_scale_offset.migrate import (
    LEGACY,
    Migration,
    Tolerance,
    migrate_fixedscaleoffset,
)

__all__ = ["Tolerance", "migrate_store", "render"]

V2_REFUSAL = (
    "a Zarr v2 array: scale_offset and cast_value are Zarr v3 codecs, so its metadata cannot "
    "name them. Convert the array to Zarr v3 first (its fixedscaleoffset filter becomes "
    f"{LEGACY}), then migrate it"
)


def _read(meta_file: Path) -> dict[str, Any]:
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}


def _uses_legacy(meta_file: Path) -> bool:
    meta = _read(meta_file)
    codecs = meta.get("codecs", []) if meta.get("node_type") == "array" else []
    return any(isinstance(c, dict) and c.get("name") == LEGACY for c in codecs)


def _v2_uses_legacy(meta_file: Path) -> bool:
    meta = _read(meta_file)
    used = [*(meta.get("filters") or []), meta.get("compressor")]
    return any(isinstance(c, dict) and c.get("id") == "fixedscaleoffset" for c in used)


def _v2_refusal(array: Path) -> Migration:
    meta = _read(array / ".zarray")
    used = [c for c in (meta.get("filters") or []) if isinstance(c, dict)]
    return Migration(array, used, [], mismatches=[V2_REFUSAL])


def migrate_store(
    root: Path, *, write: bool = False, sample: int = 8, tolerance: Tolerance | None = None
) -> list[Migration]:
    """Check (and with ``write``, rewrite) every array under ``root`` that needs it; Zarr v2
    arrays that use ``fixedscaleoffset`` come back refused, with the reason."""
    arrays = sorted(p.parent for p in root.rglob("zarr.json") if _uses_legacy(p))
    v2 = sorted(p.parent for p in root.rglob(".zarray") if _v2_uses_legacy(p))
    results = [
        migrate_fixedscaleoffset(a, dry_run=not write, sample=sample, tolerance=tolerance)
        for a in arrays
    ]
    return sorted(results + [_v2_refusal(a) for a in v2], key=lambda m: str(m.path))


def _verdict(m: Migration) -> str:
    if m.written:
        return "written"
    return "safe (dry run)" if m.safe else "NOT safe"


def render(results: list[Migration], *, write: bool) -> str:
    """What was found and done, one block per array, with the reason for every refusal."""
    if not results:
        return f"nothing to migrate: no array uses {LEGACY} (Zarr v3) or fixedscaleoffset (v2)"
    lines = []
    for m in results:
        lines.append(f"{m.path}: {_verdict(m)}, {m.chunks_checked} chunk(s) compared")
        lines.append(f"  old: {json.dumps(m.old_codecs, separators=(',', ':'))}")
        if m.new_codecs:
            lines.append(f"  new: {json.dumps(m.new_codecs, separators=(',', ':'))}")
        lines += [f"  refused: {x}" for x in m.mismatches]
        lines += [f"  within {m.tolerance}: {d.describe()}" for d in m.tolerated]
        if m.cause:
            lines.append(f"  why: {m.cause}")
        lines += [f"  note: {x}" for x in m.notes]
        if m.backup is not None:
            lines.append(f"  old metadata kept in {m.backup.name}")
    if not write and any(m.safe for m in results):
        lines.append("dry run: nothing was written; run again with --write to apply")
    return "\n".join(lines)
