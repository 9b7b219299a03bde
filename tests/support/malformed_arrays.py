"""Decoder inputs an array codec must refuse, for the ``malformed`` of a conformance suite
(shared by the ``cast_value`` and ``scale_offset`` suites)."""

from __future__ import annotations

from typing import Any

import numpy as np


def malformed_arrays(data_type: str) -> tuple[Any, ...]:
    """Inputs that must raise a ``CodecError`` from a decoder that expects arrays of
    ``data_type``: arrays of other types (another number type, bool, complex, object and
    strings), whatever their values, and plain bytes. Each exports a buffer, since the kit
    formats every malformed input with ``bytes()``: no ``None`` or lists."""
    others = [np.zeros(16, dtype=name) for name in ("int8", "float64") if name != data_type]
    return (
        *others,
        np.zeros(16, dtype=bool),
        np.zeros(16, dtype=np.complex64),
        np.zeros(16, dtype=object),
        np.array(["not", "numbers"]),
        b"sixteen bytes..!",
    )
