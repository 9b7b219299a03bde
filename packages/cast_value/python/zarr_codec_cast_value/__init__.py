"""The Zarr ``cast_value`` codec: casts each element's value to another integer or float
data type, exactly as the specification orders it, with a Rust core.

``CastValue`` is a plain Python class holding its configuration (so it pickles, copies and
compares as a value); the casting runs in the compiled ``_cast_value`` module with the GIL
released. Every element is converted from its exact value, rounded once: no double rounding
through an intermediate type. Element errors (a value out of range with no ``out_of_range``,
NaN into an integer type) raise ``zarr_codec_shapes.OutOfRangeError``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from zarr_codec_shapes import (
    ArrayArrayCodecBase,
    ChunkSpec,
    ConfigurationError,
    DataType,
)
from zarr_codec_shapes.compiled import CompiledArrayCodec, CompiledArrayMethods
from zarr_codec_shapes.fill_value import fill_value_from_json

from zarr_codec_cast_value import _cast_value

__all__ = ["ROUNDING_MODES", "CastValue"]
__version__ = "0.1.0"

#: The ``rounding`` values, the first being the default.
ROUNDING_MODES = (
    "nearest-even",
    "towards-zero",
    "towards-positive",
    "towards-negative",
    "nearest-away",
)

ScalarPairs = Iterable[Sequence[Any]] | Mapping[Any, Any]


def _pairs(entries: object) -> object:
    """One ``scalar_map`` direction as JSON: a mapping becomes ``[input, output]`` pairs, the
    pairs become lists; anything else is passed on for the Rust configuration type to judge."""
    if isinstance(entries, Mapping):
        return [[key, value] for key, value in entries.items()]
    if isinstance(entries, list | tuple):
        return [list(entry) if isinstance(entry, list | tuple) else entry for entry in entries]
    return entries


class CastValue(CompiledArrayMethods, ArrayArrayCodecBase):
    """Cast elements to ``data_type`` when encoding, and back to the array's type when decoding.

    ``rounding`` is one of :data:`ROUNDING_MODES`; ``out_of_range`` is ``None`` (an error),
    ``"clamp"`` or ``"wrap"`` (integer targets only); ``scalar_map`` maps ``"encode"`` and
    ``"decode"`` to ``[input, output]`` pairs in fill-value JSON (``"NaN"``, ``"Infinity"``,
    hex floats), applied before any other rule.
    """

    name: ClassVar[str] = "cast_value"
    codec_id: ClassVar[str | None] = None

    def __init__(
        self,
        data_type: str | DataType,
        rounding: str = "nearest-even",
        out_of_range: str | None = None,
        scalar_map: Mapping[str, ScalarPairs] | None = None,
    ) -> None:
        name = data_type.name if isinstance(data_type, DataType) else data_type
        config: dict[str, Any] = {"data_type": name}
        if rounding != "nearest-even":
            config["rounding"] = rounding
        if out_of_range is not None:
            config["out_of_range"] = out_of_range
        if scalar_map is not None:
            config["scalar_map"] = (
                {direction: _pairs(entries) for direction, entries in scalar_map.items()}
                if isinstance(scalar_map, Mapping)
                else scalar_map
            )
        # The configuration is validated by the Rust configuration type, nowhere else.
        try:
            self._json = json.dumps({"name": "cast_value", "configuration": config})
        except (TypeError, ValueError) as err:  # not JSON: the codec could never be stored
            raise ConfigurationError(f"cast_value: the configuration is not JSON: {err}") from None
        _cast_value.check_configuration(self._json)
        # Equal configurations compare equal whatever the order of their keys.
        self._key = json.dumps(config, sort_keys=True)
        self._config = config
        self.data_type = DataType.from_name(name)
        self.rounding = rounding
        self.out_of_range = out_of_range
        self._bound: dict[str, CompiledArrayCodec] = {}

    # -- configuration ---------------------------------------------------------------------

    @property
    def scalar_map(self) -> dict[str, list[list[Any]]] | None:
        """The scalar map as configured (lists of ``[input, output]`` pairs)."""
        scalar_map: dict[str, list[list[Any]]] | None = self._config.get("scalar_map")
        return None if scalar_map is None else json.loads(json.dumps(scalar_map))

    def configuration(self) -> dict[str, Any]:
        config: dict[str, Any] = json.loads(json.dumps(self._config))
        return config

    @classmethod
    def from_configuration(cls, config: dict[str, Any]) -> CastValue:
        _cast_value.check_configuration(json.dumps({"name": cls.name, "configuration": config}))
        return cls(**config)

    def _identity(self) -> tuple[Any, ...]:
        return (type(self), self._key)

    def __repr__(self) -> str:
        args = ", ".join(f"{key}={value!r}" for key, value in self._config.items())
        return f"CastValue({args})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self._config,))

    def __copy__(self) -> CastValue:
        return _rebuild(self._config)

    # -- codec -----------------------------------------------------------------------------

    def _compile(self, data_type: DataType) -> CompiledArrayCodec:
        """The compiled codec for arrays of ``data_type``, both casts planned."""
        return _cast_value.bind(self._json, data_type.numpy_dtype, self.data_type.numpy_dtype)

    def resolve(self, spec: ChunkSpec) -> ChunkSpec:
        """The encoded spec: ``data_type``, and the fill value cast (it must round-trip)."""
        fill = _cast_value.encoded_fill_value(
            self._json, spec.data_type.name, json.dumps(spec.fill_value_json())
        )
        return ChunkSpec(
            spec.shape, self.data_type, fill_value_from_json(json.loads(fill), self.data_type)
        )


def _rebuild(config: dict[str, Any]) -> CastValue:
    return CastValue(**config)
