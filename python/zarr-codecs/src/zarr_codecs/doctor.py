"""``zarr-codecs doctor``: is this installation whole and running compiled code?

For each of our distributions: its version, the wheel it came from (the platform tags in its
``WHEEL`` file, and whether this interpreter accepts them) or the development build it is; then,
for each codec, one chunk of distinct values run through the runtime both ways and compared bit
for bit, saying whether the codec's compiled kernel ran (the runtime's plan) or Python did.
"""

from __future__ import annotations

import importlib.metadata
import json
import platform
import sys
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["CodecCheck", "Installed", "KernelCheck", "check_kernels", "collect", "render"]

#: Every distribution of ours, in dependency order.
DISTRIBUTIONS = (
    "zarr-codec-shapes",
    "zarr-codec-gzip",
    "zarr-codec-blosc",
    "zarr-codec-zstd",
    "zarr-codec-crc32c",
    "zarr-codec-cast-value",
    "zarr-codec-scale-offset",
    "zarr-codec-checksums",
    "zarr-codec-lz4",
    "zarr-codec-bz2",
    "zarr-codec-lzma",
    "zarr-codec-filters",
    "zarr-codec-vlen",
    "zarr-codec-pcodec",
    "zarr-codec-zfpy",
    "zarr-codec-runtime",
    "zarr-codecs",
)

_BYTES = {"name": "bytes", "configuration": {"endian": "little"}}


@dataclass(frozen=True)
class CodecCheck:
    """One codec's probe: its chain (v3 JSON), the chunk's data type, and the values; or, for
    chunks of Python objects (strings), ``probe``, which runs the codec both ways and says
    whether compiled code ran and the values came back exactly."""

    name: str
    distribution: str
    codecs: list[dict[str, Any]]
    data_type: str
    values: Callable[[], np.ndarray[Any, Any]]
    probe: Callable[[np.ndarray[Any, Any]], tuple[bool, bool]] | None = None


def _distinct_uint32() -> np.ndarray[Any, Any]:
    """Every byte of every element distinct from its neighbours' (a swapped or shifted byte
    shows)."""
    return (np.arange(1024, dtype=np.uint64) * 0x01030507 + 0x11223344).astype(np.uint32)


def _halves() -> np.ndarray[Any, Any]:
    """float64 values that float32, and scaling by 2 with an offset of 1.5, hold exactly."""
    return np.arange(-512, 512, dtype=np.float64) * 0.5


def _bits() -> np.ndarray[Any, Any]:
    """Booleans in no period of eight (a shifted or reordered bit shows)."""
    return (np.arange(1021) * 7919 % 13) < 6


def _texts() -> np.ndarray[Any, Any]:
    """Strings of every UTF-8 length class, an empty one among them, as numpy strings."""
    words = ["", "a", "zarr", "température", "東京", "🙂 ok"]
    return np.array([words[i % len(words)] * (i % 5) for i in range(257)], dtype="T")


def _probe_strings(kind: str) -> Callable[[np.ndarray[Any, Any]], tuple[bool, bool]]:
    """A probe of the string chain the pipeline runs for ``kind`` (``"utf8"``, ``"bytes"``):
    ``values`` through it with zstd after, both ways."""

    def probe(values: np.ndarray[Any, Any]) -> tuple[bool, bool]:
        from zarr_codec_shapes.registry import get_codec

        from zarr_codecs._strings import StringChain, Strings

        items = values if kind == "utf8" else np.array([v.encode() for v in values], object)
        zstd = get_codec({"name": "zstd", "configuration": {"level": 1, "checksum": False}}, 3)
        chain = StringChain(Strings(kind), [zstd], items.shape, "C")  # type: ignore[arg-type]
        (stored,) = chain.encode_batch([items])
        (decoded,) = chain.decode_batch([stored], items.dtype)
        from zarr_codec_vlen import _vlen

        return _extension(_vlen), decoded.dtype == items.dtype and bool(np.all(decoded == items))

    return probe


def _probe_arrays(values: np.ndarray[Any, Any]) -> tuple[bool, bool]:
    """numcodecs' ``VLenArray`` class of ours, both ways, on arrays of several lengths."""
    from zarr_codec_vlen import _vlen
    from zarr_codec_vlen.numcodecs import VLenArray

    arrays = np.empty(len(values), dtype=object)
    for index, value in enumerate(values):
        arrays[index] = np.arange(len(str(value)), dtype="<i4") - index
    codec = VLenArray("<i4")
    decoded = codec.decode(codec.encode(arrays))
    exact = len(decoded) == len(arrays) and all(
        np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(decoded, arrays, strict=True)
    )
    return _extension(_vlen), exact


