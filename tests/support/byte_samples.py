"""Bytes to feed bytes codecs in tests: random bytes, and batches of chunks that differ in size
and kind (shared by the gzip and blosc suites)."""

from __future__ import annotations

import numpy as np


def random_bytes(size: int, seed: int = 0) -> bytes:
    """``size`` random bytes, the same for the same seed (incompressible data)."""
    return np.random.default_rng(seed).integers(0, 256, size, dtype=np.uint8).tobytes()


def varied_chunks(count: int = 64) -> list[bytes]:
    """Chunks of different sizes (up to 40 kB, every eighth empty) and kinds: random bytes,
    smooth floats, one repeated byte and repeated text, in turn; the same on every call."""
    rng = np.random.default_rng(3)
    chunks: list[bytes] = []
    for i in range(count):
        size = int(rng.integers(0, 40_000)) if i % 8 else 0
        kind = i % 4
        if kind == 0:
            chunks.append(rng.integers(0, 256, size, dtype=np.uint8).tobytes())
        elif kind == 1:
            chunks.append(np.sin(np.arange(size // 4) / (i + 1)).astype("<f4").tobytes())
        elif kind == 2:
            chunks.append(bytes([i]) * size)
        else:
            chunks.append((b"chunk %d " % i) * (size // 10))
    return chunks
