"""Case providers for our own codecs (each from its wheel), beside the peers in ``peers.py``.

Labels are the wheel names; groups match the peers' so every job lines up with numcodecs,
zlib, libdeflate and the rest. ``zarr-codec-gzip into`` decodes into a preallocated buffer
(``decode_into``), the zero-allocation path a chunk pipeline uses. The ``gzip batch`` groups
time ``decode_batch`` of 64 chunks on 1 and on 2 threads.
"""

from collections.abc import Buffer
from typing import Any

import numpy as np
import numpy.typing as npt

from zarr_codecs_bench.harness import Case, round_trip_cases
from zarr_codecs_bench.peers import (
    BLOSC_CLEVEL,
    BLOSC_CNAMES,
    BLOSC_SHUFFLES,
    CRC32C_GROUP,
    GZIP_LEVELS,
    ZSTD_LEVELS,
    CaseFactory,
    Provider,
    blosc_group,
    gzip_group,
    single_threaded_numcodecs,
    zstd_group,
)

BATCH_CHUNKS = 64
BATCH_LEVEL = 5


def batch_group(level: int = BATCH_LEVEL) -> str:
    """The group of the batch cases: 1 thread (the baseline) against 2."""
    return f"gzip batch of {BATCH_CHUNKS} level={level}"


def _gzip() -> CaseFactory:
    from zarr_codec_gzip import Gzip

    def cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
        out: list[Case] = []
        for level in GZIP_LEVELS:
            codec = Gzip(level=level)
            group = gzip_group(level)
            out += round_trip_cases(
                "zarr-codec-gzip", group, dataset, data, codec.encode, codec.decode
            )
            encoded = codec.encode(data)
            target = np.empty(data.nbytes, dtype=np.uint8)

            def decode_into(
                encoded: Buffer = encoded, target: Any = target, codec: Gzip = codec
            ) -> int:
                return codec.decode_into(encoded, target)

            out.append(
                Case(
                    "zarr-codec-gzip into",
                    dataset,
                    "decode",
                    decode_into,
                    data.nbytes,
                    group,
                    len(encoded),
                )
            )
        out += _batch_cases(Gzip(level=BATCH_LEVEL), dataset, data)
        return out

    return cases


def _batch_cases(codec: Any, dataset: str, data: npt.NDArray[Any]) -> list[Case]:
    flat = data.reshape(-1).view(np.uint8)
    chunks = [bytes(part) for part in np.array_split(flat, BATCH_CHUNKS)]
    encoded = codec.encode_batch(chunks)
    if codec.decode_batch(encoded, threads=2) != chunks:
        raise ValueError(f"gzip batch does not round-trip {dataset}")
    size = sum(len(e) for e in encoded)

    def on(threads: int) -> Case:
        label = "1 thread" if threads == 1 else f"{threads} threads"

        def decode() -> object:
            return codec.decode_batch(encoded, threads=threads)

        return Case(label, dataset, "decode", decode, data.nbytes, batch_group(), size)

    return [on(1), on(2)]


def _into_case(label: str, group: str, dataset: str, data: Any, codec: Any) -> Case:
    """``decode_into`` a preallocated buffer: the path a chunk pipeline takes."""
    encoded = codec.encode(data)
    target = np.empty(data.nbytes, dtype=np.uint8)

    def decode_into() -> int:
        return int(codec.decode_into(encoded, target))

    decode_into()
    if target.tobytes() != data.tobytes():
        raise ValueError(f"{label} ({group}) does not round-trip {dataset}")
    return Case(label, dataset, "decode", decode_into, data.nbytes, group, len(encoded))


def zstd_batch_group() -> str:
    """Batch decode of 64 zstd chunks: numcodecs' per-chunk loop against our batch."""
    return f"zstd batch of {BATCH_CHUNKS} level=3"


def _zstd() -> CaseFactory:
    import numcodecs
    from zarr_codec_zstd import Zstd

    def cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
        out: list[Case] = []
        for level in ZSTD_LEVELS:
            codec = Zstd(level)
            group = zstd_group(level)
            out += round_trip_cases(
                "zarr-codec-zstd", group, dataset, data, codec.encode, codec.decode
            )
            out.append(_into_case("zarr-codec-zstd into", group, dataset, data, codec))
        # 64 chunks: numcodecs decodes them one after another; ours in one call.
        flat = data.reshape(-1).view(np.uint8)
        chunks = [bytes(part) for part in np.array_split(flat, BATCH_CHUNKS)]
        ours, theirs = Zstd(3), numcodecs.Zstd(level=3)
        encoded = ours.encode_batch(chunks)
        if ours.decode_batch(encoded, threads=2) != chunks:
            raise ValueError(f"zstd batch does not round-trip {dataset}")
        size = sum(len(e) for e in encoded)
        group = zstd_batch_group()

        def loop() -> object:
            return [theirs.decode(chunk) for chunk in encoded]

        def batch(threads: int) -> Case:
            def decode() -> object:
                return ours.decode_batch(encoded, threads=threads)

            label = f"zarr-codec-zstd batch, {threads} thread" + ("s" if threads > 1 else "")
            return Case(label, dataset, "decode", decode, data.nbytes, group, size)

        out += [
            Case("numcodecs loop", dataset, "decode", loop, data.nbytes, group, size),
            batch(1),
            batch(2),
        ]
        return out

    return cases


