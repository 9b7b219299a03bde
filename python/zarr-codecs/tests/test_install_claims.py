"""What the README and ``install()``'s docstring say it replaces, checked: codecs built from a
name or JSON are ours after ``install()``; codec objects of zarr-python's own classes (a
``GzipCodec`` a user constructs, the default ``ZstdCodec``) stay zarr-python's objects but run
our codecs, with zarr-python's pipeline and with ours (``install(pipeline=True)``); after
``uninstall()`` they run zarr-python's code again."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
numcodecs = pytest.importorskip("numcodecs")

import zarr_codecs  # noqa: E402
from zarr.storage import MemoryStore  # noqa: E402

GZIP_JSON = {"name": "gzip", "configuration": {"level": 5}}


def _array(compressors: Any) -> Any:
    array = zarr.create_array(
        MemoryStore(), shape=(64,), chunks=(16,), dtype="float32", compressors=compressors
    )
    array[...] = np.arange(64, dtype="float32")
    return array


def _compressor_module(array: Any) -> str:
    return type(array.metadata.codecs[-1]).__module__


def test_codecs_given_as_json_are_ours_after_install() -> None:
    with zarr_codecs.install():
        array = _array([GZIP_JSON])
        assert _compressor_module(array).startswith("zarr_codec_gzip")
        np.testing.assert_array_equal(array[...], np.arange(64, dtype="float32"))


def _gzip_mtime(array: Any) -> bytes:
    """The MTIME field of the first stored chunk's gzip header: zarr-python's gzip (Python's
    ``gzip`` module) writes the time of day, ours writes zero."""
    import asyncio

    from zarr.core.buffer import default_buffer_prototype

    stored = asyncio.run(array.store.get("c/0", default_buffer_prototype()))
    header: bytes = stored.to_bytes()[:10]
    assert header[:2] == b"\x1f\x8b"
    return header[4:8]


def test_a_zarr_python_gzip_object_writes_with_ours_while_installed() -> None:
    assert _gzip_mtime(_array(zarr.codecs.GzipCodec(level=5))) != bytes(4)  # zarr's own code
    with zarr_codecs.install():
        array = _array(zarr.codecs.GzipCodec(level=5))
        assert _compressor_module(array).startswith("zarr.codecs")  # still their object
        assert _gzip_mtime(array) == bytes(4)
        np.testing.assert_array_equal(array[...], np.arange(64, dtype="float32"))
    assert _gzip_mtime(_array(zarr.codecs.GzipCodec(level=5))) != bytes(4)  # and back again


# zarr-python's own codec object for each codec install() replaces, as users construct them.
OWN_OBJECTS = {
    "gzip": ("compressors", lambda: zarr.codecs.GzipCodec(level=3)),
    "blosc": ("compressors", lambda: zarr.codecs.BloscCodec(cname="lz4", clevel=5)),
    "zstd": ("compressors", lambda: zarr.codecs.ZstdCodec(level=1, checksum=True)),
    "crc32c": ("compressors", lambda: zarr.codecs.Crc32cCodec()),
    "cast_value": (
        "filters",
        lambda: zarr.codecs.cast_value.CastValue.from_dict(
            {"name": "cast_value", "configuration": {"data_type": "int32"}}
        ),
    ),
    "scale_offset": (
        "filters",
        lambda: zarr.codecs.scale_offset.ScaleOffset.from_dict(
            {"name": "scale_offset", "configuration": {"offset": 1, "scale": 2}}
        ),
    ),
    "numcodecs.zlib": ("compressors", lambda: zarr.codecs.numcodecs.Zlib(level=4)),
    "numcodecs.lz4": ("compressors", lambda: zarr.codecs.numcodecs.LZ4(acceleration=3)),
    "numcodecs.bz2": ("compressors", lambda: zarr.codecs.numcodecs.BZ2(level=5)),
    "numcodecs.lzma": ("compressors", lambda: zarr.codecs.numcodecs.LZMA(preset=2)),
    "numcodecs.shuffle": ("compressors", lambda: zarr.codecs.numcodecs.Shuffle(elementsize=4)),
    "numcodecs.crc32": ("compressors", lambda: zarr.codecs.numcodecs.CRC32(location="end")),
    "numcodecs.adler32": ("compressors", lambda: zarr.codecs.numcodecs.Adler32()),
    "numcodecs.fletcher32": ("compressors", lambda: zarr.codecs.numcodecs.Fletcher32()),
    "numcodecs.jenkins_lookup3": (
        "compressors",
        lambda: zarr.codecs.numcodecs.JenkinsLookup3(initval=3),
    ),
    # numcodecs' filters on the float32 values 0..63, which each stores exactly (packbits
    # takes booleans only: its objects are run in tests/test_chain_pipeline.py).
    "numcodecs.delta": ("filters", lambda: zarr.codecs.numcodecs.Delta(dtype="<f4")),
    "numcodecs.bitround": ("filters", lambda: zarr.codecs.numcodecs.BitRound(keepbits=10)),
    "numcodecs.quantize": (
        "filters",
        lambda: zarr.codecs.numcodecs.Quantize(digits=1, dtype="<f4"),
    ),
    "numcodecs.astype": (
        "filters",
        lambda: zarr.codecs.numcodecs.AsType(encode_dtype="<f8", decode_dtype="<f4"),
    ),
}


@pytest.mark.filterwarnings("ignore::UserWarning")  # zarr: numcodecs codecs are unstable in v3
@pytest.mark.parametrize("name", sorted(OWN_OBJECTS))
@pytest.mark.parametrize("pipeline", [False, True], ids=["zarr-pipeline", "our-pipeline"])
def test_zarr_python_codec_objects_run_ours_while_installed(
    name: str, pipeline: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every codec object of zarr-python's own classes runs our codec of that name (seen by a
    counter on our class's chunk methods), and reads back the values written."""
    binding = next(b for b in zarr_codecs.BINDINGS if b.name == name)
    ours = binding.load(binding.zarr_class)
    calls: list[str] = []
    for method in ("decode", "encode", "_decode_sync", "_encode_sync"):
        original = getattr(ours, method)
        if method.endswith("_sync"):

            def spy(self: Any, *args: Any, _m: str = method, _f: Any = original) -> Any:
                calls.append(_m)
                return _f(self, *args)

        else:

            async def spy(self: Any, *args: Any, _m: str = method, _f: Any = original) -> Any:
                calls.append(_m)
                return await _f(self, *args)

        monkeypatch.setattr(ours, method, spy)
    where, make = OWN_OBJECTS[name]
    values = np.arange(64, dtype="float32")
    with zarr_codecs.install(pipeline=pipeline):
        array = zarr.create_array(
            MemoryStore(), shape=(64,), chunks=(16,), dtype="float32", **{where: make()}
        )
        assert any(type(c).__module__.startswith("zarr.codecs") for c in _all_codecs(array))
        array[...] = values
        np.testing.assert_array_equal(array[...], values)
    if not pipeline:  # our pipeline runs ours through the runtime, not these methods
        assert any(c.startswith("encode") or c == "_encode_sync" for c in calls), calls
        assert any(c.startswith("decode") or c == "_decode_sync" for c in calls), calls
    calls.clear()
    after = zarr.create_array(
        MemoryStore(), shape=(64,), chunks=(16,), dtype="float32", **{where: make()}
    )
    after[...] = values
    np.testing.assert_array_equal(after[...], values)
    assert calls == []  # uninstalled: zarr-python's own code again


