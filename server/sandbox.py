"""Confinement of query worker processes (Linux; elsewhere these are no-ops that say so).

:func:`deny_network` installs a seccomp filter that makes ``socket(AF_INET | AF_INET6, …)``
fail with EACCES for the rest of the process's life, so whatever a query asks for, the engine
cannot open a connection: the second wall behind :mod:`server.guard`. Unix sockets and the
pipe to the server still work. :func:`die_with_parent` makes the kernel kill the worker when the
server process dies, even in the middle of a query.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import signal
import sys

_PR_SET_PDEATHSIG = 1
_PR_SET_SECCOMP = 22
_PR_SET_NO_NEW_PRIVS = 38
_SECCOMP_MODE_FILTER = 2
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
_ALLOW = 0x7FFF0000
_DENY = 0x00050000 | errno.EACCES  # SECCOMP_RET_ERRNO
_AF_INET, _AF_INET6 = 2, 10
# machine -> (AUDIT_ARCH_*, number of the socket system call)
_ARCHES = {"x86_64": (0xC000003E, 41), "aarch64": (0xC00000B7, 198)}


class _Filter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_ushort),
        ("jt", ctypes.c_ubyte),
        ("jf", ctypes.c_ubyte),
        ("k", ctypes.c_uint32),
    ]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Filter))]


def _libc() -> ctypes.CDLL | None:
    if sys.platform != "linux":
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def deny_network() -> bool:
    """Forbid this process (and threads it starts from now on) to open IPv4/IPv6 sockets.

    Returns False when the platform cannot do it (not Linux on x86-64 or ARM64).
    """
    libc, arch = _libc(), _ARCHES.get(platform.machine())
    if libc is None or arch is None:
        return False
    audit_arch, socket_call = arch
    program = [
        (_LD_W_ABS, 0, 0, 4),  # 0: A = architecture
        (_JEQ_K, 1, 0, audit_arch),  # 1: native calls go on to 3
        (_RET_K, 0, 0, _DENY),  # 2: calls through a foreign ABI: refused
        (_LD_W_ABS, 0, 0, 0),  # 3: A = system call number
        (_JGE_K, 5, 0, 0x40000000),  # 4: x32 calls: refused (10)
        (_JEQ_K, 0, 3, socket_call),  # 5: anything but socket(): allowed (9)
        (_LD_W_ABS, 0, 0, 16),  # 6: A = address family (first argument)
        (_JEQ_K, 2, 0, _AF_INET),  # 7: IPv4: refused (10)
        (_JEQ_K, 1, 0, _AF_INET6),  # 8: IPv6: refused (10)
        (_RET_K, 0, 0, _ALLOW),  # 9
        (_RET_K, 0, 0, _DENY),  # 10
    ]
    filters = (_Filter * len(program))(*[_Filter(c, t, f, k) for c, t, f, k in program])
    prog = _Program(len(program), filters)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) == 0


def die_with_parent() -> bool:
    """Have the kernel kill this process when its parent exits. False where unsupported."""
    libc = _libc()
    if libc is None:
        return False
    return libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
