"""Put this folder on PYTHONPATH to forbid the network to a Python process: any attempt to resolve
a host or open a non-local connection raises, and is recorded in $NETWORK_GUARD_LOG."""

import os
import socket

_LOCAL = ("127.", "::1", "localhost", "0.0.0.0")


def _record(what: str) -> None:
    import traceback

    with open(os.environ.get("NETWORK_GUARD_LOG", os.devnull), "a") as log:
        log.write(what + "\n" + "".join(traceback.format_stack(limit=40)[:-2]))


def _local(host) -> bool:
    return host is None or str(host).startswith(_LOCAL) or str(host) == ""


_getaddrinfo = socket.getaddrinfo
_connect = socket.socket.connect


def getaddrinfo(host, *args, **kwargs):
    if not _local(host):
        _record(f"resolve {host}")
        raise OSError(f"network disabled in tests: resolve {host}")
    return _getaddrinfo(host, *args, **kwargs)


def connect(self, address):
    host = address[0] if isinstance(address, tuple) else address
    if self.family in (socket.AF_INET, socket.AF_INET6) and not _local(host):
        _record(f"connect {address}")
        raise OSError(f"network disabled in tests: connect {address}")
    return _connect(self, address)


socket.getaddrinfo = getaddrinfo
socket.socket.connect = connect
