"""Client-side connection security: CurveZMQ keys, and a handshake that never hangs.

A client encrypts its connection and proves who it is with two files made by
``gpushare keygen`` (``zmq.auth``'s certificate format):

``GPUSHARE_SERVER_KEY``  the server's *public* key file (``server.key``)
``GPUSHARE_CLIENT_KEY``  the client's *secret* key file (``alice.key_secret``)

``configure_client_socket`` is called by ``client.Session`` on its socket before it
connects; ``wait_for_server`` watches the connection's handshake so that a refused or
mis-keyed client gets a clear error at once (or at the latest when the connect timeout
runs out) instead of a silent wait.
"""
from __future__ import annotations

import os
# (bound once: a program that mocks time's clocks leaves the transport alone)
from time import monotonic as _monotonic
import weakref
from typing import Any

import zmq

from . import errors

SERVER_KEY_ENV = "GPUSHARE_SERVER_KEY"
CLIENT_KEY_ENV = "GPUSHARE_CLIENT_KEY"

#: a handshake that fails this many times without detail (a wrong server key looks
#: like this: the server cannot decrypt the client's hello and hangs up) is reported
#: before the timeout runs out
_NO_DETAIL_FAILURES = 3

#: a connection refused this long (s) without ever being accepted is reported then
REFUSED_S = 10.0

# socket -> its handshake monitor (a PAIR socket), while the handshake is watched
_monitors: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()
# socket -> the key files it was configured with (for error messages; never the keys)
_key_files: "weakref.WeakKeyDictionary[Any, tuple[str, str]]" = weakref.WeakKeyDictionary()


class KeyConfigurationError(errors.GpushareError, ValueError):
    """The client's key settings are incomplete or the key files cannot be read."""


class AuthenticationError(errors.ServerUnavailableError):
    """The server refused this client's keys (or the client has none and the server
    requires them, or the client's idea of the server's key is wrong)."""


def client_keys() -> tuple[str, str] | None:
    """The ``(server_public_key_file, client_secret_key_file)`` configured in the
    environment, or None when the client connects without CurveZMQ.

    Raises
    ------
    KeyConfigurationError
        Only one of the two variables is set.
    """
    server_key = os.environ.get(SERVER_KEY_ENV, "").strip()
    client_key = os.environ.get(CLIENT_KEY_ENV, "").strip()
    if not server_key and not client_key:
        return None
    if not server_key or not client_key:
        missing = SERVER_KEY_ENV if not server_key else CLIENT_KEY_ENV
        raise KeyConfigurationError(
            f"gpushare: {SERVER_KEY_ENV} and {CLIENT_KEY_ENV} go together; {missing} is not "
            f"set. {SERVER_KEY_ENV} names the server's public key file (server.key), "
            f"{CLIENT_KEY_ENV} your secret key file (NAME.key_secret), both made by "
            "`gpushare keygen`.")
    return server_key, client_key


def _load(path: str, want_secret: bool) -> tuple[bytes, bytes | None]:
    import zmq.auth
    try:
        public, secret = zmq.auth.load_certificate(path)
    except (OSError, ValueError) as exc:
        raise KeyConfigurationError(f"gpushare: cannot read the key file {path}: {exc}") \
            from None
    if want_secret and not secret:
        raise KeyConfigurationError(
            f"gpushare: {path} holds no secret key; {CLIENT_KEY_ENV} must name your "
            "NAME.key_secret file, not the public NAME.key")
    return public, secret


def configure_client_socket(sock: Any, address: str) -> None:
    """Apply the client's security settings to ``sock`` before it connects.

    Without ``GPUSHARE_SERVER_KEY``/``GPUSHARE_CLIENT_KEY`` the connection is plain
    (fine for a loopback or ``ipc://`` server). A monitor is attached either way so
    that :func:`wait_for_server` can tell a refused handshake from a missing server.
    """
    keys = client_keys()
    if keys is not None:
        server_file, client_file = keys
        server_public, _ = _load(server_file, want_secret=False)
        client_public, client_secret = _load(client_file, want_secret=True)
        sock.curve_serverkey = server_public
        sock.curve_publickey = client_public
        sock.curve_secretkey = client_secret
        _key_files[sock] = keys
    try:
        _monitors[sock] = sock.get_monitor_socket(
            zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
            | zmq.EVENT_HANDSHAKE_FAILED_AUTH | zmq.EVENT_HANDSHAKE_SUCCEEDED
            | zmq.EVENT_CONNECTED | zmq.EVENT_CONNECT_RETRIED)
    except (zmq.ZMQError, AttributeError):  # pragma: no cover - monitors are optional
        pass


def connect_client_socket(sock: Any, address: str) -> None:
    """:func:`configure_client_socket`, then connect ``sock`` to ``address``; an
    address ZeroMQ refuses (``gpubox:5555``, ``tcp://host`` without a port, another
    scheme), or a port past 65535 (``wire.port_problem``), is a
    :class:`~gpushare.errors.ServerUnavailableError` that says so."""
    from .wire import port_problem
    configure_client_socket(sock, address)
    try:
        why = port_problem(address)
        if why is None:
            sock.connect(address)
    except zmq.ZMQError as exc:
        why = str(exc).split(" (addr=")[0]
    if why is not None:  # (the callers release ``sock`` as they close it)
        raise errors.ServerUnavailableError(
            f"gpushare: {address!r} is not a server address ({why}): give "
            "tcp://HOST:PORT or ipc:///PATH (GPUSHARE_SERVER, or --server)") from None


