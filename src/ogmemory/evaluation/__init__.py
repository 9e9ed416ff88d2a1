"""Benchmarks shipped with the package (``ogmem bench ...``)."""
