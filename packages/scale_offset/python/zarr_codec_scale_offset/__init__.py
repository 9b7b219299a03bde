"""The Zarr ``scale_offset`` codec: ``(x - offset) * scale`` when encoding and
``x / scale + offset`` when decoding, in the arithmetic of the array's data type, with a Rust
core.

Integers are exact: any intermediate or final value outside the type's range, and a division
that leaves a remainder, raise ``zarr_codec_shapes.OutOfRangeError``. Floats are correctly rounded
in
their own type after each operation (IEEE 754, as numpy and zarr-python compute): overflow
gives ±Infinity, NaN and -0.0 pass through; in the float8/6/4 formats without infinity such a
result is an error. ``offset`` and ``scale`` are JSON scalars in the fill-value encoding of the
array's data type (``"0x3f800000"`` hex floats included).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, ClassVar

from zarr_codec_shapes import ArrayArrayCodecBase, ChunkSpec, ConfigurationError, DataType
from zarr_codec_shapes.compiled import CompiledArrayCodec, CompiledArrayMethods
from zarr_codec_shapes.fill_value import fill_value_from_json

from zarr_codec_scale_offset import _scale_offset

if TYPE_CHECKING:
    from zarr_codec_scale_offset.fused import ScaleOffsetCast

__all__ = ["ScaleOffset"]
__version__ = "0.1.0"


class ScaleOffset(CompiledArrayMethods, ArrayArrayCodecBase):
    """Subtract ``offset``, then multiply by ``scale`` (the identities 0 and 1 by default)."""

    name: ClassVar[str] = "scale_offset"
    codec_id: ClassVar[str | None] = None

    def __init__(self, offset: int | float | str = 0, scale: int | float | str = 1) -> None:
        config: dict[str, Any] = {}
        if not _is(offset, 0.0):
            config["offset"] = offset
        if not _is(scale, 1.0):
            config["scale"] = scale
        data = {"name": "scale_offset", "configuration": config} if config else {"name": self.name}
        # The configuration is validated by the Rust configuration type, nowhere else.
        try:
            self._json = json.dumps(data)
        except (TypeError, ValueError) as err:  # not JSON: the codec could never be stored
            message = f"scale_offset: the configuration is not JSON: {err}"
            raise ConfigurationError(message) from None
        _scale_offset.check_configuration(self._json)
        self._config = config
        self.offset = offset
        self.scale = scale
        self._bound: dict[str, CompiledArrayCodec] = {}

    # -- configuration ---------------------------------------------------------------------

    def configuration(self) -> dict[str, Any]:
        return dict(self._config)

    def to_json(self, zarr_format: Any = 3) -> dict[str, Any]:
        """The v3 JSON; the configuration is left out when both parameters are identities."""
        data: dict[str, Any] = super().to_json(zarr_format)
        if not self._config:
            data.pop("configuration", None)
        return data

    @classmethod
    def from_configuration(cls, config: dict[str, Any]) -> ScaleOffset:
        _scale_offset.check_configuration(json.dumps({"name": cls.name, "configuration": config}))
        return cls(**config)

    @classmethod
    def from_json(cls, data: Any, zarr_format: Any = 3) -> ScaleOffset:
        """v3 JSON, ``configuration`` optional (the identity)."""
        if isinstance(data, dict) and zarr_format == 3 and "configuration" not in data:
            _scale_offset.check_configuration(json.dumps(data))
            return cls()
        return super().from_json(data, zarr_format)

    def _identity(self) -> tuple[Any, ...]:
        return (type(self), json.dumps(self._config, sort_keys=True))

    def __repr__(self) -> str:
        return f"ScaleOffset(offset={self.offset!r}, scale={self.scale!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (ScaleOffset, (self.offset, self.scale))

    def __copy__(self) -> ScaleOffset:
        return ScaleOffset(self.offset, self.scale)

    def fuse(self, successor: Any) -> ScaleOffsetCast | None:
        """This codec and the next one of a chain as one pass, when the next is ``cast_value``
        (any implementation: it is taken by its JSON); ``None`` otherwise."""
        from zarr_codec_scale_offset.fused import ScaleOffsetCast

        if getattr(successor, "name", None) != "cast_value":
            return None
        return ScaleOffsetCast(self, successor)

    # -- codec -----------------------------------------------------------------------------

    def _compile(self, data_type: DataType) -> CompiledArrayCodec:
        """The compiled transformation for arrays of ``data_type``."""
        return _scale_offset.bind(self._json, data_type.numpy_dtype)

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        """The same data type; the fill value transformed like an element."""
        fill = _scale_offset.encoded_fill_value(
            self._json, spec.data_type.name, json.dumps(spec.fill_value_json())
        )
        return ChunkSpec(
            spec.shape, spec.data_type, fill_value_from_json(json.loads(fill), spec.data_type)
        )


def _is(value: object, identity: float) -> bool:
    """Whether ``value`` is the number ``identity`` (not ``-0.0``: another offset in IEEE)."""
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and value == identity
        and str(value)[0] != "-"
    )
