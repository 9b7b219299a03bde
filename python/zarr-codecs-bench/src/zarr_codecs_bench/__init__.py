"""zarr-codecs-bench: the benchmark harness of the zarr-codecs repository (development only).

``zarr-codecs-bench`` (:mod:`zarr_codecs_bench.run`) times our codecs against their peers;
``python -m zarr_codecs_bench.pipelines`` times zarr-python's pipelines end to end. Kept out of
the zarr-codecs bundle, which users install; never published.
"""
