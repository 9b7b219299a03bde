"""What the README and ``install()``'s docstring say it replaces, checked: codecs built from a
name or JSON are ours after ``install()``; codec objects of zarr-python's own classes (a
``GzipCodec`` a user constructs, the default ``ZstdCodec``) stay zarr-python's and run its code,
unless ``install(pipeline=True)``, whose pipeline runs them with ours."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")

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


@pytest.mark.parametrize("compressors", ["object", "default"])
def test_zarr_python_codec_objects_stay_theirs_without_the_pipeline(compressors: str) -> None:
    given = zarr.codecs.GzipCodec(level=5) if compressors == "object" else "auto"
    with zarr_codecs.install():
        zarr_codecs.reset_usage()
        array = _array(given)
        assert _compressor_module(array).startswith("zarr.codecs")
        assert zarr_codecs.usage()["runtime_written"] == 0


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
