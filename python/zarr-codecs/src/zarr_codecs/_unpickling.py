"""Arrays unpickled in a process where ours is installed use ours.

A zarr-python array carries the codec objects and the codec pipeline chosen by the process
that opened it, and pickles them as they are. On a dask cluster the client opens arrays and
sends them to workers, so a worker where :func:`zarr_codecs.install` ran (by the worker
plugin or ``ZARR_CODECS_INSTALL``) would still run the client's choice. While anything is
installed, :func:`follow` gives zarr's ``AsyncArray`` a ``__getstate__`` that notes what the
pickling process had installed, and a ``__setstate__`` that does what pickle does by default,
then, where this process has something else installed, resolves the array's codecs and
pipeline again from its metadata here, as opening it here would. :func:`unfollow` removes
them.
"""

from __future__ import annotations

import sys
from typing import Any

from zarr_codecs._installed import installed_parts

__all__ = ["follow", "unfollow"]


def _resolved_here(array: Any) -> None:
    """Re-resolve ``array``'s codec objects (through zarr's and numcodecs' registries) and its
    pipeline (zarr's ``codec_pipeline.path``) as opening it in this process would."""
    from zarr.core.array import create_codec_pipeline
    from zarr.registry import get_pipeline_class

    parts = installed_parts()
    metadata = array.metadata
    wanted = "zarr" if metadata.zarr_format == 3 else "numcodecs"
    try:
        if wanted in parts:  # codecs from the registry that now holds ours
            metadata = type(metadata).from_dict(metadata.to_dict())
        if wanted in parts or not isinstance(array.codec_pipeline, get_pipeline_class()):
            pipeline = create_codec_pipeline(metadata=metadata, store=array.store_path.store)
        else:
            pipeline = array.codec_pipeline
    except Exception:
        # A codec this process knows by no name (registered only where the array was
        # opened, say): the array keeps what it was pickled with, which still works here.
        return
    object.__setattr__(array, "metadata", metadata)
    object.__setattr__(array, "codec_pipeline", pipeline)


def _getstate(self: Any) -> dict[str, Any]:
    # What this process had installed: a process with the same resolves nothing again, so
    # an array pickled and unpickled here comes back equal (zarr-python's suite checks).
    return {**self.__dict__, _MARK: sorted(installed_parts())}


def _setstate(self: Any, state: Any) -> None:
    # What pickle does for an object without __setstate__ (zarr's frozen dataclass has none).
    state = dict(state)
    pickled_under = state.pop(_MARK, None)
    self.__dict__.update(state)
    if pickled_under is None or set(pickled_under) != installed_parts():
        _resolved_here(self)


#: The state key that says what the pickling process had installed. A process without our
#: hook (nothing installed) keeps it as a harmless extra attribute: not a dataclass field.
_MARK = "_zarr_codecs_installed"
_HOOKS = {"__getstate__": _getstate, "__setstate__": _setstate}


def _async_array_class() -> Any:
    """zarr's ``AsyncArray`` once zarr has defined it, else ``None``. Never imports zarr:
    numcodecs is imported (and ours installed into it) while zarr is still importing."""
    return getattr(sys.modules.get("zarr.core.array"), "AsyncArray", None)


def follow() -> None:
    """Make arrays unpickled from now on use this process's codecs and pipeline, if zarr is
    imported (installing into zarr imports it, and calls this again). Idempotent."""
    cls = _async_array_class()
    if cls is not None:
        for name, hook in _HOOKS.items():
            setattr(cls, name, hook)


def unfollow() -> None:
    """Undo :func:`follow`: arrays unpickle exactly as they were pickled again."""
    cls = _async_array_class()
    if cls is not None:
        for name, hook in _HOOKS.items():
            if cls.__dict__.get(name) is hook:
                delattr(cls, name)
