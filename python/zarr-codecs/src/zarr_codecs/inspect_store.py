"""``zarr-codecs inspect PATH``: the codec chain of every array in a local Zarr store (v2 or
v3), each codec checked against its spec.

Only metadata is read (``zarr.json``, ``.zarray``); no chunk is decoded and zarr-python is not
needed. A codec is checked by building it from its JSON with the ``zarr_codec_shapes`` registry (our
codecs validate their configuration exactly as the specs say) and resolving the chunk's data
type and fill value through the chain. Codecs without a ``zarr_codec_shapes`` implementation are
listed
as not checked. The chain's shape is checked too: array->array codecs, then exactly one
array->bytes codec, then bytes->bytes codecs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zarr_codec_shapes import ChunkSpec, CodecError, DataType, UnknownCodecError, get_codec
from zarr_codec_shapes.registry import available_codecs

__all__ = ["ArrayReport", "CodecReport", "inspect_store", "render"]

#: Kinds of the zarr-python built-ins we have no implementation of, to check the chain's shape.
_BUILTIN_KINDS = {
    "bytes": "array_bytes",
    "sharding_indexed": "array_bytes",
    "vlen-utf8": "array_bytes",
    "vlen-bytes": "array_bytes",
    "transpose": "array_array",
    "crc32c": "bytes_bytes",
    "zstd": "bytes_bytes",
}
_ORDER = {"array_array": 0, "array_bytes": 1, "bytes_bytes": 2}


@dataclass
class CodecReport:
    """One codec of a chain and what checking it found."""

    json: Any
    status: str  # "ok", "not checked" or "problem"
    detail: str = ""
    inner: list[CodecReport] = field(default_factory=list)  # sharding's inner chain


@dataclass
class ArrayReport:
    """One array: where it is, its type and chain, and the problems found."""

    path: str
    zarr_format: int
    data_type: str
    shape: tuple[int, ...]
    chunks: tuple[int, ...]
    codecs: list[CodecReport]
    problems: list[str]


def _name(codec: Any) -> str:
    if isinstance(codec, dict):
        return str(codec.get("name", codec.get("id", "?")))
    return str(codec)


def _check_bytes(codec: dict[str, Any], spec: ChunkSpec) -> CodecReport:
    config = codec.get("configuration", {})
    unknown = set(config) - {"endian"}
    endian = config.get("endian")
    if unknown:
        return CodecReport(codec, "problem", f"unknown keys {sorted(unknown)}")
    if endian not in (None, "little", "big"):
        return CodecReport(codec, "problem", f"endian must be 'little' or 'big', got {endian!r}")
    if endian is None and spec.data_type.itemsize > 1:
        return CodecReport(codec, "problem", "endian is required for multi-byte data types")
    return CodecReport(codec, "ok", "array -> bytes")


def _check_chain(codecs: list[Any], spec: ChunkSpec) -> tuple[list[CodecReport], list[str]]:
    """Check each codec and the chain's shape; resolve ``spec`` through the array codecs."""
    reports: list[CodecReport] = []
    problems: list[str] = []
    ours = available_codecs()
    last_kind = -1
    for position, codec in enumerate(codecs):
        name = _name(codec)
        kind: str | None = None
        if not isinstance(codec, dict) or "name" not in codec:
            report = CodecReport(codec, "problem", "not a v3 codec object with a 'name'")
        elif name == "bytes":
            report, kind = _check_bytes(codec, spec), "array_bytes"
        elif name == "sharding_indexed":
            report, kind = _check_sharding(codec, spec), "array_bytes"
        elif name in ours:
            report, kind, spec = _check_ours(codec, spec)
        else:
            kind = _BUILTIN_KINDS.get(name)
            report = CodecReport(
                codec, "not checked", "no zarr-codec-shapes implementation installed"
            )
        reports.append(report)
        if report.status == "problem":
            problems.append(f"codec {position} ({name}): {report.detail}")
        if kind is not None:
            if _ORDER[kind] < last_kind or (kind == "array_bytes" and last_kind == 1):
                problems.append(f"codec {position} ({name}): a {kind} codec cannot come here")
            last_kind = max(last_kind, _ORDER[kind])
    if last_kind < 1 and all(_name(c) in ours or _name(c) in _BUILTIN_KINDS for c in codecs):
        problems.append("the chain has no array -> bytes codec (such as bytes)")
    return reports, problems


def _check_ours(codec: dict[str, Any], spec: ChunkSpec) -> tuple[CodecReport, str, ChunkSpec]:
    try:
        built = get_codec(codec, 3)
    except CodecError as err:
        return CodecReport(codec, "problem", str(err)), "bytes_bytes", spec
    kind = str(getattr(built, "codec_type", "bytes_bytes"))
    if kind != "array_array":
        return CodecReport(codec, "ok", kind.replace("_", " -> ")), kind, spec
    try:
        encoded = built.resolve(spec)  # type: ignore[attr-defined]
    except CodecError as err:
        return CodecReport(codec, "problem", f"for {spec.data_type.name} chunks: {err}"), kind, spec
    detail = f"{spec.data_type.name} -> {encoded.data_type.name}"
    return CodecReport(codec, "ok", detail), kind, encoded


