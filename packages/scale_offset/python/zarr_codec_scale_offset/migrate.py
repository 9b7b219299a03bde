"""Rewrite a Zarr v3 array's metadata from ``numcodecs.fixedscaleoffset`` to the
``[scale_offset, cast_value]`` pair that supersedes it, without rewriting any chunk.

The spec's conversion ("Conversion to scale_offset") keeps ``offset`` and ``scale`` and casts
to ``astype`` with round-half-even and ``out_of_range: "wrap"``. The two are not always
equal: numcodecs decodes integer chunks in float64 and rounds the result to ``dtype`` once,
while ``scale_offset`` works in ``dtype`` itself, so a float32 array can come back one unit in
the last place (ulp) apart. Before anything is written, a sample of the stored chunks is decoded
both ways; every difference is reported (which elements, by how much, why) and refuses the
migration unless it is within a tolerance the caller states. A dry run (the default) only
reports; a write keeps the old metadata beside the new (``zarr.json.before-migrate``).

It reads the chunks through zarr-python with ``zarr-codec-cast-value``, which this wheel does
not require: install them with the extra, ``pip install "zarr-codec-scale-offset[migrate]"``
(the ``zarr-codecs`` bundle has them).
"""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from zarr_codec_shapes import CodecError

__all__ = [
    "BACKUP_NAME",
    "ChunkDifference",
    "Migration",
    "Tolerance",
    "migrate_fixedscaleoffset",
]

LEGACY = "numcodecs.fixedscaleoffset"
#: What installs the packages a migration needs beside this wheel.
INSTALL_EXTRA = 'pip install "zarr-codec-scale-offset[migrate]"'
BACKUP_NAME = "zarr.json.before-migrate"


@dataclass(frozen=True)
class Tolerance:
    """How far the new decoding may be from the old and still be accepted: ``ulps`` units in
    the last place of the array's data type, or ``absolute`` (either, not both)."""

    ulps: int | None = None
    absolute: float | None = None

    def __post_init__(self) -> None:
        if (self.ulps is None) == (self.absolute is None):
            raise ValueError("a tolerance is either ulps or absolute, exactly one of them")
        if (self.ulps or 0) < 0 or (self.absolute or 0.0) < 0:
            raise ValueError("a tolerance cannot be negative")

    @classmethod
    def parse(cls, text: str) -> Tolerance:
        """``"1ulp"``, ``"2 ulps"`` or an absolute difference such as ``"1e-4"``."""
        found = re.fullmatch(r"\s*(\d+)\s*ulps?\s*", text)
        if found:
            return cls(ulps=int(found.group(1)))
        try:
            return cls(absolute=float(text))
        except ValueError:
            raise ValueError(
                f"tolerance {text!r}: expected a number of ulps ('1ulp') or a difference ('1e-4')"
            ) from None

    def accepts(self, difference: ChunkDifference) -> bool:
        """Whether every differing element of ``difference`` is within this tolerance."""
        if self.ulps is not None:
            return difference.max_ulps <= self.ulps
        return difference.max_abs <= (self.absolute or 0.0)

    def __str__(self) -> str:
        if self.ulps is not None:
            return f"{self.ulps} ulp" + ("" if self.ulps == 1 else "s")
        return f"{self.absolute:g}"


@dataclass(frozen=True)
class ChunkDifference:
    """How one chunk decodes differently with the new codecs than with the old."""

    key: str
    differing: int
    total: int
    max_abs: float
    max_ulps: float
    index: tuple[int, ...]  # one element that differs, in the chunk
    old: float
    new: float

    def describe(self) -> str:
        """One line: which elements, by how much, and one example."""
        ulps = "any number of" if np.isinf(self.max_ulps) else f"{self.max_ulps:g}"
        return (
            f"{self.key}: {self.differing} of {self.total} elements differ, by at most "
            f"{self.max_abs:.3g} ({ulps} ulp); e.g. element {list(self.index)}: "
            f"old {self.old!r}, new {self.new!r}"
        )


