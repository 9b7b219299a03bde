"""Rust users' side: zarrs with our plugin crate (``crates/zarr-codec-zarrs``) reads exactly
what zarr-python writes, with our codecs and with zarr's own, Zarr v3 and v2; and zarr-python
reads exactly what zarrs writes with our codecs. The Rust side is the crate's ``interop``
example, built here (once per machine: its target directory is kept in
``~/.cache/zarr-codecs/target-zarrs``, as ``scripts/test`` keeps it).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")
zarr_codecs = pytest.importorskip("zarr_codecs")

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "crates" / "zarr-codec-zarrs" / "Cargo.toml"
TARGET = Path(
    os.environ.get(
        "ZARR_CODEC_ZARRS_TARGET", Path.home() / ".cache" / "zarr-codecs" / "target-zarrs"
    )
)

pytestmark = pytest.mark.filterwarnings("ignore:Codec 'cast_value' not configured")

QUANTIZE = [
    {"name": "scale_offset", "configuration": {"offset": 15, "scale": 100}},
    {
        "name": "cast_value",
        "configuration": {
            "data_type": "int16",
            "rounding": "nearest-even",
            "out_of_range": "clamp",
            "scalar_map": {"encode": [["NaN", -32768]], "decode": [[-32768, "NaN"]]},
        },
    },
]
GZIP = {"name": "gzip", "configuration": {"level": 5}}
BLOSC = {
    "name": "blosc",
    "configuration": {
        "cname": "lz4",
        "clevel": 5,
        "shuffle": "shuffle",
        "typesize": 8,
        "blocksize": 0,
    },
}
ZSTD_CRC = [{"name": "zstd", "configuration": {"level": 3, "checksum": False}}, {"name": "crc32c"}]


@pytest.fixture(scope="module")
def interop() -> Path:
    """The example binary, built in the shared target directory if it is not there yet."""
    if shutil.which("cargo") is None:
        pytest.skip("no cargo on this machine: the Rust side cannot be built")
    where = ["--manifest-path", str(MANIFEST), "--target-dir", str(TARGET)]
    subprocess.run(
        ["cargo", "build", "--quiet", "--locked", "--example", "interop", *where], check=True
    )
    return TARGET / "debug" / "examples" / "interop"


def _ramp(n: int, dtype: str) -> np.ndarray[Any, Any]:
    values = np.arange(n, dtype="float64") * 0.37 - 10.0
    values[::17] = np.nan
    values[1::17] = 1e9
    return values.astype(dtype)


#: name: (create_array keywords, values)
V3_CASES: dict[str, tuple[dict[str, Any], np.ndarray[Any, Any]]] = {
    "quantized_gzip": (
        {"filters": QUANTIZE, "compressors": [GZIP], "fill_value": np.nan, "chunks": (8, 16)},
        _ramp(1200, "float32").reshape(30, 40),
    ),
    "blosc": ({"compressors": [BLOSC], "chunks": (256,)}, _ramp(1200, "float64")),
    "gzip_int32": (
        {"compressors": [GZIP], "chunks": (300,)},
        np.arange(1200, dtype="int32") * 7919 - 4_000_000,
    ),
    "zstd_crc32c": (
        {"compressors": ZSTD_CRC, "chunks": (500,)},
        (np.arange(1200, dtype="uint16") * 37),
    ),
    "fixedscaleoffset_zstd": (
        {
            "filters": [
                {
                    "name": "numcodecs.fixedscaleoffset",
                    "configuration": {"offset": 10, "scale": 100, "dtype": "<f8", "astype": "<i4"},
                }
            ],
            "compressors": [ZSTD_CRC[0]],
            "chunks": (300,),
            "fill_value": 0,
        },
        np.linspace(-50, 50, 1200),
    ),
}
V2_CASES: dict[str, tuple[dict[str, Any], np.ndarray[Any, Any]]] = {
    "v2_gzip": (
        {"compressors": numcodecs.GZip(level=5), "chunks": (300,)},
        _ramp(1200, "float64"),
    ),
    "v2_blosc": (
        {"compressors": numcodecs.Blosc(cname="zstd", clevel=3, shuffle=2), "chunks": (256,)},
        _ramp(1200, "float32"),
    ),
    "v2_fixedscaleoffset": (
        {
            "filters": [
                numcodecs.FixedScaleOffset(offset=10, scale=100, dtype="<f8", astype="<i4")
            ],
            "compressors": numcodecs.Zstd(level=2),
            "chunks": (300,),
            "fill_value": 0,
        },
        np.linspace(-50, 50, 1200),
    ),
}


def _write_with_zarr(root: Path, ours: bool) -> dict[str, np.ndarray[Any, Any]]:
    """Every case written by zarr-python (with our codecs or its own), and what zarr-python
    reads back (the quantized array does not read back as written)."""
    read: dict[str, np.ndarray[Any, Any]] = {}
    with zarr_codecs.install() if ours else contextlib.nullcontext():
        for name, (keywords, values) in {**V3_CASES, **V2_CASES}.items():
            zarr_format = 2 if name.startswith("v2_") else 3
            array = zarr.create_array(
                store=zarr.storage.LocalStore(root),
                name=name,
                shape=values.shape,
                dtype=values.dtype,
                zarr_format=zarr_format,
                **keywords,
            )
            array[...] = values
            read[name] = array[...]
    return read


def _zarrs_read(
    interop: Path, root: Path, name: str, dtype: Any, tmp: Path, register: bool
) -> tuple[bytes, list[str]]:
    out = tmp / f"{name}-{register}.bin"
    command = [str(interop), "read", *(["--register"] if register else [])]
    result = subprocess.run(
        [*command, str(root), f"/{name}", str(out)], check=True, capture_output=True, text=True
    )
    return out.read_bytes(), json.loads(result.stdout)["implementations"]


@pytest.mark.parametrize("writer", ["ours", "zarr's own"])
def test_zarrs_with_the_plugin_reads_what_zarr_python_writes(
    interop: Path, tmp_path: Path, writer: str
) -> None:
    assert not zarr_codecs.installed_parts()
    root = tmp_path / "by_zarr.zarr"
    expected = _write_with_zarr(root, ours=writer == "ours")
    for name, values in expected.items():
        for register in (False, True):
            data, implementations = _zarrs_read(
                interop, root, name, values.dtype, tmp_path, register
            )
            assert data == np.ascontiguousarray(values).tobytes(), (name, register)
            mine = [i for i in implementations if i.startswith("zarr-codecs")]
            if name == "quantized_gzip":  # scale_offset and cast_value: always ours
                assert mine[:2] == ["zarr-codecs ScaleOffsetCodec", "zarr-codecs CastValueCodec"]
            replaced = [
                i for i in implementations if "ScaleOffset" not in i and "CastValue" not in i
            ]
            if register and name not in {"v2_blosc", "v2_fixedscaleoffset"}:
                # zarrs decodes v2 blosc itself; fixedscaleoffset is zarrs' own (below)
                assert all(i.startswith("zarr-codecs") for i in replaced), (name, implementations)
            if not register:
                assert not any(i.startswith("zarr-codecs") for i in replaced), implementations
            if "fixedscaleoffset" in name:  # not replaced by register() (yet): zarrs' own
                assert "zarrs FixedScaleOffsetCodec" in implementations, implementations


def test_zarr_python_reads_what_zarrs_writes_with_the_plugin(interop: Path, tmp_path: Path) -> None:
    root = tmp_path / "by_zarrs.zarr"
    subprocess.run([str(interop), "write", "--register", str(root)], check=True)
    ramp = _ramp(1200, "float64")
    exact = {
        "blosc": ramp,
        "zstd_crc32c": (np.arange(1200, dtype="uint16") * 37).astype("uint16"),
    }
    for name in ("quantized", "blosc", "zstd_crc32c"):
        with zarr_codecs.install():
            ours = zarr.open_array(zarr.storage.LocalStore(root), path=name, mode="r")[...]
        theirs = zarr.open_array(zarr.storage.LocalStore(root), path=name, mode="r")[...]
        zarrs_values, _ = _zarrs_read(interop, root, name, theirs.dtype, tmp_path, True)
        assert np.ascontiguousarray(theirs).tobytes() == zarrs_values, name
        assert np.ascontiguousarray(ours).tobytes() == zarrs_values, name
        if name in exact:
            np.testing.assert_array_equal(theirs, exact[name])
    quantized = zarr.open_array(zarr.storage.LocalStore(root), path="quantized", mode="r")
    assert [c.to_dict()["name"] for c in quantized.metadata.codecs] == [
        "scale_offset",
        "cast_value",
        "bytes",
        "gzip",
    ]