def _crc32c() -> CaseFactory:
    from zarr_codec_crc32c import Crc32c

    def cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
        codec = Crc32c()
        out = round_trip_cases(
            "zarr-codec-crc32c", CRC32C_GROUP, dataset, data, codec.encode, codec.decode
        )
        out.append(_into_case("zarr-codec-crc32c into", CRC32C_GROUP, dataset, data, codec))
        return out

    return cases


def _blosc() -> CaseFactory:
    from zarr_codec_blosc import Blosc

    def cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
        out: list[Case] = []
        for cname in BLOSC_CNAMES:
            for shuffle in BLOSC_SHUFFLES:
                group = blosc_group(cname, shuffle=shuffle)
                for threads in (1, 2):
                    codec = Blosc(
                        cname, BLOSC_CLEVEL, shuffle, data.dtype.itemsize, threads=threads
                    )
                    label = "zarr-codec-blosc" + ("" if threads == 1 else f" {threads} threads")
                    out += round_trip_cases(label, group, dataset, data, codec.encode, codec.decode)
        out += _blosc_batch_cases(dataset, data)
        return out

    return cases


def blosc_batch_group() -> str:
    """Batch decode of 64 lz4+shuffle chunks: numcodecs' per-chunk loop against our batch."""
    return f"blosc batch of {BATCH_CHUNKS} lz4 shuffle"


def _blosc_batch_cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
    import numcodecs
    from zarr_codec_blosc import Blosc

    chunks = np.array_split(data.reshape(-1), BATCH_CHUNKS)
    ours = Blosc("lz4", BLOSC_CLEVEL, "shuffle", data.dtype.itemsize)
    encoded = ours.encode_batch(chunks)
    theirs = numcodecs.Blosc("lz4", BLOSC_CLEVEL, numcodecs.Blosc.SHUFFLE)
    if [bytes(theirs.decode(e)) for e in encoded] != [c.tobytes() for c in chunks]:
        raise ValueError(f"blosc batch does not round-trip {dataset}")
    size = sum(len(e) for e in encoded)

    def loop() -> object:
        return [theirs.decode(e) for e in encoded]

    single = single_threaded_numcodecs(theirs.decode)

    def loop_single() -> object:
        return [single(e) for e in encoded]

    def batch() -> object:
        return ours.decode_batch(encoded, threads=2)

    group = blosc_batch_group()
    return [
        Case("numcodecs loop", dataset, "decode", loop, data.nbytes, group, size),
        Case("numcodecs loop, 1 thread", dataset, "decode", loop_single, data.nbytes, group, size),
        Case(
            "zarr-codec-blosc batch, 2 threads", dataset, "decode", batch, data.nbytes, group, size
        ),
    ]


def _zarr_read() -> CaseFactory:
    import zarr
    from zarr.codecs import BloscCodec

    def cases(dataset: str, data: npt.NDArray[Any]) -> list[Case]:
        store = zarr.storage.MemoryStore()
        chunk = max(1, data.size // 16)
        array = zarr.create_array(
            store,
            shape=data.shape if data.ndim == 1 else (data.size,),
            chunks=(chunk,),
            dtype=data.dtype,
            compressors=[BloscCodec(cname="lz4", clevel=5)],
        )
        array[:] = data.reshape(-1)

        def read(implementation: str, pipeline: str | None = None) -> object:
            config = {"codecs.blosc": implementation}
            if pipeline is not None:
                config["codec_pipeline.path"] = pipeline
            with zarr.config.set(config):
                return zarr.open_array(store, mode="r")[:]

        builtin = "zarr.codecs.blosc.BloscCodec"
        ours = "zarr_codec_blosc.zarr_python.BloscCodec"
        # What `zarr_codecs.install(pipeline=True)` selects: our codec and our pipeline.
        pipeline = "zarr_codecs.pipeline.ChainCodecPipeline"
        for check in (read(ours), read(ours, pipeline)):
            if not np.array_equal(np.asarray(check), data.reshape(-1)):
                raise ValueError(f"zarr read through our blosc differs on {dataset}")
        group = "zarr read, blosc lz4 shuffle, 16 chunks"
        return [
            Case("zarr built-in", dataset, "decode", lambda: read(builtin), data.nbytes, group),
            Case(
                "zarr + zarr-codec-blosc", dataset, "decode", lambda: read(ours), data.nbytes, group
            ),
            Case(
                "zarr + zarr-codecs pipeline",
                dataset,
                "decode",
                lambda: read(ours, pipeline),
                data.nbytes,
                group,
            ),
        ]

    return cases


GZIP = Provider("zarr-codec-gzip", "our gzip (libdeflate), levels 1/5/9, decode_into, batch", _gzip)

BLOSC = Provider(
    "zarr-codec-blosc", "our blosc (c-blosc 1.x), lz4/zstd/blosclz x shuffles, batch", _blosc
)
ZARR_READ = Provider(
    "zarr-read-blosc", "zarr-python reading a blosc array: built-in codec against ours", _zarr_read
)

ZSTD = Provider(
    "zarr-codec-zstd", "our zstd (libzstd 1.5.6), levels -5/0/1/3/9/19, decode_into, batch", _zstd
)
CRC32C = Provider("zarr-codec-crc32c", "our crc32c (hardware CRC-32C), decode_into", _crc32c)

OURS: tuple[Provider, ...] = (GZIP, BLOSC, ZSTD, CRC32C, ZARR_READ)

#: Groups whose baseline is not numcodecs.
BASELINES = {
    batch_group(): "1 thread",
    blosc_batch_group(): "numcodecs loop",
    zstd_batch_group(): "numcodecs loop",
    "zarr read, blosc lz4 shuffle, 16 chunks": "zarr built-in",
}
