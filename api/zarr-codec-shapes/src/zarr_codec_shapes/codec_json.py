"""Codec JSON in both Zarr formats.

v3: ``{"name": "gzip", "configuration": {"level": 5}}`` (``configuration`` may be omitted, and
v3.1 allows the bare string ``"gzip"`` and a ``must_understand`` flag). v2 (numcodecs):
``{"id": "gzip", "level": 5}``. These helpers split either form into a name and a
configuration dict and check configuration keys, so every codec rejects unknown keys alike.
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Callable, Collection, Mapping
from typing import Any

import numpy as np

from zarr_codec_shapes.errors import ConfigurationError
from zarr_codec_shapes.protocols import ZarrFormat

__all__ = ["canonical_configuration", "check_keys", "codec_name_of", "split_codec_json"]


def split_codec_json(data: object, zarr_format: ZarrFormat) -> tuple[str, dict[str, Any]]:
    """Split codec JSON into ``(name or id, configuration)``, checking its outer shape."""
    if zarr_format == 3:
        if isinstance(data, str):
            return data, {}
        if not isinstance(data, Mapping):
            raise ConfigurationError(f"codec JSON must be an object or a string, got {data!r}")
        extra = set(data) - {"name", "configuration", "must_understand"}
        if extra:
            raise ConfigurationError(
                f"unexpected keys {sorted(extra, key=repr)} in codec JSON {data!r}"
            )
        name = data.get("name")
        if not isinstance(name, str):
            raise ConfigurationError(f"codec JSON needs a string 'name', got {data!r}")
        must_understand = data.get("must_understand", True)
        if not isinstance(must_understand, bool):
            raise ConfigurationError(f"'must_understand' must be a boolean in {data!r}")
        config = data.get("configuration", {})
        if not isinstance(config, Mapping):
            raise ConfigurationError(f"'configuration' must be an object in {data!r}")
        _check_json(config, name)
        return name, dict(config)
    if zarr_format == 2:
        if not isinstance(data, Mapping) or not isinstance(data.get("id"), str):
            raise ConfigurationError(f"Zarr v2 codec JSON needs a string 'id', got {data!r}")
        config = {k: v for k, v in data.items() if k != "id"}
        _check_json(config, data["id"])
        return str(data["id"]), config
    raise ConfigurationError(f"zarr_format must be 2 or 3, got {zarr_format!r}")


def _check_json(value: object, codec: str) -> None:
    """``ConfigurationError`` unless ``value`` is JSON: objects with string keys, arrays,
    strings, numbers (numpy's too), booleans and null. A codec never sees anything else, so
    no bytes value or integer key reaches a constructor as a ``TypeError``."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise ConfigurationError(f"{codec}: configuration key {key!r} is not a string")
            _check_json(item, codec)
    elif isinstance(value, list | tuple):
        for item in value:
            _check_json(item, codec)
    elif not (value is None or isinstance(value, str | numbers.Number | np.generic)):
        raise ConfigurationError(
            f"{codec}: configuration value {value!r} is not JSON ({type(value).__name__})"
        )


def codec_name_of(data: object) -> tuple[str, ZarrFormat]:
    """The name (v3) or id (v2) in codec JSON and which form it is."""
    if isinstance(data, Mapping) and "id" in data and "name" not in data:
        return split_codec_json(data, 2)[0], 2
    return split_codec_json(data, 3)[0], 3


def check_keys(
    codec: str,
    config: Mapping[str, Any],
    *,
    required: Collection[str] = (),
    optional: Collection[str] = (),
) -> None:
    """Reject configuration keys that are missing or not known to the codec."""
    missing = [k for k in required if k not in config]
    if missing:
        raise ConfigurationError(f"{codec}: missing configuration keys {missing}")
    unknown = sorted(set(config) - set(required) - set(optional))
    if unknown:
        raise ConfigurationError(f"{codec}: unknown configuration keys {unknown}")


#: A compiled codec module's configuration check: codec JSON text and its Zarr format in, the
#: canonical configuration (JSON text) out, or a ``ConfigurationError``.
ConfigurationCheck = Callable[[str, int], str]


def canonical_configuration(
    check: ConfigurationCheck, codec: str, config: Mapping[str, Any], zarr_format: ZarrFormat
) -> dict[str, Any]:
    """``config`` of codec ``codec`` in ``zarr_format``, as the codec's compiled configuration
    type reads and writes it back: the one place a configuration is validated, so that a
    Python class and its Rust core never disagree on what a codec accepts. Keys and values
    that are not JSON are a ``ConfigurationError`` here already."""
    _check_json(config, codec)
    data = (
        {"name": codec, "configuration": dict(config)}
        if zarr_format == 3
        else {
            "id": codec,
            **config,
        }
    )
    try:
        text = json.dumps(data, allow_nan=False, default=_json_scalar)
    except (TypeError, ValueError) as err:
        raise ConfigurationError(f"{codec}: the configuration is not JSON: {err}") from None
    canonical: dict[str, Any] = json.loads(check(text, zarr_format))
    return canonical


def _json_scalar(value: object) -> object:
    """numpy scalars as the Python numbers JSON writes."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{value!r} is not JSON")
