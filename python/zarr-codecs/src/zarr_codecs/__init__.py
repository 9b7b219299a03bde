"""zarr-codecs: Zarr's chunk codecs, fast and exact, in one install.

This bundle depends on ``zarr-codec-shapes``, the runtime and every codec wheel at the same
version: Zarr v3's codecs and every codec numcodecs registers (``zarr-codecs info`` lists
them). Installing it changes nothing by itself; to make an existing zarr-python program use
our codecs, in Zarr v3 and v2 alike::

    import zarr_codecs
    zarr_codecs.install()          # or: with zarr_codecs.install(): ...
    zarr_codecs.uninstall()        # everything as it was

``zarr.config.reset()`` forgets what ``install()`` put in zarr's config; ``reapply()`` puts it
back. Or set ``ZARR_CODECS_INSTALL=1`` in the environment (no code change). The ``zarr-codecs``
command (``info``, ``doctor``, ``inspect``, ``check``, ``migrate``, the repair commands,
``demo``) is in :mod:`zarr_codecs.cli`.
"""

from zarr_codecs._install import (
    BINDINGS,
    Binding,
    Installation,
    install,
    installed_parts,
    reapply,
    uninstall,
)
from zarr_codecs._usage import reset_usage, usage

__all__ = [
    "BINDINGS",
    "Binding",
    "Installation",
    "__version__",
    "install",
    "installed_parts",
    "reapply",
    "reset_usage",
    "uninstall",
    "usage",
]
__version__ = "0.1.0"
