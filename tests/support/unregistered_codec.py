"""A zarr-python codec that only the process that registers it knows by name: its objects
pickle by class (this module is importable everywhere), its name resolves nowhere else."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zarr.abc.codec import BytesBytesCodec

NAME = "test.unregistered_passthrough"


@dataclass(frozen=True)
class Passthrough(BytesBytesCodec):
    """Stores bytes as they are."""

    is_fixed_size = True

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Passthrough:
        return cls()

    def to_dict(self) -> dict[str, Any]:
        return {"name": NAME}

    async def _decode_single(self, chunk_bytes: Any, chunk_spec: Any) -> Any:
        return chunk_bytes

    async def _encode_single(self, chunk_bytes: Any, chunk_spec: Any) -> Any:
        return chunk_bytes

    def compute_encoded_size(self, input_byte_length: int, chunk_spec: Any) -> int:
        return input_byte_length
