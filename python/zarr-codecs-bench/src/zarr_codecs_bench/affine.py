"""Case providers for ``scale_offset`` and the fused ``[scale_offset, cast_value]`` path.

Groups (baseline ``numpy``):
- ``scale_offset <dtype>``: ours against numpy's ``(x - o) * s`` (encode) and ``x / s + o``
  (decode) in the array's own type.
- ``scale_offset+cast <dtype>->int16``: the quantisation pipeline. numpy does
  ``rint((x - o) * s)`` then ``astype``; numcodecs' ``FixedScaleOffset`` does the same work;
  ours runs the two codecs one after the other and fused in one pass, and numcodecs' codec
  itself (``zarr_codec_scale_offset.legacy.FixedScaleOffset``, the same configuration).
"""

from typing import Any

import numpy as np
import numpy.typing as npt

from zarr_codecs_bench.harness import Case
from zarr_codecs_bench.peers import CaseFactory, Provider

FLOAT_DATASETS = ("float32_field", "float64_field")


def affine_group(dtype: str) -> str:
    """The group of ``scale_offset`` alone on arrays of ``dtype``."""
    return f"scale_offset {dtype}"


def fused_group(dtype: str) -> str:
    """The group of ``[scale_offset, cast_value]`` to int16 on arrays of ``dtype``."""
    return f"scale_offset+cast {dtype}->int16"


def baseline_for(group: str) -> str | None:
    """``numpy`` for the groups here, ``None`` for others."""
    return "numpy" if group.startswith("scale_offset") else None


def _both(
    label: str, dataset: str, group: str, nbytes: int, encode: Any, decode: Any
) -> list[Case]:
    """The encode and decode cases of one implementation in one group."""
    return [
        Case(label, dataset, "encode", encode, nbytes, group),
        Case(label, dataset, "decode", decode, nbytes, group),
    ]


def _parameters(data: npt.NDArray[Any]) -> tuple[float, float]:
    """An offset and scale that map ``data`` onto about [-30000, 30000] (int16)."""
    low, high = float(data.min()), float(data.max())
    offset = (low + high) / 2
    scale = 60_000.0 / ((high - low) or 1.0)
    # Exact in float32 as well, so every implementation uses the same numbers.
    return float(np.float32(offset)), float(np.float32(scale))


def _numpy() -> CaseFactory:
    def cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
        if dataset not in FLOAT_DATASETS:
            return []
        flat = data.reshape(-1)
        dtype = flat.dtype
        offset, scale = (dtype.type(v) for v in _parameters(flat))
        encoded = (flat - offset) * scale
        quantised = np.rint(encoded).astype(np.int16)
        name, n = str(dtype), flat.nbytes
        return [
            *_both(
                "numpy",
                dataset,
                affine_group(name),
                n,
                lambda: (flat - offset) * scale,
                lambda: encoded / scale + offset,
            ),
            *_both(
                "numpy",
                dataset,
                fused_group(name),
                n,
                lambda: np.rint((flat - offset) * scale).astype(np.int16),
                lambda: (quantised / scale + offset).astype(dtype),
            ),
        ]

    return cases


def _numcodecs() -> CaseFactory:
    from numcodecs import FixedScaleOffset

    def cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
        if dataset not in FLOAT_DATASETS:
            return []
        flat = data.reshape(-1)
        offset, scale = _parameters(flat)
        codec = FixedScaleOffset(offset, scale, dtype=str(flat.dtype), astype="i2")
        encoded = codec.encode(flat)
        group = fused_group(str(flat.dtype))
        return _both(
            "numcodecs",
            dataset,
            group,
            flat.nbytes,
            lambda: codec.encode(flat),
            lambda: codec.decode(encoded),
        )

    return cases


def _ours() -> CaseFactory:
    from zarr_codec_cast_value import CastValue
    from zarr_codec_scale_offset import ScaleOffset
    from zarr_codec_scale_offset.legacy import FixedScaleOffset
    from zarr_codec_shapes import ChunkSpec

    def cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
        if dataset not in FLOAT_DATASETS:
            return []
        flat = data.reshape(-1)
        offset, scale = _parameters(flat)
        first = ScaleOffset(offset, scale)
        second = CastValue("int16", out_of_range="clamp")
        fused = first.fuse(second)
        assert fused is not None
        spec = ChunkSpec(flat.shape, str(flat.dtype))
        middle = first.resolve(spec)
        affine = first.bind(spec.data_type)
        encoded = affine.encode(flat)
        quantised = fused.encode(flat, spec)
        # numcodecs' own codec and configuration, on ours (numpy's arithmetic, in Rust).
        legacy = FixedScaleOffset(offset, scale, str(flat.dtype), "i2")
        legacy_encoded = legacy.encode(flat)
        name, n = str(flat.dtype), flat.nbytes
        return [
            *_both(
                "zarr-codec-scale-offset",
                dataset,
                affine_group(name),
                n,
                lambda: affine.encode(flat),
                lambda: affine.decode(encoded),
            ),
            *_both(
                "zarr-codec-shapes pair, in turn",
                dataset,
                fused_group(name),
                n,
                lambda: second.encode(first.encode(flat, spec), middle),
                lambda: first.decode(second.decode(quantised, middle), spec),
            ),
            *_both(
                "zarr-codec-shapes fused",
                dataset,
                fused_group(name),
                n,
                lambda: fused.encode(flat, spec),
                lambda: fused.decode(quantised, spec),
            ),
            *_both(
                "zarr-codecs FixedScaleOffset",
                dataset,
                fused_group(name),
                n,
                lambda: legacy.encode(flat),
                lambda: legacy.decode(legacy_encoded),
            ),
        ]

    return cases


NUMPY = Provider("numpy-affine", "numpy (x - o) * s, and rint + astype for quantisation", _numpy)
NUMCODECS = Provider(
    "numcodecs-fixedscaleoffset", "numcodecs.FixedScaleOffset to int16", _numcodecs
)
OURS = Provider(
    "zarr-codec-scale-offset", "our scale_offset, and [scale_offset, cast_value] fused", _ours
)

PROVIDERS: tuple[Provider, ...] = (NUMPY, NUMCODECS, OURS)
