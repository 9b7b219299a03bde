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

from benchmarks.harness import Case, round_trip_cases
from benchmarks.peers import GZIP_LEVELS, CaseFactory, Provider, gzip_group

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


GZIP = Provider("zarr-codec-gzip", "our gzip (libdeflate), levels 1/5/9, decode_into, batch", _gzip)

OURS: tuple[Provider, ...] = (GZIP,)

#: Groups whose baseline is not numcodecs.
BASELINES = {batch_group(): "1 thread"}
