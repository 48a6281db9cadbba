"""Benchmarks of benchgraph: a synthetic corpus generator and the measurements that use it."""
