"""The zarr_codec_shapes conformance kit over ``Base64``."""

from __future__ import annotations

from typing import Any, ClassVar

from zarr_codec_shapes.testing import ConformanceSuite
from zarr_codec_vlen import Base64


class TestBase64Conformance(ConformanceSuite):
    """Base64 on every core data type; text that cannot be base64 is refused."""

    codecs = (Base64(),)
    malformed: ClassVar[tuple[Any, ...]] = (b"Zm9vY", b"Zm9vYg", b"Z")
