"""Our codecs (and pipeline) on every worker of a ``dask.distributed`` cluster.

Each worker is its own process: :func:`zarr_codecs.install` in the client does nothing there.
Register :class:`Install` once and every worker, including workers that join later, runs
``install()`` as it starts::

    from distributed import Client
    from zarr_codecs.dask import Install

    client = Client(cluster)
    client.register_plugin(Install(pipeline=True))
    client.run(zarr_codecs.usage)  # each worker's counts of chunks our runtime read and wrote

Arrays the client opened and sent to a worker (``dask.array.from_zarr``, ``xarray.open_zarr``)
use what is installed in the worker: an installed worker re-resolves an unpickled array's
codecs and pipeline as if it had opened the array itself.

Without code: ``ZARR_CODECS_INSTALL=1`` (or ``pipeline``) in the workers' environment at
interpreter start does the same, for example through dask's config
``distributed.nanny.pre-spawn-environ`` (``distributed.nanny.environ`` is applied after the
worker's interpreter started, too late for it).

Needs ``distributed`` (``pip install "zarr-codecs[dask]"``).
"""

from __future__ import annotations

from typing import Any

try:
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError as err:  # the extra is optional: say which one
    raise ImportError(
        'zarr_codecs.dask needs distributed: pip install "zarr-codecs[dask]"'
    ) from err

from zarr_codecs._install import install, uninstall

__all__ = ["Install"]


class Install(WorkerPlugin):
    """A worker plugin that runs :func:`zarr_codecs.install` with these arguments in each
    worker as it starts, and :func:`zarr_codecs.uninstall` when the plugin is removed
    (``client.unregister_worker_plugin(Install.name)``) or the worker closes.

    Registering another ``Install`` replaces this one (they share :attr:`name`).
    """

    #: The name distributed keeps the plugin under.
    name = "zarr-codecs-install"

    def __init__(self, *, zarr: bool = True, numcodecs: bool = True, pipeline: bool = False):
        self.zarr = zarr
        self.numcodecs = numcodecs
        self.pipeline = pipeline

    def setup(self, worker: Any) -> None:
        # A replaced plugin's teardown may not have run first: start from nothing.
        uninstall()
        install(zarr=self.zarr, numcodecs=self.numcodecs, pipeline=self.pipeline)

    def teardown(self, worker: Any) -> None:
        uninstall()

    def __repr__(self) -> str:
        return f"Install(zarr={self.zarr}, numcodecs={self.numcodecs}, pipeline={self.pipeline})"
