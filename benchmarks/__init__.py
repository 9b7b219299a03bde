"""Side-by-side benchmarks of zarr-codecs against its peers: ``python -m benchmarks.run``."""
