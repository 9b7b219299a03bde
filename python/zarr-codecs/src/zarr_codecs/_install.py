"""Make an existing zarr-python program use our codecs, and undo it exactly.

Zarr v3 arrays find codecs through zarr's registry and its ``codecs.<name>`` config entries;
Zarr v2 arrays through numcodecs' registry. :func:`install` points both at our classes
(``zarr_codec_shapes.zarr_python.select`` and ``zarr_codec_shapes.numcodecs.register``), and
makes codec objects of zarr's own classes, which no lookup reaches, run ours
(``_zarr_objects``); :func:`uninstall` puts back what was there. While anything is
installed, zarr arrays unpickled in this process (sent by a dask client, say) use what is
installed here too (see ``_unpickling``). Nothing happens at import: installing the wheels
alone changes nothing.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from zarr_codecs import _installed, _zarr_objects
from zarr_codecs._installed import installed_parts
from zarr_codecs._unpickling import follow, unfollow

__all__ = ["BINDINGS", "Binding", "Installation", "install", "installed_parts", "uninstall"]


@dataclass(frozen=True)
class Binding:
    """Where one codec of ours plugs into zarr-python (v3) and numcodecs (v2)."""

    name: str  # the Zarr v3 codec name
    distribution: str  # the wheel that provides it
    zarr_class: str | None  # "module:attribute" of the zarr-python codec class (v3), if any
    numcodecs_class: str | None = None  # "module:attribute" of the numcodecs class (Zarr v2)
    zarr_own_class: str | None = None  # "module:attribute" of zarr-python's own class for it

    @property
    def v2_id(self) -> str | None:
        """The numcodecs id this codec answers to in Zarr v2 metadata."""
        return None if self.numcodecs_class is None else self.load(self.numcodecs_class).codec_id

    @staticmethod
    def load(target: str) -> Any:
        """The object ``"module:attribute"`` names."""
        module, _, attribute = target.partition(":")
        return getattr(importlib.import_module(module), attribute)

    def zarr_own(self) -> type[Any] | None:
        """zarr-python's own class for this codec, where this zarr-python has one."""
        if self.zarr_own_class is None:
            return None
        try:
            found: type[Any] = self.load(self.zarr_own_class)
        except (ImportError, AttributeError):  # an older zarr-python without it
            return None
        return found


