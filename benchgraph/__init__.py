"""benchgraph: a knowledge-graph store of ML papers, methods and benchmark results."""

__version__ = "0.1.0"