def _all_codecs(array: Any) -> list[Any]:
    return list(array.metadata.codecs)


@pytest.mark.parametrize("compressors", ["object", "default"])
def test_zarr_python_codec_objects_run_ours_with_the_pipeline(compressors: str) -> None:
    given = zarr.codecs.GzipCodec(level=5) if compressors == "object" else "auto"
    with zarr_codecs.install(pipeline=True):
        zarr_codecs.reset_usage()
        array = _array(given)
        assert _compressor_module(array).startswith("zarr.codecs")  # still their object
        np.testing.assert_array_equal(array[...], np.arange(64, dtype="float32"))
        used = zarr_codecs.usage()
    assert used["runtime_written"] == 4 and used["zarr_written"] == 0, used
    assert used["runtime_read"] + used["remote_read"] > 0 and used["zarr_read"] == 0, used


@pytest.mark.filterwarnings("ignore::UserWarning")  # zarr: numcodecs codecs are unstable in v3
def test_zarr_python_numcodecs_wrappers_build_ours_for_the_ids_installed() -> None:
    from zarr.codecs import numcodecs as wrappers

    with zarr_codecs.install():
        assert type(wrappers.GZip(level=5)._codec).__module__.startswith("zarr_codec_gzip")
        fixed = wrappers.FixedScaleOffset(offset=0, scale=10, dtype="<f8")
        assert type(fixed._codec).__module__.startswith("zarr_codec_scale_offset")
        assert type(wrappers.Zlib(level=5)._codec).__module__.startswith("zarr_codec_gzip")
        assert type(wrappers.Delta(dtype="<i4")._codec).__module__.startswith("zarr_codec_filters")
        labels = {"id": "categorize", "labels": ["a"], "dtype": "|O"}
        assert type(numcodecs.get_codec(labels)).__module__.startswith("zarr_codec_vlen")
        for wrapper, package in ((wrappers.PCodec, "pcodec"), (wrappers.ZFPY, "zfpy")):
            assert type(wrapper()._codec).__module__.startswith(f"zarr_codec_{package}")
    assert type(numcodecs.get_codec(labels)).__module__.startswith("numcodecs")  # given back
    assert type(wrappers.GZip(level=5)._codec).__module__.startswith("numcodecs")


def test_the_readme_names_what_install_replaces_and_nothing_else_as_not_replaced() -> None:
    """The README's paragraph on what ``install()`` replaces names every codec of
    ``BINDINGS``, and its "Not replaced" list none of them (it once listed delta, bitround and
    the variable-length codecs there), and every numcodecs id has one of ours."""
    from pathlib import Path

    from numcodecs.registry import codec_registry

    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    start = readme.index("What `install()` replaces, exactly")
    paragraph = readme[start : readme.index("`tests/test_install_claims.py`", start)]
    replaced, _, not_replaced = paragraph.partition("Not replaced:")
    assert not_replaced, "the paragraph says what is not replaced"
    for binding in zarr_codecs.BINDINGS:
        short = f"`{binding.name.removeprefix('numcodecs.')}`"
        assert short in replaced, binding.name
        assert short not in not_replaced, binding.name
    # numcodecs' own ids (a test may register a codec of its own beside them).
    numcodecs_own = {
        i for i, cls in codec_registry.items() if cls.__module__.startswith("numcodecs")
    }
    assert "gzip" in numcodecs_own and numcodecs_own <= {b.v2_id for b in zarr_codecs.BINDINGS}
