"""``python -m benchmarks.run [options]``: the benchmark runner, from the repository root.

The harness ships in the bundle as :mod:`zarr_codecs.bench` (so ``zarr-codecs bench`` runs it
for users too); this module keeps the repository's command.
"""

import sys

from zarr_codecs.bench.run import main

if __name__ == "__main__":
    sys.exit(main(prog="python -m benchmarks.run"))
