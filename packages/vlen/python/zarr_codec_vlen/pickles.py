"""numcodecs' ``pickle`` codec, which refuses to decode until the caller opts in.

Decoding a pickle runs whatever code the pickle names: a chunk in a store is data anyone who
could write to the store chose, so reading it must not execute it by default. Encoding is
harmless and writes exactly what numcodecs writes (``pickle.dumps`` at the same protocol).
Opt in, for stores you trust, with ``with zarr_codec_vlen.allow_pickle(): ...`` (or a plain
``zarr_codec_vlen.allow_pickle()`` call, for the rest of the process), or with the environment
variable ``ZARR_CODECS_ALLOW_PICKLE=1`` (which reaches dask workers and subprocesses too).
numcodecs 0.17's own consent counts as well (``numcodecs.pickles.ALLOW_UNSAFE_PICKLE_DECODE =
True`` or ``NUMCODECS_ALLOW_UNSAFE_PICKLE_DECODE=1``): a program written for numcodecs' codec
keeps working with ours. The refusal is a :class:`PickleRefusedError`, which is our
``UnsupportedError`` and, where numcodecs is installed, its ``UnsafeDecodeError`` too.
"""

from __future__ import annotations

import os
import pickle
import sys
import threading
from types import TracebackType
from typing import Any

from zarr_codec_shapes.errors import UnsupportedError

__all__ = [
    "ENVIRONMENT_VARIABLE",
    "PickleRefusedError",
    "allow_pickle",
    "pickle_allowed",
    "refuse_unless_allowed",
]

#: Set to ``1`` to let every process that sees it decode pickles.
ENVIRONMENT_VARIABLE = "ZARR_CODECS_ALLOW_PICKLE"
#: numcodecs' own variable, honoured too.
NUMCODECS_VARIABLE = "NUMCODECS_ALLOW_UNSAFE_PICKLE_DECODE"

try:
    from numcodecs.errors import UnsafeDecodeError as _NumcodecsRefusal
except ImportError:  # numcodecs absent (or older than 0.17): ours alone
    _NumcodecsRefusal = RuntimeError


class PickleRefusedError(UnsupportedError, _NumcodecsRefusal):  # type: ignore[misc]
    """Decoding a pickle was refused: the caller has not opted in (see the module)."""


_lock = threading.Lock()
_allowed = [0]  # how many allow_pickle() are in effect


class allow_pickle:
    """Let pickle chunks be decoded: for the block (``with allow_pickle(): ...``), or from the
    call on (``allow_pickle()`` alone). Only for stores whose every writer you trust:
    decoding a pickle runs the code it names."""

    def __init__(self) -> None:
        with _lock:
            _allowed[0] += 1

    def __enter__(self) -> allow_pickle:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        with _lock:
            _allowed[0] -= 1


def _truthy(variable: str) -> bool:
    return os.environ.get(variable, "").strip().lower() in {"1", "true", "yes"}


def pickle_allowed() -> bool:
    """Whether pickles may be decoded here: :class:`allow_pickle`, our environment variable,
    or numcodecs' consent (its module flag, or its variable where numcodecs is not loaded)."""
    if _allowed[0] > 0 or _truthy(ENVIRONMENT_VARIABLE):
        return True
    numcodecs_pickles = sys.modules.get("numcodecs.pickles")
    if numcodecs_pickles is not None:
        return bool(getattr(numcodecs_pickles, "ALLOW_UNSAFE_PICKLE_DECODE", False))
    return _truthy(NUMCODECS_VARIABLE)


def refuse_unless_allowed() -> None:
    """``UnsupportedError`` saying how to opt in, unless pickles may be decoded."""
    if not pickle_allowed():
        raise PickleRefusedError(
            "pickle: decoding a pickle runs code named by the stored data, so zarr-codecs "
            "refuses it unless you opt in, for stores you trust: "
            "`with zarr_codec_vlen.allow_pickle(): ...`, the environment variable "
            f"{ENVIRONMENT_VARIABLE}=1, or numcodecs' own "
            "numcodecs.pickles.ALLOW_UNSAFE_PICKLE_DECODE = True"
        )


def loads(data: Any) -> Any:
    """``pickle.loads`` once the caller has opted in."""
    refuse_unless_allowed()
    return pickle.loads(data)