#: Every codec :func:`install` replaces, in a fixed order.
BINDINGS: tuple[Binding, ...] = (
    Binding(
        "gzip",
        "zarr-codec-gzip",
        "zarr_codec_gzip.zarr_python:GzipCodec",
        "zarr_codec_gzip.numcodecs:GZip",
        "zarr.codecs:GzipCodec",
    ),
    Binding(
        "blosc",
        "zarr-codec-blosc",
        "zarr_codec_blosc.zarr_python:BloscCodec",
        "zarr_codec_blosc.numcodecs:Blosc",
        "zarr.codecs:BloscCodec",
    ),
    Binding(
        "zstd",
        "zarr-codec-zstd",
        "zarr_codec_zstd.zarr_python:ZstdCodec",
        "zarr_codec_zstd.numcodecs:Zstd",
        "zarr.codecs:ZstdCodec",
    ),
    Binding(
        "crc32c",
        "zarr-codec-crc32c",
        "zarr_codec_crc32c.zarr_python:Crc32cCodec",
        "zarr_codec_crc32c.numcodecs:CRC32C",
        "zarr.codecs:Crc32cCodec",
    ),
    Binding(
        "cast_value",
        "zarr-codec-cast-value",
        "zarr_codec_cast_value.zarr_python:CastValueCodec",
        zarr_own_class="zarr.codecs.cast_value:CastValue",
    ),
    Binding(
        "scale_offset",
        "zarr-codec-scale-offset",
        "zarr_codec_scale_offset.zarr_python:ScaleOffsetCodec",
        zarr_own_class="zarr.codecs.scale_offset:ScaleOffset",
    ),
    Binding(
        "numcodecs.fixedscaleoffset",
        "zarr-codec-scale-offset",
        "zarr_codec_scale_offset.zarr_python:FixedScaleOffsetCodec",
        "zarr_codec_scale_offset.numcodecs:FixedScaleOffset",
    ),
    Binding(
        "numcodecs.zlib",
        "zarr-codec-gzip",
        "zarr_codec_gzip.zarr_python:ZlibCodec",
        "zarr_codec_gzip.numcodecs:Zlib",
        "zarr.codecs.numcodecs:Zlib",
    ),
    Binding(
        "numcodecs.shuffle",
        "zarr-codec-filters",
        "zarr_codec_filters.zarr_python:ShuffleCodec",
        "zarr_codec_filters.numcodecs:Shuffle",
        "zarr.codecs.numcodecs:Shuffle",
    ),
    Binding(
        "numcodecs.lzma",
        "zarr-codec-lzma",
        "zarr_codec_lzma.zarr_python:LzmaCodec",
        "zarr_codec_lzma.numcodecs:LZMA",
        "zarr.codecs.numcodecs:LZMA",
    ),
    Binding(
        "numcodecs.bz2",
        "zarr-codec-bz2",
        "zarr_codec_bz2.zarr_python:Bz2Codec",
        "zarr_codec_bz2.numcodecs:BZ2",
        "zarr.codecs.numcodecs:BZ2",
    ),
    Binding(
        "numcodecs.base64",
        "zarr-codec-vlen",
        "zarr_codec_vlen.zarr_python:Base64Codec",
        "zarr_codec_vlen.numcodecs:Base64",
    ),
    Binding(
        "vlen-utf8",
        "zarr-codec-vlen",
        "zarr_codec_vlen.zarr_python:VLenUTF8Codec",
        "zarr_codec_vlen.numcodecs:VLenUTF8",
        "zarr.codecs:VLenUTF8Codec",
    ),
    Binding(
        "vlen-bytes",
        "zarr-codec-vlen",
        "zarr_codec_vlen.zarr_python:VLenBytesCodec",
        "zarr_codec_vlen.numcodecs:VLenBytes",
        "zarr.codecs:VLenBytesCodec",
    ),
    # Zarr v2 object arrays only: zarr-python has no v3 codec of that name.
    Binding("vlen-array", "zarr-codec-vlen", None, "zarr_codec_vlen.numcodecs:VLenArray"),
    # Decodes only once the caller opts in (zarr_codec_vlen.allow_pickle): numcodecs' own runs
    # any pickle it is given.
    Binding("pickle", "zarr-codec-vlen", None, "zarr_codec_vlen.numcodecs:Pickle"),
    Binding("categorize", "zarr-codec-vlen", None, "zarr_codec_vlen.numcodecs:Categorize"),
    Binding("json2", "zarr-codec-vlen", None, "zarr_codec_vlen.numcodecs:JSON"),
    Binding("msgpack2", "zarr-codec-vlen", None, "zarr_codec_vlen.numcodecs:MsgPack"),
    Binding(
        "numcodecs.pcodec",
        "zarr-codec-pcodec",
        "zarr_codec_pcodec.zarr_python:PCodecCodec",
        "zarr_codec_pcodec.numcodecs:PCodec",
        "zarr.codecs.numcodecs:PCodec",
    ),
    Binding(
        "numcodecs.zfpy",
        "zarr-codec-zfpy",
        "zarr_codec_zfpy.zarr_python:ZfpyCodec",
        "zarr_codec_zfpy.numcodecs:ZFPY",
        "zarr.codecs.numcodecs:ZFPY",
    ),
    Binding(
        "numcodecs.lz4",
        "zarr-codec-lz4",
        "zarr_codec_lz4.zarr_python:Lz4Codec",
        "zarr_codec_lz4.numcodecs:LZ4",
        "zarr.codecs.numcodecs:LZ4",
    ),
    *(
        Binding(
            f"numcodecs.{codec_id}",
            "zarr-codec-filters",
            f"zarr_codec_filters.zarr_python:{name}Codec",
            f"zarr_codec_filters.numcodecs:{name}",
            f"zarr.codecs.numcodecs:{name}",
        )
        for codec_id, name in (
            ("delta", "Delta"),
            ("bitround", "BitRound"),
            ("quantize", "Quantize"),
            ("astype", "AsType"),
            ("packbits", "PackBits"),
        )
    ),
    *(
        Binding(
            f"numcodecs.{codec_id}",
            "zarr-codec-checksums",
            f"zarr_codec_checksums.zarr_python:{ours}Codec",
            f"zarr_codec_checksums.numcodecs:{numcodecs_class}",
            f"zarr.codecs.numcodecs:{numcodecs_class}",
        )
        for codec_id, ours, numcodecs_class in (
            ("crc32", "Crc32", "CRC32"),
            ("adler32", "Adler32", "Adler32"),
            ("fletcher32", "Fletcher32", "Fletcher32"),
            ("jenkins_lookup3", "JenkinsLookup3", "JenkinsLookup3"),
        )
    ),
)

_lock = _installed.lock
_parts = _installed.parts
_previous_pipeline: list[Any] = []  # zarr's codec_pipeline.path before "pipeline"


