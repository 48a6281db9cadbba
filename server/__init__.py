"""The benchgraph HTTP server."""