def _probe_pickle(values: np.ndarray[Any, Any]) -> tuple[bool, bool]:
    """numcodecs' ``Pickle`` class of ours: refused without the caller's consent, then both
    ways with it, by CPython's compiled pickler."""
    import _pickle
    import pickle

    from zarr_codec_shapes.errors import UnsupportedError
    from zarr_codec_vlen.numcodecs import Pickle
    from zarr_codec_vlen.pickles import allow_pickle, pickle_allowed

    codec, items = Pickle(), values.astype(object)
    encoded = codec.encode(items)
    try:
        codec.decode(encoded)
    except UnsupportedError:
        refused = True
    else:
        refused = pickle_allowed()  # this process opted in already: no refusal to see
    with allow_pickle():
        decoded = codec.decode(encoded)
    exact = refused and decoded.dtype == items.dtype and bool(np.all(decoded == items))
    return pickle.loads is _pickle.loads, exact


def _probe_categorize(values: np.ndarray[Any, Any]) -> tuple[bool, bool]:
    """numcodecs' ``Categorize`` class of ours, both ways, on object and fixed-width strings."""
    from zarr_codec_vlen import _vlen
    from zarr_codec_vlen.numcodecs import Categorize

    labels = sorted({str(v) for v in values} - {""})
    exact = True
    for dtype in (object, f"<U{max(len(str(v)) for v in values)}"):
        items = values.astype(dtype)
        codec = Categorize(labels, dtype, astype="<u2")
        decoded = codec.decode(codec.encode(items))
        exact &= decoded.dtype == items.dtype and bool(np.all(decoded == items))
    return _extension(_vlen), exact


def _probe_objects(values: np.ndarray[Any, Any]) -> tuple[bool, bool]:
    """numcodecs' ``JSON`` and ``MsgPack`` classes of ours, both ways, on an object array of
    strings, numbers and nested lists and dicts."""
    from zarr_codec_vlen import _vlen
    from zarr_codec_vlen.numcodecs import JSON, MsgPack

    items = np.empty(len(values) + 3, dtype=object)
    items[: len(values)] = [str(v) for v in values]
    items[len(values) :] = [1.5, -(2**40), {"k": [1, None, "ü"]}]
    exact = True
    for codec in (JSON(), MsgPack()):
        decoded = codec.decode(codec.encode(items))
        exact &= decoded.dtype == items.dtype and list(decoded) == list(items)
    return _extension(_vlen), exact


def _extension(module: Any) -> bool:
    """Whether ``module`` was loaded from a compiled extension (not Python source)."""
    import importlib.machinery

    path = str(getattr(module, "__file__", "") or "")
    return path.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def _filter(name: str, configuration: dict[str, Any]) -> dict[str, Any]:
    return {"name": f"numcodecs.{name}", "configuration": configuration}