def _available(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


class Installation:
    """What :func:`install` did. As a context manager, leaving the block undoes it (unless it
    was already installed when the block began)."""

    def __init__(self, added: frozenset[str]) -> None:
        self.added = added

    @property
    def parts(self) -> frozenset[str]:
        """What is installed now (see :func:`installed_parts`)."""
        return installed_parts()

    def __enter__(self) -> Installation:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        _remove(self.added)

    def __repr__(self) -> str:
        return f"<zarr_codecs installation: {', '.join(sorted(self.parts)) or 'nothing'}>"


def install(*, zarr: bool = True, numcodecs: bool = True, pipeline: bool = False) -> Installation:
    """Make zarr-python (Zarr v3, ``zarr=True``) and numcodecs (Zarr v2 arrays and direct
    numcodecs users, ``numcodecs=True``) use ours (every codec in :data:`BINDINGS`: gzip,
    blosc, zstd, crc32c, cast_value, scale_offset, and numcodecs' fixedscaleoffset, zlib, lz4,
    bz2, lzma, base64, checksums, filters, and the vlen codecs of string, bytes and object
    arrays) for every codec they build from a name or from JSON (arrays opened from their
    metadata, codecs given as JSON). Codec objects of zarr-python's
    own classes for those names (``zarr.codecs.GzipCodec(level=5)``, the default
    ``ZstdCodec``) stay zarr-python's objects, but their chunk methods run ours (see
    ``zarr_codecs._zarr_objects``). ``pipeline=True`` also selects
    ``zarr_codecs.pipeline.ChainCodecPipeline``, which runs whole reads and writes through
    our runtime. A library that is not installed is skipped. Idempotent.

    Returns an :class:`Installation`; ``with zarr_codecs.install(): ...`` undoes it on exit.
    """
    chosen = (("zarr", zarr), ("numcodecs", numcodecs), ("pipeline", pipeline))
    wanted = {part for part, on in chosen if on}
    added: set[str] = set()
    with _lock:
        for part in sorted(wanted - _parts):
            if _available("zarr" if part == "pipeline" else part):
                _INSTALLERS[part][0]()
                _parts.add(part)
                added.add(part)
        if _parts:
            follow()  # arrays unpickled here (from a dask client, say) use ours too
    return Installation(frozenset(added))


def reapply() -> None:
    """Put back in zarr-python's config what :func:`install` put there (our codec classes, and
    the pipeline if it was installed), after something reset that config: ``zarr.config.reset()``
    (which zarr-python's own test suite calls before every test) forgets them, while
    :func:`installed_parts` still lists them. numcodecs' registry is not reset that way."""
    with _lock:
        if "zarr" in _parts:
            _select_in_zarr()
        if "pipeline" in _parts:
            _select_pipeline()


def uninstall() -> None:
    """Undo :func:`install`: zarr's registry and config, and numcodecs' registry, exactly as
    they were. Idempotent."""
    _remove(frozenset(_INSTALLERS))


def _remove(parts: frozenset[str]) -> None:
    with _lock:
        for part in sorted(parts & _parts):
            _INSTALLERS[part][1]()
            _parts.discard(part)
        if not _parts:
            unfollow()


def _select_in_zarr() -> None:
    from zarr_codec_shapes.zarr_python import select

    for binding in BINDINGS:
        if binding.zarr_class is None:
            continue
        ours = Binding.load(binding.zarr_class)
        select(binding.name, ours)
        theirs = binding.zarr_own()
        if theirs is not None:
            _zarr_objects.replace(theirs, ours)


def _unselect_in_zarr() -> None:
    from zarr_codec_shapes.zarr_python import unselect

    for binding in reversed(BINDINGS):
        if binding.zarr_class is None:
            continue
        theirs = binding.zarr_own()
        if theirs is not None:
            _zarr_objects.restore(theirs)
        unselect(binding.name, Binding.load(binding.zarr_class))


def _register_in_numcodecs() -> None:
    from zarr_codec_shapes import numcodecs as adapter

    for binding in BINDINGS:
        if binding.numcodecs_class is not None:
            adapter.register(Binding.load(binding.numcodecs_class))


def _unregister_in_numcodecs() -> None:
    from zarr_codec_shapes import numcodecs as adapter

    for binding in reversed(BINDINGS):
        if binding.v2_id is not None:
            adapter.unregister(binding.v2_id)


def _select_pipeline() -> None:
    import zarr

    from zarr_codecs.pipeline import PATH

    _previous_pipeline[:] = [zarr.config.get("codec_pipeline.path")]
    zarr.config.set({"codec_pipeline.path": PATH})


def _unselect_pipeline() -> None:
    import zarr

    from zarr_codecs.pipeline import PATH

    if zarr.config.get("codec_pipeline.path") == PATH and _previous_pipeline:
        zarr.config.set({"codec_pipeline.path": _previous_pipeline[0]})
    _previous_pipeline.clear()


_INSTALLERS = {
    "zarr": (_select_in_zarr, _unselect_in_zarr),
    "numcodecs": (_register_in_numcodecs, _unregister_in_numcodecs),
    "pipeline": (_select_pipeline, _unselect_pipeline),
}
