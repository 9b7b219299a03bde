"""Seed corpora for scripts/fuzz: real chunks of each format, written as one file each.

``python scripts/fuzz_seeds.py DIR`` fills ``DIR/<crate>-<target>/`` (existing files are kept,
so a corpus grows across runs).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
from zarr_codec_blosc import Blosc
from zarr_codec_bz2 import Bz2
from zarr_codec_checksums import Adler32, Crc32, Fletcher32, JenkinsLookup3
from zarr_codec_crc32c import Crc32c
from zarr_codec_filters import Shuffle
from zarr_codec_gzip import Gzip
from zarr_codec_lz4 import Lz4
from zarr_codec_lzma import Lzma
from zarr_codec_pcodec import PCodec
from zarr_codec_zfpy import Zfpy
from zarr_codec_zstd import Zstd


def _chunks() -> list[bytes]:
    rng = np.random.default_rng(0)
    return [
        np.cumsum(rng.normal(size=512)).astype("<f4").tobytes(),
        rng.poisson(4, 256).astype("<u2").tobytes(),
        bytes(64),
        b"zarr" * 30,
        b"",
    ]


def _streamed_zstd(data: bytes) -> bytes:
    """A frame without a content size, in several blocks, as streaming writers make them."""
    import io

    import zstandard

    out = io.BytesIO()
    with zstandard.ZstdCompressor(level=3).stream_writer(out, closefd=False) as writer:
        for start in range(0, len(data), 500):
            writer.write(data[start : start + 500])
            writer.flush()
    return out.getvalue()


def _array_seeds(configs: list[dict[str, object]], version: int = 3) -> list[bytes]:
    """selector byte (data type index; 0x80: Zarr v2), the JSON, a newline, a chunk."""
    values = np.array([0, 1.5, -2.25, 300, np.nan, np.inf, 65504, -1e10], dtype="<f8").tobytes()
    seeds = []
    for config in configs:
        text = json.dumps(config).encode()
        for selector in (0, 3, 10, 11, 26, 27, 28):
            flag = 0x80 if version == 2 else 0
            seeds.append(bytes([selector | flag]) + text + b"\n" + values)
    return seeds


#: v2 configurations of the array filters, in the order the fuzz target's first byte picks them.
FILTER_SEEDS: tuple[list[dict[str, object]], ...] = (
    [{"id": "delta", "dtype": "<f8"}, {"id": "delta", "dtype": "<i4", "astype": "<i8"}],
    [{"id": "bitround", "keepbits": 5}],
    [{"id": "quantize", "digits": 2, "dtype": "<f8", "astype": "<f4"}],
    [{"id": "astype", "encode_dtype": "<f2", "decode_dtype": "<f8"}],
    [{"id": "packbits"}],
)


def main(out: Path) -> None:
    chunks = _chunks()
    corpora = {
        "zarr-codec-gzip-decode": [Gzip(level).encode(c) for c in chunks for level in (1, 9)],
        "zarr-codec-blosc-decode": [
            Blosc(cname, clevel, shuffle, 4).encode(c)
            for c in chunks
            for cname, clevel, shuffle in (
                ("lz4", 5, "shuffle"),
                ("zstd", 3, "bitshuffle"),
                ("blosclz", 5, "noshuffle"),
                ("lz4", 0, "noshuffle"),
            )
        ],
        "zarr-codec-zstd-decode": [
            *(
                Zstd(level, checksum).encode(c)
                for c in chunks
                for level, checksum in ((1, True), (19, False))
            ),
            _streamed_zstd(chunks[0]),
            json.dumps({"name": "zstd", "configuration": {"level": 3, "checksum": True}}).encode(),
            json.dumps({"id": "zstd", "level": 100}).encode(),
        ],
        "zarr-codec-crc32c-decode": [
            *(Crc32c(location=where).encode(c) for c in chunks for where in ("end", "start")),
            json.dumps({"name": "crc32c"}).encode(),
            json.dumps({"id": "crc32c", "location": "start"}).encode(),
        ],
        "zarr-codec-checksums-decode": [
            *(
                codec.encode(c)
                for c in chunks
                for codec in (Crc32(), Adler32(location="end"), Fletcher32(), JenkinsLookup3())
            ),
            json.dumps({"id": "jenkins_lookup3", "initval": 7, "prefix": [1, 2]}).encode(),
            json.dumps({"name": "numcodecs.crc32", "configuration": {"location": "end"}}).encode(),
        ],
        "zarr-codec-lz4-decode": [
            *(Lz4(acceleration).encode(c) for c in chunks for acceleration in (1, 9)),
            json.dumps({"id": "lz4", "acceleration": 3}).encode(),
            json.dumps({"name": "numcodecs.lz4", "configuration": {"acceleration": 1}}).encode(),
        ],
        "zarr-codec-bz2-decode": [
            *(Bz2(level).encode(c) for c in chunks for level in (1, 9)),
            json.dumps({"id": "bz2", "level": 9}).encode(),
        ],
        "zarr-codec-lzma-decode": [
            *(Lzma(preset=p).encode(c) for c in chunks for p in (0, 6)),
            json.dumps({"id": "lzma", "format": 3, "filters": [{"id": 33}]}).encode(),
        ],
        "zarr-codec-filters-decode": [
            *(bytes([w + 1]) + Shuffle(w).encode(c) for c in chunks for w in (4, 8)),
            json.dumps({"id": "shuffle", "elementsize": 8}).encode(),
        ],
        "zarr-codec-cast-value-config_and_chunk": _array_seeds(
            [
                {"name": "cast_value", "configuration": {"data_type": "uint8"}},
                {
                    "name": "cast_value",
                    "configuration": {
                        "data_type": "int8",
                        "rounding": "towards-zero",
                        "out_of_range": "wrap",
                        "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]},
                    },
                },
                {
                    "name": "cast_value",
                    "configuration": {"data_type": "float16", "out_of_range": "clamp"},
                },
            ]
        ),
        "zarr-codec-scale-offset-config_and_chunk": _array_seeds(
            [
                {"name": "scale_offset", "configuration": {"offset": 1.5, "scale": 4}},
                {"name": "scale_offset", "configuration": {"offset": "NaN", "scale": 0}},
                {"name": "scale_offset"},
            ]
        ),
        "zarr-codec-filters-array_filters": [
            bytes([index]) + seed
            for index, configs in enumerate(FILTER_SEEDS)
            for seed in _array_seeds(configs, version=2)
        ],
        "zarr-codec-vlen-decode": [
            b"\x03\x00\x00\x00\x03\x00\x00\x00foo\x00\x00\x00\x00\x02\x00\x00\x00\xc3\xa9",
            b"Zm9vYmFy",
            json.dumps({"id": "vlen-array", "dtype": "<i4"}).encode(),
            # json2 and msgpack2 as numcodecs writes them
            b'["a",1.5,null,{"k":[1e-05,NaN]},"\\u00fc","|O",[5]]',
            bytes.fromhex("96a161cb3ff8000000000000c081a16b92cc80d0dfa27c4f9101"),
        ],
        "zarr-codec-pcodec-decode": [
            PCodec(level=level).encode_array(values)
            for level, values in (
                (8, np.arange(300, dtype="<i4") * 7),
                (3, np.linspace(0, 1, 257, dtype="<f8")),
                (0, np.arange(20, dtype="<u2")),
            )
        ]
        + [json.dumps({"id": "pcodec", "level": 5, "delta_encoding_order": 1}).encode()],
        "zarr-codec-zfpy-decode": [
            Zfpy(mode, tolerance=tolerance, rate=rate).encode_array(values)
            for mode, tolerance, rate, values in (
                (4, -1, -1, np.linspace(0, 1, 16, dtype="<f8")),
                (4, 0.01, -1, np.arange(64, dtype="<f4").reshape(8, 8)),
                (2, -1, 8, np.arange(105, dtype="<i4").reshape(3, 5, 7)),
                (4, -1, -1, np.arange(16, dtype="<i8").reshape(2, 2, 2, 2)),
            )
        ]
        + [json.dumps({"id": "zfpy", "mode": 4, "tolerance": 0.5}).encode()],
        "zarr-codec-scale-offset-legacy_config_and_chunk": _array_seeds(
            [
                {
                    "name": "numcodecs.fixedscaleoffset",
                    "configuration": {"offset": off, "scale": scale, "dtype": dt, "astype": ast},
                }
                for off, scale, dt, ast in (
                    (1000, 10, "<f8", "|u1"),
                    (1.5, 0.25, "<f4", "<i4"),
                    (-7, 3, "<i2", "<i2"),
                    (0.5, 100, "<i8", "<f2"),
                )
            ]
        ),
    }
    for name, seeds in corpora.items():
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        for seed in seeds:
            (folder / f"seed-{hashlib.sha1(seed).hexdigest()[:16]}").write_bytes(seed)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
