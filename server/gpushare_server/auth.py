"""Server-side CurveZMQ: the server's key, the authorized client keys, loopback checks.

Authentication is pyzmq's own ZAP handler (``zmq.auth.thread.ThreadAuthenticator``)
configured with ``configure_curve`` on the ``--authorized-keys`` directory. The
directory is re-read whenever its contents change (``AuthorizedKeys.refresh``, called
from the broker's loop), so adding or removing a ``NAME.key`` file takes effect
without a restart: a removed key cannot open new connections (connections already
made stay, as with ssh).

A client's *key name* is the file name of its authorized public key (``alice`` for
``alice.key``); the broker reads it from each message's ``User-Id`` property and
shows it in ``gpushare status`` and in the logs. Secret keys are never logged.
"""
from __future__ import annotations

import glob
import logging
import os
import re
from typing import Any

import zmq
import zmq.auth
from zmq.auth.thread import ThreadAuthenticator

from gpushare.lane import is_loopback_host

log = logging.getLogger("gpushare.server.auth")


def load_server_key(path: str) -> tuple[bytes, bytes]:
    """``(public, secret)`` from a ``NAME.key_secret`` file made by ``gpushare keygen``.

    Raises
    ------
    ValueError
        The file cannot be read or holds no secret key.
    """
    try:
        public, secret = zmq.auth.load_certificate(path)
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read the server key {path}: {exc}") from None
    if not secret:
        raise ValueError(f"{path} holds no secret key; --server-key takes the "
                         "NAME.key_secret file made by `gpushare keygen`")
    return public, secret


def _read_names(directory: str) -> dict[bytes, str]:
    """z85 public key -> key name, for every readable ``*.key`` file in ``directory``."""
    names: dict[bytes, str] = {}
    for path in sorted(glob.glob(os.path.join(directory, "*.key"))):
        try:
            public, _ = zmq.auth.load_certificate(path)
        except (OSError, ValueError) as exc:
            log.warning("authorized key %s is unreadable and ignored: %s", path, exc)
            continue
        if public:
            names[public] = os.path.basename(path)[:-len(".key")]
    return names


class _NamedKeyAuthenticator(ThreadAuthenticator):
    """pyzmq's ZAP thread, reporting a client's key *name* as its ``User-Id``."""

    names: dict[bytes, str]

    def curve_user_id(self, client_public_key: bytes) -> str:
        from zmq.utils import z85
        z85_key = z85.encode(client_public_key)
        return self.names.get(z85_key) or z85_key.decode("ascii")[:8]


class SessionToken:
    """A plaintext worker's direct socket admits only its session's client: a ZMTP
    PLAIN handshake whose password is the session's token, checked by pyzmq's ZAP
    handler before any message is read. (Without it, anyone who finds the port could
    make the worker take messages of up to ``--max-message-size`` from them, to be
    dropped only once read, in full, for their unknown routing id.)"""

    USER = b"gpushare"

    def __init__(self, ctx: zmq.Context, token: bytes) -> None:
        self._auth = ThreadAuthenticator(ctx, log=logging.getLogger("gpushare.server.zap"))
        self._auth.start()
        self._auth.configure_plain(domain="*", passwords={self.USER.decode(): token.hex()})

    def refresh(self) -> bool:
        return False

    def stop(self) -> None:
        self._auth.stop()


class AuthorizedKeys:
    """The ``--authorized-keys`` directory, served through pyzmq's ZAP handler."""

    def __init__(self, ctx: zmq.Context, directory: str) -> None:
        if not os.path.isdir(directory):
            raise ValueError(f"--authorized-keys {directory} is not a directory")
        self.directory = directory
        self._auth = _NamedKeyAuthenticator(ctx, log=logging.getLogger("gpushare.server.zap"))
        self._auth.names = {}
        self._stamp: Any = None
        self._auth.start()
        self.refresh(force=True)

    def _fingerprint(self) -> Any:
        try:
            entries = os.scandir(self.directory)
        except OSError:
            return None
        with entries:
            return (os.stat(self.directory).st_mtime_ns, sorted(
                (e.name, e.stat().st_mtime_ns, e.stat().st_size) for e in entries
                if e.name.endswith(".key")))

    def refresh(self, force: bool = False) -> bool:
        """Re-read the directory if it changed; True when it was re-read."""
        stamp = self._fingerprint()
        if not force and stamp == self._stamp:
            return False
        self._stamp = stamp
        names = _read_names(self.directory)
        self._auth.names = names
        # configure_curve replaces the domain's key set in one assignment, which the
        # ZAP thread picks up for the next handshake
        self._auth.configure_curve(domain="*", location=self.directory)
        log.info("authorized keys: %d in %s (%s)", len(names), self.directory,
                 ", ".join(sorted(names.values())) or "none")
        return True

    def stop(self) -> None:
        self._auth.stop()


def apply_server_key(sock: zmq.Socket, public: bytes, secret: bytes) -> None:
    """Make ``sock`` a CurveZMQ server socket (before it binds)."""
    sock.curve_secretkey = secret
    sock.curve_publickey = public
    sock.curve_server = True
    sock.setsockopt(zmq.ZAP_DOMAIN, b"*")


_NETWORK_SCHEMES = {"tcp", "ws", "wss", "udp", "pgm", "epgm", "norm", "tipc", "vmci"}
def is_loopback(address: str) -> bool:
    """True when a ZeroMQ bind address can only be reached from this machine.

    ``ipc://`` and ``inproc://`` are local; ``tcp://`` is local when its host is a
    loopback address or name (``tcp://*`` and ``0.0.0.0`` are every interface).
    """
    scheme, _, rest = address.partition("://")
    scheme = scheme.lower()
    if scheme not in _NETWORK_SCHEMES:
        return True  # ipc://, inproc://, or not an address at all (binding will say so)
    if scheme != "tcp":
        return False
    host = rest
    if ";" in host:  # "source;destination" form: the part after binds
        host = host.split(";", 1)[1]
    match = re.match(r"^\[(.*)\](?::[^:]*)?$", host)
    if match:
        host = match.group(1)
    else:
        host = host.rsplit(":", 1)[0]
    return is_loopback_host(host)  # (an interface or host name: taken as reachable)