@dataclass
class Migration:
    """What :func:`migrate_fixedscaleoffset` found and did."""

    path: Path
    old_codecs: list[Any]
    new_codecs: list[Any]
    chunks_checked: int = 0
    mismatches: list[str] = field(default_factory=list)
    """Why the migration was refused, one line each (a differing chunk, a refusing codec)."""
    differences: list[ChunkDifference] = field(default_factory=list)
    tolerance: Tolerance | None = None
    cause: str = ""
    """Why the chunks that differ do (float32 against float64 arithmetic, say), then what
    follows: what to do while the migration is refused, or, when the tolerance given covers
    every difference, that the new codecs were written (or can be, in a dry run)."""
    notes: list[str] = field(default_factory=list)
    """What plain zarr-python says when it opens the new metadata (its warnings), and why."""
    written: bool = False
    backup: Path | None = None

    @property
    def safe(self) -> bool:
        """Whether every sampled chunk decodes the same both ways, or within the tolerance."""
        return self.chunks_checked > 0 and not self.mismatches

    @property
    def tolerated(self) -> list[ChunkDifference]:
        """The differences accepted by the tolerance given."""
        if self.tolerance is None:
            return []
        return [d for d in self.differences if self.tolerance.accepts(d)]


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
    path: str | Path,
    *,
    dry_run: bool = True,
    sample: int = 8,
    tolerance: Tolerance | None = None,
) -> Migration:
    """Check, and unless ``dry_run`` write, the rewrite of the array at ``path`` (a local
    Zarr v3 array directory).

    Up to ``sample`` stored chunks are decoded with the old and the new metadata through
    zarr-python, with our codecs selected for both. The metadata is written only when they
    all agree, or differ by no more than ``tolerance``; the old document is kept as
    ``zarr.json.before-migrate`` beside it. ``ValueError`` when the array has no such codec.
    """
    try:
        import zarr
        from zarr_codec_cast_value.zarr_python import CastValueCodec
        from zarr_codec_shapes.zarr_python import select, unselect

        from zarr_codec_scale_offset.zarr_python import ScaleOffsetCodec
    except ImportError as err:
        raise ImportError(
            f"migrate_fixedscaleoffset needs zarr-python and zarr-codec-cast-value ({err}); "
            f"install them with: {INSTALL_EXTRA}"
        ) from err

    root = Path(path)
    meta_path = root / "zarr.json"
    old_text = meta_path.read_text(encoding="utf-8")
    meta = json.loads(old_text)
    codecs = meta.get("codecs", [])
    positions = [i for i, c in enumerate(codecs) if isinstance(c, dict) and c.get("name") == LEGACY]
    if not positions:
        raise ValueError(f"{root}: no {LEGACY} codec in the array's codecs")
    new_codecs: list[Any] = []
    for i, codec in enumerate(codecs):
        new_codecs += _replacement(codec) if i in positions else [codec]
    migration = Migration(root, codecs, new_codecs, tolerance=tolerance)

    new_meta = dict(meta, codecs=new_codecs)
    chunk_keys = sorted(
        str(p.relative_to(root).as_posix())
        for p in root.rglob("*")
        if p.is_file() and not p.name.startswith("zarr.json")
    )[:sample]
    old_store = zarr.storage.LocalStore(root, read_only=True)
    new_store = zarr.storage.MemoryStore()
    _put(new_store, "zarr.json", json.dumps(new_meta).encode())
    for key in chunk_keys:
        _put(new_store, key, (root / key).read_bytes())
    migration.notes = _plain_zarr_warnings(new_store)
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
        migration.backup = _free_name(root / BACKUP_NAME)
        migration.backup.write_text(old_text, encoding="utf-8")
        meta_path.write_text(json.dumps(new_meta, indent=2), encoding="utf-8")
        migration.written = True
    if migration.differences:  # after the write: what it advises depends on what was done
        migration.cause = _cause(np.dtype(_legacy_dtype(codecs[positions[0]])), migration)
    return migration


def _legacy_dtype(codec: dict[str, Any]) -> str:
    return str(codec.get("configuration", {}).get("dtype", "<f8"))


