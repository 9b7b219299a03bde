"""``zarr-codecs migrate PATH``: every Zarr v3 array in a store that uses
``numcodecs.fixedscaleoffset`` gets ``[scale_offset, cast_value]`` instead, metadata only, after
a sample of its chunks decodes identically both ways (see
``zarr_codec_scale_offset.migrate``). A dry run unless asked to write."""

from __future__ import annotations

import json
from pathlib import Path

from zarr_codec_scale_offset.migrate import LEGACY, Migration, migrate_fixedscaleoffset

__all__ = ["migrate_store", "render"]


def _uses_legacy(meta_file: Path) -> bool:
    try:
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    codecs = meta.get("codecs", []) if meta.get("node_type") == "array" else []
    return any(isinstance(c, dict) and c.get("name") == LEGACY for c in codecs)


def migrate_store(root: Path, *, write: bool = False, sample: int = 8) -> list[Migration]:
    """Check (and with ``write``, rewrite) every array under ``root`` that needs it."""
    arrays = sorted(p.parent for p in root.rglob("zarr.json") if _uses_legacy(p))
    return [migrate_fixedscaleoffset(a, dry_run=not write, sample=sample) for a in arrays]


def render(results: list[Migration], *, write: bool) -> str:
    """What was found and done, one block per array."""
    if not results:
        return f"nothing to migrate: no array uses {LEGACY}"
    lines = []
    for m in results:
        verdict = "written" if m.written else ("safe (dry run)" if m.safe else "NOT safe")
        lines.append(f"{m.path}: {verdict}, {m.chunks_checked} chunk(s) compared")
        lines.append(f"  old: {json.dumps(m.old_codecs, separators=(',', ':'))}")
        lines.append(f"  new: {json.dumps(m.new_codecs, separators=(',', ':'))}")
        lines += [f"  mismatch: {x}" for x in m.mismatches]
    if not write and any(m.safe for m in results):
        lines.append("dry run: nothing was written; run again with --write to apply")
    return "\n".join(lines)
