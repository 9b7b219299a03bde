"""``ZARR_CODECS_INSTALL=1``: install our codecs into a program that never imports us.

The wheel ships ``zarr_codecs-autoinstall.pth``, which Python runs at startup; it imports this
module only when the variable is set. Importing zarr or numcodecs at startup would slow every
interpreter and could break programs that configure them first, so :func:`activate` waits:
each library gets our codecs right after its own import finishes (at once if it already has).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from types import ModuleType
from typing import Any

__all__ = ["ENVIRONMENT_VARIABLE", "activate", "requested", "startup"]

#: Set to 1 (or true, yes, on) to install our codecs in every Python process; to
#: ``pipeline`` to select our codec pipeline as well.
ENVIRONMENT_VARIABLE = "ZARR_CODECS_INSTALL"

_TRUE = frozenset({"1", "true", "yes", "on", "pipeline"})
_FALSE = frozenset({"", "0", "false", "no", "off"})


def _mode(environ: Mapping[str, str] = os.environ) -> str:
    return environ.get(ENVIRONMENT_VARIABLE, "").strip().lower()


def requested(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether the environment asks for installation. An unknown value warns and means no."""
    value = _mode(environ)
    if value in _TRUE:
        return True
    if value not in _FALSE:
        warnings.warn(
            f"{ENVIRONMENT_VARIABLE}={value!r} is not understood (use 1, pipeline or 0); "
            "zarr-codecs is not installed",
            RuntimeWarning,
            stacklevel=2,
        )
    return False


def _install_part(part: str) -> None:
    try:
        from zarr_codecs._install import install

        pipeline = part == "zarr" and _mode() == "pipeline"
        install(zarr=part == "zarr", numcodecs=part == "numcodecs", pipeline=pipeline)
    except Exception as err:  # never break the user's import of zarr or numcodecs
        warnings.warn(
            f"{ENVIRONMENT_VARIABLE}: could not install zarr-codecs into {part}: {err}",
            RuntimeWarning,
            stacklevel=2,
        )


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs a callback when a watched top-level module has finished importing."""

    def __init__(self, callbacks: dict[str, Callable[[], None]]) -> None:
        self.callbacks = callbacks
        self._busy = threading.local()

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        callback = self.callbacks.get(fullname)
        if callback is None or getattr(self._busy, "name", None) == fullname:
            return None
        self._busy.name = fullname
        try:  # the spec every other finder would give
            spec = importlib.util.find_spec(fullname)
        finally:
            self._busy.name = None
        if spec is None or spec.loader is None:
            return spec
        # The callback is taken when the module runs, not here: a spec asked for without an
        # import (`importlib.util.find_spec("zarr")`, to see whether zarr is installed) must
        # not use it up.
        spec.loader = _ThenCall(spec.loader, partial(self._imported, fullname))
        return spec

    def _imported(self, fullname: str) -> None:
        """``fullname`` has run: its callback, once; the finder leaves when none is left."""
        callback = self.callbacks.pop(fullname, None)
        if not self.callbacks and self in sys.meta_path:
            sys.meta_path.remove(self)
        if callback is not None:
            callback()


class _ThenCall(importlib.abc.Loader):
    """A loader that runs ``callback`` after ``inner`` has executed the module."""

    def __init__(self, inner: importlib.abc.Loader, callback: Callable[[], None]) -> None:
        self.inner = inner
        self.callback = callback

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        # Put the real loader back first: importlib.resources and friends ask it for files.
        if module.__spec__ is not None:
            module.__spec__.loader = self.inner
        module.__loader__ = self.inner
        self.inner.exec_module(module)
        self.callback()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def activate() -> None:
    """Install now into whichever of zarr and numcodecs is imported, and on import into the
    other. Called at startup by the ``.pth`` file when :func:`requested`."""
    pending: dict[str, Callable[[], None]] = {}
    for part in ("numcodecs", "zarr"):
        if part in sys.modules:
            _install_part(part)
        else:
            pending[part] = partial(_install_part, part)
    if pending:
        sys.meta_path.insert(0, _AfterImport(pending))


def startup() -> None:
    """What the ``.pth`` file runs when the variable is set at all: :func:`activate` if it
    says yes."""
    if requested():
        activate()
