"""``python -m benchmarks.run [options]``: the benchmark runner, from the repository root.

The harness is the development package :mod:`zarr_codecs_bench` (its ``zarr-codecs-bench``
command runs the same); this module keeps the repository's command.
"""

import sys

from zarr_codecs_bench.run import main

if __name__ == "__main__":
    sys.exit(main(prog="python -m benchmarks.run"))