def _cause(dtype: np.dtype[Any], migration: Migration) -> str:
    """Why chunks differ, in the user's terms, then what to do about it while the migration
    is refused, or what was done once the tolerance given covers every difference."""
    worst = max(d.max_ulps for d in migration.differences)
    arithmetic = dtype.kind == "f" and dtype.itemsize < 8 and worst <= 4
    if migration.safe:  # every difference is within the tolerance given
        done = "were written" if migration.written else "can replace the old"
        then = (
            f"every difference is within the tolerance of {migration.tolerance}, "
            f"so the new codecs {done}"
        )
    elif arithmetic:
        then = f"accept them with a tolerance of {worst:g}ulp, or keep the old codec"
    else:
        then = "keep the old codec unless a tolerance covers them"
    if arithmetic:
        ulps = f"{worst:g} ulp" + ("" if worst == 1 else "s")
        return (
            f"float arithmetic: numcodecs decodes in float64 and rounds to {dtype.name} once; "
            f"scale_offset computes in {dtype.name} itself (a divide and an add, each "
            f"rounded), so a result can land up to {ulps} away. Both are faithful decodings; "
            f"{then}"
        )
    return (
        "the old and the new codecs compute differently for these values (the spec's "
        f"'Conversion to scale_offset'); {then}"
    )


def _free_name(path: Path) -> Path:
    """``path`` itself, or with ``.1``, ``.2``... when an earlier migration left one there."""
    candidate, n = path, 0
    while candidate.exists():
        n += 1
        candidate = path.with_name(f"{path.name}.{n}")
    return candidate


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
        if a.dtype != b.dtype:
            migration.mismatches.append(f"{key}: decodes to {b.dtype}, was {a.dtype}")
            continue
        difference = _difference(key, a, b)
        if difference is None:
            continue
        migration.differences.append(difference)
        if migration.tolerance is None or not migration.tolerance.accepts(difference):
            migration.mismatches.append(difference.describe())


def _difference(key: str, old: np.ndarray, new: np.ndarray) -> ChunkDifference | None:
    """Where ``new`` differs from ``old`` bit for bit, and by how much; ``None`` if nowhere."""
    # Bits, not values: -0.0 against 0.0 and NaN payloads count as differences too.
    bits = np.dtype(f"u{old.dtype.itemsize}") if old.dtype.kind in "fiu" else None
    differs = old != new if bits is None else old.view(bits) != new.view(bits)
    if not differs.any():
        return None
    a = old[differs].astype(np.float64)
    b = new[differs].astype(np.float64)
    with np.errstate(invalid="ignore"):
        gap = np.where(np.isnan(a) & np.isnan(b), 0.0, np.abs(a - b))
    gap = np.where(np.isnan(gap), np.inf, gap)
    if old.dtype.kind == "f":
        unit = np.spacing(np.maximum(np.abs(old[differs]), np.abs(new[differs]))).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            ulps = np.where(np.isinf(gap), np.inf, np.rint(gap / unit))
    else:
        ulps = gap
    where = tuple(int(i) for i in np.argwhere(differs)[int(np.argmax(gap))])
    return ChunkDifference(
        key=key,
        differing=int(differs.sum()),
        total=int(old.size),
        max_abs=float(gap.max()),
        max_ulps=float(ulps.max()),
        index=where,
        old=old[where].item(),
        new=new[where].item(),
    )


def _plain_zarr_warnings(store: Any) -> list[str]:
    """What plain zarr-python (none of ours selected) warns when it opens and reads the new
    metadata: each warning with the implementations it had to choose from, and how to choose."""
    import zarr
    from zarr import registry

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            array = zarr.open_array(store, mode="r")
            array[tuple(slice(0, 1) for _ in array.shape)]
        except Exception as error:  # reported, not raised: this is advice
            return [f"plain zarr-python cannot read the new metadata: {error}"]
    notes = []
    for warning in caught:
        message = str(warning.message)
        found = re.search(r"Codec '([^']+)' not configured", message)
        if found is None:
            notes.append(f"plain zarr-python warns: {message}")
            continue
        name = found.group(1)
        choices = sorted(registry._codec_registries.get(name, {}))
        own = next((c for c in choices if c.startswith("zarr.codecs.")), "...")
        notes.append(
            f"plain zarr-python warns that {len(choices)} implementations of {name!r} are "
            f"registered ({', '.join(choices)}): another installed package registers one beside "
            f"zarr's own, and zarr's config names none. Pick one to silence it: "
            f"zarr.config.set({{'codecs.{name}': '{own}'}}) or ZARR_CODECS__{name.upper()}={own}"
        )
    return notes


def _put(store: Any, key: str, data: bytes) -> None:
    import asyncio

    from zarr.core.buffer import default_buffer_prototype

    asyncio.run(store.set(key, default_buffer_prototype().buffer.from_bytes(data)))
