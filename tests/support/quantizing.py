"""The quantizing pair the interop tests store: ``scale_offset`` then ``cast_value`` to int16,
NaN kept as -32768 (the chain zarr-python users write in place of fixedscaleoffset)."""

from __future__ import annotations

from typing import Any

#: ``cast_value`` to int16, rounding half to even, clamping, NaN <-> -32768.
CAST_INT16_NAN: dict[str, Any] = {
    "name": "cast_value",
    "configuration": {
        "data_type": "int16",
        "rounding": "nearest-even",
        "out_of_range": "clamp",
        "scalar_map": {"encode": [["NaN", -32768]], "decode": [[-32768, "NaN"]]},
    },
}


def quantize(offset: float, scale: float) -> list[dict[str, Any]]:
    """``[scale_offset(offset, scale), CAST_INT16_NAN]`` as v3 codec JSON."""
    affine = {"name": "scale_offset", "configuration": {"offset": offset, "scale": scale}}
    return [affine, CAST_INT16_NAN]
