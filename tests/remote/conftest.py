"""The servers of the remote-store tests (tests/stores/conftest.py starts or finds them)."""

from stores.conftest import Remote, remote, server, virtuoso

__all__ = ["Remote", "remote", "server", "virtuoso"]
