"""``zarr-codecs info``: which codecs are installed, their versions and engines, and which
implementation zarr-python (v3) and numcodecs (v2) use for each name right now."""

from __future__ import annotations

import importlib
import importlib.metadata
import platform
from dataclasses import dataclass

from zarr_codecs._install import BINDINGS, Binding, installed_parts

__all__ = ["CodecInfo", "collect", "render"]

#: The native library behind each wheel: (module, attribute holding its version, library).
_ENGINES = {
    "zarr-codec-gzip": ("zarr_codec_gzip._gzip", "ENGINE", ""),
    "zarr-codec-blosc": ("zarr_codec_blosc", "CBLOSC_VERSION", "c-blosc "),
    "zarr-codec-zstd": ("zarr_codec_zstd._zstd", "ENGINE", ""),
    "zarr-codec-crc32c": ("zarr_codec_crc32c._crc32c", "ENGINE", ""),
    "zarr-codec-cast-value": ("", "", "Rust (exact casts)"),
    "zarr-codec-scale-offset": ("", "", "Rust (exact arithmetic)"),
    "zarr-codec-lz4": ("zarr_codec_lz4", "ENGINE", ""),
    "zarr-codec-bz2": ("zarr_codec_bz2", "ENGINE", ""),
    "zarr-codec-lzma": ("zarr_codec_lzma", "ENGINE", ""),
    "zarr-codec-checksums": ("", "", "Rust (crc-fast, simd-adler32, Fletcher and lookup3 loops)"),
    "zarr-codec-filters": ("", "", "Rust (numpy's exact arithmetic)"),
    "zarr-codec-vlen": (
        "",
        "",
        "Rust (numcodecs' vlen layout, numpy's NpyString API, Python's json and base64, msgpack)",
    ),
    "zarr-codec-pcodec": ("zarr_codec_pcodec", "ENGINE", ""),
    "zarr-codec-zfpy": ("zarr_codec_zfpy", "ENGINE", ""),
}


@dataclass(frozen=True)
class CodecInfo:
    """One codec name and what serves it."""

    name: str
    distribution: str
    version: str
    engine: str
    zarr_v3: str  # the class zarr-python uses for this name now
    numcodecs_v2: str  # the class numcodecs uses for the v2 id now ("-" when none)


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _engine(distribution: str) -> str:
    module, attribute, label = _ENGINES.get(distribution, ("", "", "?"))
    if not module:
        return label
    try:
        return label + str(getattr(importlib.import_module(module), attribute))
    except (ImportError, AttributeError) as err:
        return f"unavailable ({err})"


def _owner(cls: type) -> str:
    """Who provides ``cls``: ours, zarr's own, numcodecs' or another package's."""
    module = cls.__module__
    path = f"{module}.{cls.__qualname__}"
    if module.startswith("zarr_codec"):
        return f"{path} (ours)"
    top = module.split(".", 1)[0]
    owner = {"zarr": "zarr's own", "numcodecs": "numcodecs' own"}.get(top, top)
    return f"{path} ({owner})"


def _zarr_class(name: str) -> str:
    try:
        import zarr
    except ImportError:
        return "zarr-python not installed"
    import warnings

    from zarr.registry import _codec_registries, get_codec_class

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "not configured, selecting any": we say so
            chosen = _owner(get_codec_class(name))
    except Exception as err:
        return f"unavailable ({err})"
    candidates = len(_codec_registries.get(name, {}))
    if candidates > 1 and name not in zarr.config.get("codecs", {}):
        chosen += f"; zarr picked one of {candidates} implementations, none configured"
    return chosen


def _numcodecs_class(binding: Binding) -> str:
    if binding.numcodecs_class is None:
        return "- (no Zarr v2 form)"
    try:
        from numcodecs.registry import codec_registry
    except ImportError:
        return "numcodecs not installed"
    cls = codec_registry.get(binding.v2_id or "")
    return "none" if cls is None else _owner(cls)


def collect() -> list[CodecInfo]:
    """Everything ``info`` reports, one row per codec name."""
    return [
        CodecInfo(
            name=binding.name,
            distribution=binding.distribution,
            version=_version(binding.distribution),
            engine=_engine(binding.distribution),
            zarr_v3="- (no Zarr v3 form)"
            if binding.zarr_class is None
            else _zarr_class(binding.name),
            numcodecs_v2=_numcodecs_class(binding),
        )
        for binding in BINDINGS
    ]


def _numcodecs_coverage(rows: list[CodecInfo]) -> list[str]:
    """How many of the codec ids numcodecs registers install() makes ours, and which not."""
    try:
        from numcodecs.registry import codec_registry
    except ImportError:
        return ["numcodecs ids: numcodecs not installed"]
    ids = set(codec_registry)
    ours = {b.v2_id for b in BINDINGS if b.numcodecs_class is not None} & ids
    missing = ", ".join(sorted(ids - ours)) or "none"
    return [f"numcodecs ids install() makes ours: {len(ours)} of {len(ids)} (not yet: {missing})"]


def render(rows: list[CodecInfo]) -> str:
    """The report as text."""
    import numpy as np

    header = [
        f"zarr-codecs {_version('zarr-codecs')} "
        f"(zarr-codec-shapes {_version('zarr-codec-shapes')}); "
        f"Python {platform.python_version()}, numpy {np.__version__}, "
        f"zarr {_version('zarr')}, numcodecs {_version('numcodecs')}",
        f"installed into: {', '.join(sorted(installed_parts())) or 'nothing'} "
        "(zarr_codecs.install() or ZARR_CODECS_INSTALL=1 selects ours)",
        "",
    ]
    lines = [*_numcodecs_coverage(rows), ""]
    for row in rows:
        lines += [
            f"{row.name}",
            f"  package   {row.distribution} {row.version}",
            f"  engine    {row.engine}",
            f"  zarr v3   {row.zarr_v3}",
            f"  v2        {row.numcodecs_v2}",
        ]
    return "\n".join(header + lines)