CHECKS = (
    CodecCheck(
        "gzip",
        "zarr-codec-gzip",
        [_BYTES, {"name": "gzip", "configuration": {"level": 1}}],
        "uint32",
        _distinct_uint32,
    ),
    CodecCheck(
        "blosc",
        "zarr-codec-blosc",
        [
            _BYTES,
            {
                "name": "blosc",
                "configuration": {
                    "cname": "lz4",
                    "clevel": 5,
                    "shuffle": "shuffle",
                    "typesize": 4,
                    "blocksize": 0,
                },
            },
        ],
        "uint32",
        _distinct_uint32,
    ),
    CodecCheck(
        "zstd",
        "zarr-codec-zstd",
        [_BYTES, {"name": "zstd", "configuration": {"level": 1, "checksum": True}}],
        "uint32",
        _distinct_uint32,
    ),
    CodecCheck(
        "crc32c",
        "zarr-codec-crc32c",
        [_BYTES, {"name": "crc32c"}],
        "uint32",
        _distinct_uint32,
    ),
    *(
        CodecCheck(
            name.removeprefix("numcodecs."),
            distribution,
            [_BYTES, {"name": name, "configuration": configuration}],
            "uint32",
            _distinct_uint32,
        )
        for name, distribution, configuration in (
            ("numcodecs.zlib", "zarr-codec-gzip", {"level": 1}),
            ("numcodecs.lz4", "zarr-codec-lz4", {"acceleration": 1}),
            ("numcodecs.bz2", "zarr-codec-bz2", {"level": 1}),
            ("numcodecs.lzma", "zarr-codec-lzma", {"format": 1, "check": -1, "preset": 1}),
            ("numcodecs.shuffle", "zarr-codec-filters", {"elementsize": 4}),
            ("numcodecs.base64", "zarr-codec-vlen", {}),
            ("numcodecs.crc32", "zarr-codec-checksums", {}),
            ("numcodecs.adler32", "zarr-codec-checksums", {"location": "end"}),
            ("numcodecs.fletcher32", "zarr-codec-checksums", {}),
            ("numcodecs.jenkins_lookup3", "zarr-codec-checksums", {"initval": 7}),
        )
    ),
    CodecCheck(
        "delta",
        "zarr-codec-filters",
        [_filter("delta", {"dtype": "<u4"}), _BYTES],
        "uint32",
        _distinct_uint32,
    ),
    *(
        CodecCheck(
            name, "zarr-codec-filters", [_filter(name, configuration), _BYTES], "float64", _halves
        )
        for name, configuration in (
            ("bitround", {"keepbits": 10}),
            ("quantize", {"digits": 1, "dtype": "<f8"}),
            ("astype", {"encode_dtype": "<f4", "decode_dtype": "<f8"}),
        )
    ),
    CodecCheck(
        "packbits",
        "zarr-codec-filters",
        [_filter("packbits", {}), {"name": "bytes"}],
        "bool",
        _bits,
    ),
    CodecCheck(
        "vlen-utf8",
        "zarr-codec-vlen",
        [{"name": "vlen-utf8"}],
        "string",
        _texts,
        _probe_strings("utf8"),
    ),
    CodecCheck(
        "vlen-bytes",
        "zarr-codec-vlen",
        [{"name": "vlen-bytes"}],
        "bytes",
        _texts,
        _probe_strings("bytes"),
    ),
    CodecCheck(
        "vlen-array",
        "zarr-codec-vlen",
        [{"name": "vlen-array"}],
        "int32",
        _texts,
        _probe_arrays,
    ),
    CodecCheck(
        "categorize",
        "zarr-codec-vlen",
        [{"name": "categorize"}],
        "string",
        _texts,
        _probe_categorize,
    ),
    *(
        CodecCheck(name, "zarr-codec-vlen", [{"name": name}], "string", _texts, _probe_objects)
        for name in ("json2", "msgpack2")
    ),
    CodecCheck("pickle", "zarr-codec-vlen", [{"name": "pickle"}], "string", _texts, _probe_pickle),
    CodecCheck(
        "pcodec",
        "zarr-codec-pcodec",
        [{"name": "numcodecs.pcodec", "configuration": {"level": 8}}],
        "float64",
        _halves,
    ),
    CodecCheck(
        "zfpy",
        "zarr-codec-zfpy",
        [{"name": "numcodecs.zfpy", "configuration": {"mode": 4, "tolerance": -1}}],
        "float64",
        _halves,
    ),
    CodecCheck(
        "cast_value",
        "zarr-codec-cast-value",
        [{"name": "cast_value", "configuration": {"data_type": "float32"}}, _BYTES],
        "float64",
        _halves,
    ),
    CodecCheck(
        "scale_offset",
        "zarr-codec-scale-offset",
        [{"name": "scale_offset", "configuration": {"offset": 1.5, "scale": 2}}, _BYTES],
        "float64",
        _halves,
    ),
)


@dataclass(frozen=True)
class Installed:
    """One distribution as installed."""

    distribution: str
    version: str  # "not installed" when absent
    source: str  # "wheel", "editable (development build)", "local build", ...
    tags: tuple[str, ...]  # the wheel's tags (from its WHEEL file)
    fits: bool | None  # whether this interpreter accepts one of them (None: cannot tell)


@dataclass(frozen=True)
class KernelCheck:
    """One codec's result here."""

    name: str
    compiled: bool  # the runtime ran the codec's compiled kernel (not Python)
    exact: bool  # decoded values equal the originals, bit for bit
    detail: str