def _check_sharding(codec: dict[str, Any], spec: ChunkSpec) -> CodecReport:
    config = codec.get("configuration", {})
    inner_shape = config.get("chunk_shape")
    fits = (
        isinstance(inner_shape, list)
        and len(inner_shape) == len(spec.shape)
        and all(
            isinstance(n, int) and n > 0 and s % n == 0
            for n, s in zip(inner_shape, spec.shape, strict=True)
        )
    )
    if not fits:
        return CodecReport(
            codec, "problem", f"chunk_shape {inner_shape!r} does not divide the shard {spec.shape}"
        )
    inner_spec = ChunkSpec(tuple(inner_shape), spec.data_type, spec.fill_value)
    inner, problems = _check_chain(config.get("codecs", []), inner_spec)
    per_shard = tuple(s // n for s, n in zip(spec.shape, inner_shape, strict=True))
    index_spec = ChunkSpec((*per_shard, 2), "uint64", 2**64 - 1)
    index, index_problems = _check_chain(config.get("index_codecs", []), index_spec)
    problems += [f"index {p}" for p in index_problems]
    if problems:
        return CodecReport(codec, "problem", "; ".join(problems), inner + index)
    return CodecReport(codec, "ok", "array -> bytes (shards)", inner + index)


def _v3_array(path: Path, meta: dict[str, Any]) -> ArrayReport:
    name = meta.get("data_type")
    shape = tuple(meta.get("shape", ()))
    grid = meta.get("chunk_grid", {}).get("configuration", {})
    chunks = tuple(grid.get("chunk_shape", shape))
    try:
        spec = ChunkSpec(chunks, DataType.from_name(name), meta.get("fill_value"))
    except CodecError as err:
        report = ArrayReport(str(path), 3, str(name), shape, chunks, [], [])
        report.problems.append(f"data type or fill value not usable by zarr-codec-shapes: {err}")
        return report
    codecs, problems = _check_chain(meta.get("codecs", []), spec)
    return ArrayReport(str(path), 3, spec.data_type.name, shape, chunks, codecs, problems)


def _v2_array(path: Path, meta: dict[str, Any]) -> ArrayReport:
    shape = tuple(meta.get("shape", ()))
    chunks = tuple(meta.get("chunks", shape))
    dtype = str(meta.get("dtype"))
    compressor = [meta["compressor"]] if meta.get("compressor") else []
    chain = [*(meta.get("filters") or []), *compressor]
    reports: list[CodecReport] = []
    problems: list[str] = []
    for position, codec in enumerate(chain):
        label = _name(codec)
        if not isinstance(codec, dict) or "id" not in codec:
            reports.append(CodecReport(codec, "problem", "not a v2 codec object with an 'id'"))
        else:
            try:
                get_codec(codec, 2)
                reports.append(CodecReport(codec, "ok"))
            except CodecError as err:
                status = "not checked" if isinstance(err, UnknownCodecError) else "problem"
                reports.append(CodecReport(codec, status, str(err)))
        if reports[-1].status == "problem":
            problems.append(f"codec {position} ({label}): {reports[-1].detail}")
    return ArrayReport(str(path), 2, dtype, shape, chunks, reports, problems)


def inspect_store(root: str | Path) -> list[ArrayReport]:
    """Every array under ``root`` (itself included), in path order."""
    base = Path(root)
    if not base.is_dir():
        raise FileNotFoundError(f"{base}: not a directory (a local Zarr store)")
    reports: list[ArrayReport] = []
    for meta_file in sorted([*base.rglob("zarr.json"), *base.rglob(".zarray")]):
        # The root array is named "/", as ``zarr-codecs check`` names it (relative_to gives ".").
        relative = meta_file.parent.relative_to(base)
        where = "/" if relative == Path() else relative.as_posix()
        try:
            meta = json.loads(meta_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            # The format is the metadata file's; nothing else can be told of the array.
            zarr_format = 3 if meta_file.name == "zarr.json" else 2
            problem = f"{meta_file.name}: unreadable: {err}"
            bad = ArrayReport(where, zarr_format, "unknown", (), (), [], [problem])
            reports.append(bad)
            continue
        if meta_file.name == ".zarray":
            reports.append(_v2_array(Path(where), meta))
        elif meta.get("node_type") == "array":
            reports.append(_v3_array(Path(where), meta))
    return reports


def _render_codec(report: CodecReport, indent: str) -> list[str]:
    mark = {"ok": "ok", "not checked": "--", "problem": "!!"}[report.status]
    text = json.dumps(report.json, separators=(",", ":"))
    lines = [f"{indent}[{mark}] {text}" + (f"  ({report.detail})" if report.detail else "")]
    for inner in report.inner:
        lines += _render_codec(inner, indent + "      ")
    return lines


def render(reports: list[ArrayReport]) -> str:
    """The reports as text: one block per array, then a summary line."""
    lines: list[str] = []
    for report in reports:
        lines.append(
            f"{report.path}  (Zarr v{report.zarr_format}, {report.data_type}, "
            f"shape {report.shape}, chunks {report.chunks})"
        )
        for codec in report.codecs:
            lines += _render_codec(codec, "  ")
        lines += [f"  problem: {p}" for p in report.problems]
    bad = sum(1 for r in reports if r.problems)
    lines.append(f"{len(reports)} array(s), {bad} with problems")
    return "\n".join(lines)
