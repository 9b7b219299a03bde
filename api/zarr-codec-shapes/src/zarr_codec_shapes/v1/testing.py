"""``zarr_codec_shapes.v1.testing``: the conformance kit of the ``v1`` API, for any codec
author's tests (subclass :class:`ConformanceSuite`). See :mod:`zarr_codec_shapes.testing`."""

from __future__ import annotations

from zarr_codec_shapes import testing
from zarr_codec_shapes.testing import *  # noqa: F403 (the kit's list is the one list)

__all__ = list(testing.__all__)
