"""What a codec can do beyond whole chunks, for a pipeline to plan with (the same two types as
the Rust crate's ``zarr_codec_shapes::capability``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

__all__ = ["PartialDecodeCapability", "RecommendedConcurrency"]


@dataclass(frozen=True)
class RecommendedConcurrency:
    """How many threads a codec can put to work on one chunk: at least ``min``, at most
    ``max`` (both at least 1). A pipeline splits its threads between chunks and inside
    chunks accordingly."""

    min: int = 1
    max: int = 1

    ONE: ClassVar[RecommendedConcurrency]

    def __post_init__(self) -> None:
        low = max(1, int(self.min))
        object.__setattr__(self, "min", low)
        object.__setattr__(self, "max", max(low, int(self.max)))


RecommendedConcurrency.ONE = RecommendedConcurrency(1, 1)


@dataclass(frozen=True)
class PartialDecodeCapability:
    """Whether part of a chunk can be served without all of it: ``partial_read``, part of the
    decoded chunk needs only part of the encoded bytes (a reader may fetch byte ranges);
    ``partial_decode``, part of it decodes without the rest."""

    partial_read: bool = False
    partial_decode: bool = False

    NONE: ClassVar[PartialDecodeCapability]
    ELEMENTWISE: ClassVar[PartialDecodeCapability]


PartialDecodeCapability.NONE = PartialDecodeCapability(False, False)
PartialDecodeCapability.ELEMENTWISE = PartialDecodeCapability(True, True)
