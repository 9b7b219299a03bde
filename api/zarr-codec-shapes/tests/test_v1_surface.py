"""``zarr_codec_shapes.v1`` never breaks: its names and signatures equal a committed snapshot.

A deliberate addition updates the snapshot: run this module with
``ZARR_CODEC_SHAPES_UPDATE_V1=1`` and commit ``v1_surface.json`` with the change that needs it.
A removal or an incompatible change belongs in a new ``v2`` beside ``v1``, never here.
"""

from __future__ import annotations

import enum
import inspect
import json
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import zarr_codec_shapes
import zarr_codec_shapes.v1 as v1
import zarr_codec_shapes.v1.testing as v1_testing

SNAPSHOT = Path(__file__).with_name("v1_surface.json")


def _member(value: Any) -> str:
    if isinstance(value, property):
        return "property"
    if isinstance(value, classmethod | staticmethod):
        return f"{type(value).__name__} {inspect.signature(value.__func__)}"
    if inspect.isfunction(value):
        return f"def {inspect.signature(value)}"
    if isinstance(value, enum.Enum):
        return f"member {value.value!r}"
    return type(value).__name__


def _describe(value: Any) -> Any:
    if inspect.isclass(value):
        members = {
            name: _member(member)
            for name, member in vars(value).items()
            if not name.startswith("_") or name in ("__init__", "__call__")
        }
        bases = [base.__qualname__ for base in value.__bases__]
        return {"class": bases, "members": dict(sorted(members.items()))}
    if inspect.isfunction(value):
        return f"def {inspect.signature(value)}"
    if isinstance(value, str | int | float | tuple):
        return f"{type(value).__name__} constant"
    return repr(value)


def surface(modules: tuple[ModuleType, ...] = (v1, v1_testing)) -> dict[str, Any]:
    """Every public name of ``v1`` (and its conformance kit) with its signature."""
    return {
        f"{module.__name__}.{name}": _describe(getattr(module, name))
        for module in modules
        for name in sorted(module.__all__)
    }


def test_v1_matches_the_snapshot() -> None:
    current = surface()
    if os.environ.get("ZARR_CODEC_SHAPES_UPDATE_V1") == "1":
        SNAPSHOT.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n")
    committed = json.loads(SNAPSHOT.read_text())
    removed = sorted(set(committed) - set(current))
    assert not removed, f"v1 names removed (a breaking change: put it in a v2): {removed}"
    changed = sorted(k for k in committed if committed[k] != current[k])
    assert not changed, f"v1 names changed (update the snapshot only if compatible): {changed}"
    added = sorted(set(current) - set(committed))
    assert not added, f"v1 names added: update the snapshot deliberately: {added}"


def test_the_root_re_exports_v1() -> None:
    for name in v1.__all__:
        assert getattr(zarr_codec_shapes, name) is getattr(v1, name), name
        assert name in zarr_codec_shapes.__all__, name


def test_the_snapshot_notices_a_change() -> None:
    """The comparison is not vacuous: a changed signature is a different description."""

    def encode(self: Any, data: Any) -> bytes:
        raise NotImplementedError

    def encode_with_spec(self: Any, data: Any, spec: Any) -> bytes:
        raise NotImplementedError

    assert _member(encode) != _member(encode_with_spec)
    described = surface()
    assert described["zarr_codec_shapes.v1.get_codec"].startswith("def (")
    assert "encode" in described["zarr_codec_shapes.v1.BytesBytesCodec"]["members"]
