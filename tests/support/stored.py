"""What a zarr-python store holds, for tests that compare what two pipelines stored."""

from __future__ import annotations

from typing import Any


def contents(store: Any) -> dict[str, bytes]:
    """Every key of a zarr-python ``store`` and its bytes."""
    from zarr.core.buffer import default_buffer_prototype
    from zarr.core.sync import sync

    async def collect() -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        async for key in store.list():
            buffer = await store.get(key, prototype=default_buffer_prototype())
            assert buffer is not None
            found[key] = buffer.to_bytes()
        return found

    return sync(collect())
