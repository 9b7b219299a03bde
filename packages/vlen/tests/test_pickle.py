"""numcodecs' ``pickle`` codec of ours: numcodecs' bytes on encoding; decoding refused, with
how to opt in, until the caller opts in (a block, the rest of the process, or the
environment)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import numpy as np
import pytest
import zarr_codec_vlen
from zarr_codec_shapes import UnsupportedError
from zarr_codec_vlen.numcodecs import Pickle
from zarr_codec_vlen.pickles import (
    ENVIRONMENT_VARIABLE,
    NUMCODECS_VARIABLE,
    PickleRefusedError,
    pickle_allowed,
)

numcodecs = pytest.importorskip("numcodecs")
pytest.importorskip("numcodecs.pickles")

ARRAYS = [
    np.array(["foo", "bar", None, "ü"], dtype=object),
    np.arange(12, dtype="<i4").reshape(3, 4),
    np.array([1.5, np.nan, -np.inf]),
    np.array([b"x", 3, [1, 2]], dtype=object),
]


@pytest.fixture(autouse=True)
def _not_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENVIRONMENT_VARIABLE, raising=False)
    monkeypatch.delenv(NUMCODECS_VARIABLE, raising=False)
    monkeypatch.setattr(numcodecs.pickles, "ALLOW_UNSAFE_PICKLE_DECODE", False)
    assert not pickle_allowed()


def test_the_refusal_is_ours_and_numcodecs() -> None:
    from numcodecs.errors import UnsafeDecodeError

    encoded = Pickle().encode(ARRAYS[1])
    with pytest.raises(UnsafeDecodeError, match="ALLOW_UNSAFE_PICKLE_DECODE"):
        Pickle().decode(encoded)
    with pytest.raises(PickleRefusedError):
        Pickle().decode(encoded)
    assert issubclass(PickleRefusedError, UnsupportedError)


def test_numcodecs_consent_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    """A program that opted in for numcodecs' codec keeps working with ours."""
    encoded = Pickle().encode(ARRAYS[1])
    monkeypatch.setattr(numcodecs.pickles, "ALLOW_UNSAFE_PICKLE_DECODE", True)
    np.testing.assert_array_equal(Pickle().decode(encoded), ARRAYS[1])


@pytest.mark.parametrize("protocol", [2, 4, 5])
@pytest.mark.parametrize("index", range(len(ARRAYS)))
def test_encodes_numcodecs_bytes_and_decodes_only_when_allowed(protocol: int, index: int) -> None:
    values = ARRAYS[index]
    ours, theirs = Pickle(protocol), numcodecs.Pickle(protocol)
    encoded = ours.encode(values)
    assert encoded == theirs.encode(values)
    with pytest.raises(UnsupportedError, match="allow_pickle") as refused:
        ours.decode(encoded)
    assert ENVIRONMENT_VARIABLE in str(refused.value)
    with zarr_codec_vlen.allow_pickle():
        decoded = ours.decode(encoded)
        out = np.empty_like(values)
        assert ours.decode(encoded, out=out) is out
    assert not pickle_allowed()  # the block's consent ends with it
    np.testing.assert_array_equal(decoded, values)
    np.testing.assert_array_equal(out, values)
    assert decoded.dtype == values.dtype


def test_configuration_and_repr_are_numcodecs() -> None:
    ours, theirs = Pickle(3), numcodecs.Pickle(3)
    assert ours.get_config() == theirs.get_config() == {"id": "pickle", "protocol": 3}
    assert repr(ours) == repr(theirs)
    assert Pickle().protocol == numcodecs.Pickle().protocol == pickle.HIGHEST_PROTOCOL


def test_a_plain_call_allows_for_the_rest_of_the_process() -> None:
    script = (
        "import numpy as np, zarr_codec_vlen\n"
        "from zarr_codec_vlen.numcodecs import Pickle\n"
        "data = Pickle().encode(np.arange(3))\n"
        "zarr_codec_vlen.allow_pickle()\n"
        "print(Pickle().decode(data).tolist())\n"
    )
    env = {
        k: v for k, v in os.environ.items() if k not in (ENVIRONMENT_VARIABLE, NUMCODECS_VARIABLE)
    }
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[0, 1, 2]"


def test_the_environment_allows(monkeypatch: pytest.MonkeyPatch) -> None:
    encoded = Pickle().encode(ARRAYS[0])
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, "1")
    np.testing.assert_array_equal(Pickle().decode(encoded), ARRAYS[0])
    monkeypatch.setenv(ENVIRONMENT_VARIABLE, "0")
    with pytest.raises(UnsupportedError):
        Pickle().decode(encoded)
