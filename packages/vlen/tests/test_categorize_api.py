"""``categorize`` as a codec of the codec API: resolved from the registry by its Zarr v2 id and
v3 name, its JSON and value semantics, its refusals, chunk shapes with a spec, numcodecs' bytes,
and no numcodecs needed."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from zarr_codec_shapes import ConfigurationError, OutOfRangeError
from zarr_codec_shapes.chunk_spec import ChunkSpec
from zarr_codec_shapes.v1 import get_codec
from zarr_codec_shapes.v1.testing import check_value_semantics
from zarr_codec_vlen import Categorize

LABELS = ["a", "bb", "東京"]
CONFIG = {"labels": LABELS, "dtype": "<U2", "astype": "|u1"}


def test_the_registry_resolves_the_v2_id_to_ours() -> None:
    codec = get_codec({"id": "categorize", **CONFIG}, zarr_format=2)
    assert type(codec) is Categorize and codec == Categorize(**CONFIG)
    assert codec.to_json(2) == {"id": "categorize", **CONFIG}


def test_there_is_no_v3_form() -> None:
    # Zarr v2 only, as in numcodecs and zarr-python: neither direction of v3 JSON works.
    with pytest.raises(ConfigurationError, match="no Zarr v3 form"):
        get_codec({"name": "numcodecs.categorize", "configuration": CONFIG}, zarr_format=3)
    with pytest.raises(ConfigurationError, match="no Zarr v3 form"):
        Categorize(**CONFIG).to_json(3)


@pytest.mark.parametrize("dtype", ["<U2", ">U3", "|O"])
@pytest.mark.parametrize("astype", ["|u1", "<i4", "<f8"])
def test_v2_json_and_value_semantics(dtype: str, astype: str) -> None:
    codec = Categorize(LABELS, dtype, astype)
    v2 = json.loads(json.dumps(codec.to_json(2)))
    assert Categorize.from_json(v2, 2) == codec
    with pytest.raises(ConfigurationError):
        Categorize.from_json({**v2, "zz_unknown": 1}, 2)
    check_value_semantics(codec)


@pytest.mark.parametrize(
    "config",
    [
        {**CONFIG, "dtype": "<i4"},
        {**CONFIG, "astype": "|O"},
        {**CONFIG, "dtype": "not a type"},
        {**CONFIG, "labels": "abc"},
        {"labels": LABELS},
    ],
)
def test_bad_configurations_are_configuration_errors(config: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError):
        get_codec({"id": "categorize", **config}, zarr_format=2)


def test_chunks_keep_their_shape_with_a_spec_and_flatten_without() -> None:
    codec = Categorize(**CONFIG)
    values = np.array([["a", "zz"], ["東京", "bb"], ["", "a"]], dtype="<U2")
    spec = ChunkSpec(values.shape, "uint8", 0)
    encoded = codec.encode(values, spec)
    assert encoded.shape == (3, 2) and encoded.dtype == np.uint8
    np.testing.assert_array_equal(encoded, [[1, 0], [3, 2], [0, 1]])
    assert codec.encode(values).shape == (6,)
    np.testing.assert_array_equal(
        codec.decode(encoded.tobytes(), spec), np.where(values == "zz", "", values)
    )
    np.testing.assert_array_equal(
        codec.decode(encoded.tobytes()), codec.decode(encoded).reshape(-1)
    )
    assert codec.resolve(spec) == ChunkSpec((3, 2), "uint8", 0)


def test_more_labels_than_codes_is_out_of_range() -> None:
    codec = Categorize([str(i) for i in range(300)], "<U3", "u1")
    with pytest.raises(OutOfRangeError):
        codec.encode(np.array(["1"], dtype="<U3"))


@pytest.mark.parametrize("dtype", ["<U2", "|O"])
def test_bytes_are_numcodecs(dtype: str) -> None:
    numcodecs = pytest.importorskip("numcodecs")
    values = np.array(["a", "bb", "x", "東京", ""] * 40, dtype=dtype)
    ours = Categorize(LABELS, dtype, "<u2")
    theirs = numcodecs.Categorize(LABELS, dtype, "<u2")
    assert ours.encode(values).tobytes() == theirs.encode(values).tobytes()
    encoded = theirs.encode(values).tobytes()
    np.testing.assert_array_equal(ours.decode(encoded), theirs.decode(encoded))


def test_needs_no_numcodecs() -> None:
    program = textwrap.dedent(
        """
        import sys
        sys.modules["numcodecs"] = None  # importing it fails
        import numpy as np
        from zarr_codec_shapes.v1 import get_codec
        codec = get_codec({"id": "categorize", "labels": ["a"], "dtype": "<U1"}, zarr_format=2)
        assert codec.decode(codec.encode(np.array(["a", "b"]))).tolist() == ["a", ""]
        """
    )
    subprocess.run([sys.executable, "-c", program], check=True)