def _supported_tags() -> set[str] | None:
    try:
        from packaging.tags import sys_tags
    except ImportError:  # packaging is zarr's dependency, not ours
        return None
    return {str(tag) for tag in sys_tags()}


def _expand(tag: str) -> list[str]:
    """A compressed tag set (``cp312-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64``) as its
    single tags."""
    python, abi, platforms = tag.split("-")
    return [
        f"{p}-{a}-{plat}"
        for p in python.split(".")
        for a in abi.split(".")
        for plat in platforms.split(".")
    ]


def _source(dist: importlib.metadata.Distribution) -> str:
    text = dist.read_text("direct_url.json")
    if not text:
        return "wheel"
    try:
        direct = json.loads(text)
    except ValueError:
        return "wheel"
    if direct.get("dir_info", {}).get("editable"):
        return "editable (development build)"
    if "dir_info" in direct:
        return "built from a local folder"
    return "wheel from a file or URL"


def _installed(name: str, supported: set[str] | None) -> Installed:
    try:
        dist = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return Installed(name, "not installed", "-", (), None)
    wheel = dist.read_text("WHEEL") or ""
    tags = tuple(
        line.split(":", 1)[1].strip() for line in wheel.splitlines() if line.startswith("Tag:")
    )
    fits = None
    if supported is not None and tags:
        fits = any(single in supported for tag in tags for single in _expand(tag))
    return Installed(name, dist.version, _source(dist), tags, fits)


def collect() -> list[Installed]:
    """Every distribution of ours: installed or not, from what, for which platform."""
    supported = _supported_tags()
    return [_installed(name, supported) for name in DISTRIBUTIONS]


def _check_one(check: CodecCheck) -> KernelCheck:
    try:
        from zarr_codec_runtime import Chain
        from zarr_codec_shapes.chunk_spec import ChunkSpec

        values = check.values()
        if check.probe is not None:
            compiled, exact = check.probe(values)
            how = "compiled code" if compiled else "Python"
            return KernelCheck(
                check.name, compiled, exact, f"{how}; {'exact' if exact else 'WRONG'}"
            )
        chain = Chain.from_json(check.codecs, ChunkSpec(values.shape, check.data_type))
        compiled = chain.decode_plan is not None and chain.encode_plan is not None
        decoded = chain.decode(chain.encode(values))
        exact = decoded.dtype == values.dtype and decoded.tobytes() == values.tobytes()
    except Exception as err:  # any failure is the finding: report it, check the rest
        return KernelCheck(check.name, False, False, f"failed: {type(err).__name__}: {err}")
    how = "compiled kernel" if compiled else "Python (no compiled plan)"
    return KernelCheck(check.name, compiled, exact, f"{how}; {'exact' if exact else 'WRONG'}")


def check_kernels() -> list[KernelCheck]:
    """Each codec's chunk of distinct values, encoded and decoded here by the runtime."""
    return [_check_one(check) for check in CHECKS]


def healthy(installed: list[Installed], kernels: list[KernelCheck]) -> bool:
    """Everything installed, every wheel fit for this interpreter, every kernel compiled and
    exact."""
    return all(i.version != "not installed" and i.fits is not False for i in installed) and all(
        k.compiled and k.exact for k in kernels
    )


def render(installed: list[Installed], kernels: list[KernelCheck]) -> str:
    """The report as text, ending with its verdict."""
    lines = [
        f"Python {platform.python_version()} ({sys.implementation.name}), "
        f"platform {sysconfig.get_platform()}, numpy {np.__version__}",
        "",
        "distributions",
    ]
    width = max(len(name) for name in DISTRIBUTIONS)
    for item in installed:
        tags = ", ".join(item.tags) or "-"
        fits = {True: "fits this Python", False: "NOT for this Python", None: ""}[item.fits]
        where = f"{item.source}: {tags}" + (f" ({fits})" if fits else "")
        lines.append(f"  {item.distribution:<{width}}  {item.version:<14}  {where}")
    lines += ["", "codecs (a chunk of distinct values, encoded and decoded here)"]
    for kernel in kernels:
        lines.append(f"  {kernel.name:<{width}}  {kernel.detail}")
    verdict = healthy(installed, kernels)
    lines += ["", "all well" if verdict else "problems found (above)"]
    return "\n".join(lines)
