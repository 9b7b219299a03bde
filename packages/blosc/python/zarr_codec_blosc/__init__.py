"""The Zarr ``blosc`` codec on c-blosc 1.x, with every frame validated before C sees it.

``Blosc`` is a plain Python class holding its configuration (so it pickles, copies and
compares as a value); the work happens in its compiled codecs (``_blosc.blosc``, the glue's
generic bytes-codec binding) with the GIL released. ``shuffle`` and ``typesize`` may be left
unset: ``evolve`` resolves them from the array's element size (zarr-python's behaviour), and
``encode`` uses the input's item size.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Buffer, Sequence
from typing import Any, ClassVar, Literal

from zarr_codec_shapes import (
    BytesBytesCodecBase,
    ChunkSpec,
    ConfigurationError,
    RecommendedConcurrency,
    check_keys,
)
from zarr_codec_shapes.base import item_size
from zarr_codec_shapes.codec_json import canonical_configuration
from zarr_codec_shapes.compiled import CompiledBytesCodec

from zarr_codec_blosc import _blosc

__all__ = ["CBLOSC_VERSION", "COMPRESSORS", "Blosc"]
__version__ = "0.1.0"

#: The c-blosc library version doing the work.
CBLOSC_VERSION: str = _blosc.CBLOSC_VERSION
#: The compressors this build includes.
COMPRESSORS: tuple[str, ...] = tuple(_blosc.COMPRESSORS)


_AUTOMATIC_BLOCK = 256 * 1024  # about the block size c-blosc chooses, for planning
_V2_SHUFFLE = {-1: None, 0: "noshuffle", 1: "shuffle", 2: "bitshuffle"}


def _int(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigurationError(f"blosc: {name} must be an integer {low} to {high}, got {value!r}")
    return value


class Blosc(BytesBytesCodecBase):
    """Blosc compression: ``cname`` inside ``blocksize``-byte blocks after a shuffle filter.

    ``max_decoded_size`` caps what one frame may claim to decode to. ``threads`` is the
    number of c-blosc threads working inside one chunk (default 1); with more than one,
    encoded frames decode the same but their block order, and so their bytes, can vary.
    """

    name: ClassVar[str] = "blosc"
    codec_id: ClassVar[str | None] = "blosc"

    def __init__(
        self,
        cname: str = "zstd",
        clevel: int = 5,
        shuffle: str | None = None,
        typesize: int | None = None,
        blocksize: int = 0,
        *,
        max_decoded_size: int | None = None,
        threads: int = 1,
    ) -> None:
        # The configuration is validated by the Rust configuration type, nowhere else; a
        # shuffle or typesize left unset (resolved by `evolve`) stands in as "noshuffle" or 1.
        probe: dict[str, Any] = {
            "cname": cname,
            "clevel": clevel,
            "shuffle": "noshuffle" if shuffle is None else shuffle,
            "typesize": 1 if typesize is None else typesize,
            "blocksize": blocksize,
        }
        config = _configured(probe, 3)
        self.cname: str = config["cname"]
        self.clevel: int = config["clevel"]
        self.shuffle = shuffle
        self.typesize: int | None = None if typesize is None else config["typesize"]
        self.blocksize: int = config["blocksize"]
        if max_decoded_size is not None:  # any larger limit means none
            max_decoded_size = min(_int("max_decoded_size", max_decoded_size, 0, 2**200), 2**62)
        self.max_decoded_size = max_decoded_size
        # c-blosc's own threads inside one chunk (not metadata). One by default: c-blosc
        # stores blocks in the order its threads finish them, so only one thread gives
        # reproducible frames, and chunk-level parallelism (batches, zarr) is usually better.
        self.threads = _int("threads", threads, 1, 1024)

    # -- configuration ---------------------------------------------------------------------

    def configuration(self) -> dict[str, Any]:
        if self.shuffle is None or (self.typesize is None and self.shuffle != "noshuffle"):
            raise ConfigurationError(
                "blosc: shuffle and typesize must be resolved (evolve) before writing v3 metadata"
            )
        config: dict[str, Any] = {
            "cname": self.cname,
            "clevel": self.clevel,
            "shuffle": self.shuffle,
        }
        if self.typesize is not None:
            config["typesize"] = self.typesize
        config["blocksize"] = self.blocksize
        return config

    def v2_configuration(self) -> dict[str, Any]:
        shuffle = {v: k for k, v in _V2_SHUFFLE.items()}[self.shuffle]
        return {
            "cname": self.cname,
            "clevel": self.clevel,
            "shuffle": shuffle,
            "blocksize": self.blocksize,
        }

    def _arguments(self) -> tuple[Any, ...]:
        """What :func:`_rebuild` makes this codec again from."""
        return (
            self.cname,
            self.clevel,
            self.shuffle,
            self.typesize,
            self.blocksize,
            self.max_decoded_size,
            self.threads,
        )

    def _identity(self) -> tuple[Any, ...]:
        return (type(self), *self._arguments())

    def __repr__(self) -> str:
        return (
            f"Blosc(cname={self.cname!r}, clevel={self.clevel}, shuffle={self.shuffle!r}, "
            f"typesize={self.typesize!r}, blocksize={self.blocksize})"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, self._arguments())

    def __copy__(self) -> Blosc:
        return _rebuild(*self._arguments())

    @classmethod
    def from_configuration(cls, config: dict[str, Any]) -> Blosc:
        return cls(**_configured(config, 3))

    @classmethod
    def from_zarr_python_configuration(cls, config: dict[str, Any]) -> Blosc:
        """What zarr-python's own ``BloscCodec`` accepts from users: any key may be left out
        (its defaults are ours: zstd, level 5, automatic blocks; shuffle and typesize come
        from the data type when the array is created, and are then recorded). Used through
        zarr-python only; :meth:`from_json` keeps the spec's required keys."""
        check_keys(
            "blosc", config, optional=("cname", "clevel", "shuffle", "typesize", "blocksize")
        )
        return cls(**config)

    @classmethod
    def from_v2_configuration(cls, config: dict[str, Any]) -> Blosc:
        # numcodecs' Blosc takes a "typesize" key too (not in what numcodecs writes, nor in the
        # v2 form the Rust type reads): kept aside, then checked with the rest.
        rest = {key: value for key, value in config.items() if key != "typesize"}
        canonical = _configured(rest, 2)  # numcodecs' defaults: lz4, level 5, byte shuffle
        return cls(
            canonical["cname"],
            canonical["clevel"],
            _V2_SHUFFLE[canonical["shuffle"]],
            config.get("typesize"),
            canonical["blocksize"],
        )

    def evolve(self, spec: ChunkSpec) -> Blosc:
        """Resolve unset ``typesize``/``shuffle`` from the element size, as zarr-python does."""
        item_size = spec.data_type.itemsize
        typesize = self.typesize or item_size
        shuffle = self.shuffle or ("bitshuffle" if item_size == 1 else "shuffle")
        return _rebuild(
            self.cname,
            self.clevel,
            shuffle,
            typesize,
            self.blocksize,
            self.max_decoded_size,
            self.threads,
        )

    def recommended_concurrency(self, spec: ChunkSpec) -> RecommendedConcurrency:
        """c-blosc compresses a chunk's blocks independently: one thread per block helps
        (blocks of ``blocksize`` bytes, or about 256 KiB when c-blosc chooses), as the Rust
        codec reports."""
        block = self.blocksize or _AUTOMATIC_BLOCK
        return RecommendedConcurrency(1, -(-spec.num_bytes // block))

    def _resolved(self, data: Buffer) -> tuple[str, int]:
        # numcodecs' rule: typesize from the item size, the automatic shuffle by typesize.
        typesize = self.typesize or item_size(data)
        shuffle = self.shuffle or ("bitshuffle" if typesize == 1 else "shuffle")
        return shuffle, typesize

    def _compiled(self, shuffle: str, typesize: int, threads: int) -> CompiledBytesCodec:
        """The compiled codec with ``shuffle`` and ``typesize`` resolved (made once each)."""
        key = (shuffle, typesize, threads)
        made = self._made.get(key)
        if made is None:
            config = {**self._probe(), "shuffle": shuffle, "typesize": typesize}
            text = json.dumps({"name": "blosc", "configuration": config})
            made = self._made[key] = _blosc.blosc(text, 3, threads)
        return made

    @functools.cached_property
    def _made(self) -> dict[tuple[str, int, int], CompiledBytesCodec]:
        return {}

    def _probe(self) -> dict[str, Any]:
        return {"cname": self.cname, "clevel": self.clevel, "blocksize": self.blocksize}

    @property
    def _decoder(self) -> CompiledBytesCodec:
        """Decoding needs nothing the frame does not state."""
        return self._compiled("noshuffle", 1, self.threads)

    # -- codec -----------------------------------------------------------------------------

    def encode(self, data: Buffer, spec: ChunkSpec | None = None) -> bytes:
        """Compress ``data``; unset typesize/shuffle follow its item size."""
        return self._compiled(*self._resolved(data), self.threads).encode(data)

    def decode(self, data: Buffer, spec: ChunkSpec | None = None) -> bytes:
        """Decompress one frame (validated first)."""
        return self._decoder.decode(data, self.max_decoded_size)

    def decode_into(self, data: Buffer, out: Buffer, spec: ChunkSpec | None = None) -> int:
        """Decompress into ``out``; ``OutputSizeError`` if it is too small."""
        return self._decoder.decode_into(data, out)

    def max_encoded_size(self, decoded_size: int) -> int:
        """A frame is at most 16 bytes larger than its data."""
        return decoded_size + 16

    def encode_batch(self, chunks: Sequence[Buffer], threads: int | None = None) -> list[bytes]:
        """Compress every chunk in parallel (typesize from the first chunk when unset)."""
        chunks = list(chunks)
        shuffle, typesize = self._resolved(chunks[0]) if chunks else ("noshuffle", 1)
        return self._compiled(shuffle, typesize, 1).encode_batch(chunks, threads)

    def decode_batch(self, chunks: Sequence[Buffer], threads: int | None = None) -> list[bytes]:
        """Decompress every chunk in parallel with the GIL released."""
        decoder = self._compiled("noshuffle", 1, 1)
        return decoder.decode_batch(list(chunks), self.max_decoded_size, threads)

    def decode_batch_into(
        self, chunks: Sequence[Buffer], outs: Sequence[Buffer], threads: int | None = None
    ) -> list[int]:
        """Decompress each chunk into the matching ``out`` (writable, C-contiguous, sharing no
        memory with another ``out`` or any chunk), in parallel with the GIL released; returns
        the bytes written into each."""
        decoder = self._compiled("noshuffle", 1, 1)
        return decoder.decode_batch_into(list(chunks), list(outs), threads)

    def decode_kernel(self, spec: ChunkSpec | None = None) -> object:
        """Decoding as a compiled kernel, so that a :class:`zarr_codec_runtime.Chain` of our codecs
        decodes each chunk through all of them in Rust (frames need no configuration)."""
        return self._compiled("noshuffle", 1, 1).decode_kernel()

    def encode_kernel(self, spec: ChunkSpec | None = None) -> object | None:
        """Compression as a compiled kernel for a :class:`zarr_codec_runtime.Chain`, once
        ``shuffle`` and ``typesize`` are set (``evolve`` sets them); else ``None``."""
        if self.shuffle is None or self.typesize is None:
            return None
        return self._compiled(self.shuffle, self.typesize, 1).encode_kernel()


def _configured(config: dict[str, Any], zarr_format: Literal[2, 3]) -> dict[str, Any]:
    def check(text: str, fmt: int) -> str:
        return _blosc.blosc(text, fmt).configuration(fmt)

    return canonical_configuration(check, "blosc", config, zarr_format)


def _rebuild(
    cname: str,
    clevel: int,
    shuffle: str | None,
    typesize: int | None,
    blocksize: int,
    max_decoded_size: int | None,
    threads: int = 1,
) -> Blosc:
    return Blosc(
        cname,
        clevel,
        shuffle,
        typesize,
        blocksize,
        max_decoded_size=max_decoded_size,
        threads=threads,
    )
