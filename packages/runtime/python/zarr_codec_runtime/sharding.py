"""``Sharding``: the ``sharding_indexed`` codec's configuration as codec objects, for a
:class:`~zarr_codec_runtime.Chain` to run in Rust (:class:`~zarr_codec_runtime.Runner`).

A shard holds a grid of inner chunks, each encoded with the inner codecs and found through the
shard's index (encoded with the index codecs, at the start or the end of the shard). The
runtime reads only the inner chunks a selection needs (from files, by byte range) and writes
whole shards, laying the inner chunks out as zarr-python does (Morton order by default), so
the bytes written are the bytes zarr-python writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from zarr_codec_shapes.bytes_codec import BytesCodec
from zarr_codec_shapes.errors import ConfigurationError
from zarr_codec_shapes.registry import get_codec

__all__ = ["INDEX_LOCATIONS", "WRITE_ORDERS", "Sharding"]

#: Where a shard's index may be.
INDEX_LOCATIONS = ("start", "end")

#: How the inner chunks may be laid out (zarr-python's ``subchunk_write_order``; not part of
#: the metadata, and readers follow the index whatever the order).
WRITE_ORDERS = ("morton", "lexicographic", "colexicographic", "unordered")


def _codec(data: Any) -> Any:
    """A codec object from its v3 JSON (``bytes`` built in)."""
    name = data.get("name") if isinstance(data, dict) else data
    if name == "bytes":
        return BytesCodec.from_json(data if isinstance(data, dict) else {"name": "bytes"}, 3)
    if name == "sharding_indexed":
        return Sharding.from_json(data, 3)
    if name == "transpose":
        from zarr_codec_runtime.transpose import Transpose

        return Transpose.from_json(data, 3)
    return get_codec(data, 3)


def _default_index_codecs() -> tuple[Any, ...]:
    return (BytesCodec("little"), get_codec({"name": "crc32c"}, 3))


@dataclass(frozen=True)
class Sharding:
    """``{"name": "sharding_indexed", "configuration": {"chunk_shape": [...], "codecs": [...],
    "index_codecs": [...], "index_location": "end"}}`` with its codecs as codec objects."""

    chunk_shape: tuple[int, ...]
    codecs: tuple[Any, ...]
    index_codecs: tuple[Any, ...] = field(default_factory=_default_index_codecs)
    index_location: str = "end"
    write_order: str = field(default="morton", compare=False)

    name: ClassVar[str] = "sharding_indexed"
    codec_type: ClassVar[str] = "array_bytes"

    def __post_init__(self) -> None:
        shape = tuple(self.chunk_shape)
        if not shape or not all(isinstance(n, int) and n > 0 for n in shape):
            raise ConfigurationError(
                f"sharding_indexed: chunk_shape must be positive integers, got {shape!r}"
            )
        object.__setattr__(self, "chunk_shape", shape)
        object.__setattr__(self, "codecs", tuple(self.codecs))
        object.__setattr__(self, "index_codecs", tuple(self.index_codecs))
        if self.index_location not in INDEX_LOCATIONS:
            raise ConfigurationError(
                f"sharding_indexed: index_location must be one of {INDEX_LOCATIONS}, got "
                f"{self.index_location!r}"
            )
        if self.write_order not in WRITE_ORDERS:
            raise ConfigurationError(
                f"sharding_indexed: write order must be one of {WRITE_ORDERS}, got "
                f"{self.write_order!r}"
            )

    @classmethod
    def from_json(cls, data: Any, zarr_format: int = 3) -> Sharding:
        """From the codec's v3 JSON (sharding has no v2 form)."""
        if zarr_format != 3:
            raise ConfigurationError("sharding_indexed exists in Zarr v3 only")
        if not isinstance(data, dict) or data.get("name") != cls.name:
            raise ConfigurationError(f"not sharding_indexed JSON: {data!r}")
        config = data.get("configuration")
        if not isinstance(config, dict):
            raise ConfigurationError("sharding_indexed: a configuration object is required")
        unknown = set(config) - {"chunk_shape", "codecs", "index_codecs", "index_location"}
        if unknown:
            raise ConfigurationError(f"sharding_indexed: unknown keys {sorted(unknown)}")
        shape, codecs = config.get("chunk_shape"), config.get("codecs")
        if not isinstance(shape, list | tuple) or not isinstance(codecs, list | tuple):
            raise ConfigurationError("sharding_indexed: chunk_shape and codecs are required lists")
        index = config.get("index_codecs")
        if index is not None and not isinstance(index, list | tuple):
            raise ConfigurationError("sharding_indexed: index_codecs must be a list")
        return cls(
            chunk_shape=tuple(shape),
            codecs=tuple(_codec(codec) for codec in codecs),
            index_codecs=_default_index_codecs()
            if index is None
            else tuple(_codec(codec) for codec in index),
            index_location=config.get("index_location", "end"),
        )

    def to_json(self, zarr_format: int = 3) -> dict[str, Any]:
        """The codec's v3 JSON."""
        if zarr_format != 3:
            raise ConfigurationError("sharding_indexed exists in Zarr v3 only")
        return {
            "name": self.name,
            "configuration": {
                "chunk_shape": list(self.chunk_shape),
                "codecs": [codec.to_json(3) for codec in self.codecs],
                "index_codecs": [codec.to_json(3) for codec in self.index_codecs],
                "index_location": self.index_location,
            },
        }

    def chunks_per_shard(self, shard_shape: Sequence[int]) -> tuple[int, ...]:
        """Inner chunks along each dimension of a shard of ``shard_shape``, which the inner
        chunk shape must divide."""
        shard = tuple(shard_shape)
        if len(shard) != len(self.chunk_shape) or any(
            s % c for s, c in zip(shard, self.chunk_shape, strict=True)
        ):
            raise ConfigurationError(
                f"sharding_indexed: inner chunks of {self.chunk_shape} do not divide shards of "
                f"{shard}"
            )
        return tuple(s // c for s, c in zip(shard, self.chunk_shape, strict=True))