def _stop_monitor(sock: Any) -> None:
    monitor = _monitors.pop(sock, None)
    if monitor is None:
        return
    try:
        sock.disable_monitor()
    except zmq.ZMQError:
        pass
    monitor.close(linger=0)


def _handshake_problem(event: int, value: int, keys: tuple[str, str] | None,
                       address: str) -> AuthenticationError:
    if keys is None:
        return AuthenticationError(
            f"gpushare: the server at {address} refused the connection's handshake: it "
            f"requires CurveZMQ keys. Set {SERVER_KEY_ENV}=path/to/server.key (the server's "
            f"public key) and {CLIENT_KEY_ENV}=path/to/NAME.key_secret (yours, made by "
            "`gpushare keygen`), and ask the server's operator to authorize NAME.key.")
    server_file, client_file = keys
    if event == zmq.EVENT_HANDSHAKE_FAILED_AUTH:
        return AuthenticationError(
            f"gpushare: the server at {address} refused this client's key "
            f"({client_file}, status {value}): its public .key file is not in the "
            "server's --authorized-keys directory. Ask the operator to add it.")
    if event == zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL:
        return AuthenticationError(
            f"gpushare: the CurveZMQ handshake with {address} failed (protocol error "
            f"{value:#x}); the server may not use keys at all, or "
            f"{SERVER_KEY_ENV}={server_file} is not this server's key.")
    return AuthenticationError(
        f"gpushare: the CurveZMQ handshake with {address} keeps failing; the keys may be "
        f"wrong: {SERVER_KEY_ENV}={server_file} must be the public key of *this* server "
        f"and {CLIENT_KEY_ENV}={client_file} your secret key.")


def refused_error(sock: Any, address: str, seconds: float) -> errors.ServerUnavailableError:
    """The error for a connection refused for ``seconds`` (nothing listens there)."""
    return errors.ServerUnavailableError(
        f"gpushare: nothing accepts connections at {address} (refused for {seconds:g} s): "
        "is a server running there, at this port? Start one with `gpushare "
        "serve --bind tcp://127.0.0.1:5555` (add --server-key and --authorized-keys to "
        "serve other machines) and set GPUSHARE_SERVER=tcp://HOST:5555, or unset "
        "GPUSHARE_SERVER to use the embedded local server.")


def no_answer_error(sock: Any, address: str, timeout: float) -> errors.ServerUnavailableError:
    """The error for a handshake that got no answer within ``timeout`` seconds."""
    keys = _key_files.get(sock)
    hint = ""
    if keys is not None:
        hint = (f" CurveZMQ keys are configured ({SERVER_KEY_ENV}={keys[0]}, "
                f"{CLIENT_KEY_ENV}={keys[1]}): if the server runs, the keys may be wrong or "
                "not authorized there.")
    return errors.ServerUnavailableError(
        f"gpushare: no server answered at {address} within {timeout:g} s.{hint} Start one "
        "with `gpushare serve --bind tcp://127.0.0.1:5555` (add --server-key and "
        "--authorized-keys to serve other machines) and set GPUSHARE_SERVER=tcp://HOST:5555, "
        "or unset GPUSHARE_SERVER to use the embedded local server (GPUSHARE_TIMEOUT sets "
        "this limit).")


def wait_for_server(sock: Any, address: str, timeout: float) -> BaseException | None:
    """Wait until ``sock`` has a reply to read; return None then, else the error to raise.

    Returns early with an :class:`AuthenticationError` when the handshake is refused
    (unauthorized key, keys missing or unexpected) and with a
    :class:`~gpushare.errors.ServerUnavailableError` after ``timeout`` seconds of
    silence. The handshake monitor is stopped in every case.
    """
    monitor = _monitors.get(sock)
    keys = _key_files.get(sock)
    start = _monotonic()
    deadline = start + timeout
    failures = 0
    # a connection refused again and again (nothing listens there: a wrong port, a
    # server not started) fails after REFUSED_S, not the whole timeout; a server that
    # is starting binds well within it
    refused = min(timeout, REFUSED_S)
    connected = False
    try:
        poller = zmq.Poller()
        poller.register(sock, zmq.POLLIN)
        if monitor is not None:
            poller.register(monitor, zmq.POLLIN)
        while True:
            left = deadline - _monotonic()
            if left <= 0:
                return no_answer_error(sock, address, timeout)
            events = dict(poller.poll(max(1, int(left * 1000))))
            if sock in events:
                return None
            if monitor is not None and monitor in events:
                from zmq.utils.monitor import recv_monitor_message
                msg = recv_monitor_message(monitor)
                event, value = msg["event"], msg["value"]
                if event == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                    failures = 0
                elif event == zmq.EVENT_CONNECTED:
                    connected = True
                elif event == zmq.EVENT_CONNECT_RETRIED and not connected and \
                        _monotonic() - start >= refused:
                    return refused_error(sock, address, refused)
                elif event in (zmq.EVENT_HANDSHAKE_FAILED_AUTH,
                               zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL):
                    return _handshake_problem(event, value, keys, address)
                elif event == zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL:
                    failures += 1
                    if keys is not None and failures >= _NO_DETAIL_FAILURES:
                        return _handshake_problem(event, value, keys, address)
    finally:
        _stop_monitor(sock)


def release(sock: Any) -> None:
    """Forget ``sock`` (stop its monitor); call before closing a socket whose handshake
    was never waited for."""
    _stop_monitor(sock)
    _key_files.pop(sock, None)
