"""The ``gpushare`` command: ``serve``, ``run``, ``info``, ``status``, ``keygen``.

``python -m gpushare ...`` is the same command.
"""
from __future__ import annotations

import argparse
import json
import os
import runpy
import sys
from typing import Any

from . import __version__

#: ``gpushare serve --max-sessions``' default: every session is a process (and, on a
#: GPU, a CUDA context of hundreds of MiB), so a client opening sessions in a loop must
#: not be able to exhaust the machine
DEFAULT_MAX_SESSIONS = 64


def _devices(text: str) -> list | None:
    """``--devices``: None for ``all`` (the server finds them), else the listed names."""
    if text.strip().lower() == "all":
        return None
    devices = [d.strip() for d in text.split(",")]
    if not devices or any(not d or "=" in d for d in devices) or \
            len(set(devices)) != len(devices):
        raise ValueError(f"--devices {text!r}: list GPUs as CUDA_VISIBLE_DEVICES does "
                         "(e.g. 0,1,3), each once, or give all")
    return devices


def _serve(args: argparse.Namespace) -> int:
    try:
        from gpushare_server.broker import serve
    except ImportError as exc:  # pragma: no cover - the distribution ships both
        print(f"gpushare: the server package is missing ({exc})", file=sys.stderr)
        return 2
    import logging
    logging.basicConfig(level=os.environ.get("GPUSHARE_LOG_LEVEL", "INFO"),
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        from gpushare_server.broker import BrokerOptions
        from gpushare_server.quota import parse_size
        options = BrokerOptions(
            server_key=args.server_key, authorized_keys=args.authorized_keys,
            insecure=args.insecure,
            memory_limit=parse_size(args.memory_limit) if args.memory_limit else 0,
            max_sessions=args.max_sessions, max_sessions_per_key=args.max_sessions_per_key,
            session_timeout=args.session_timeout, drain_timeout=args.drain_timeout,
            max_message_size=(parse_size(args.max_message_size)
                              if args.max_message_size else None),
            metrics_port=args.metrics_port, metrics_addr=args.metrics_addr,
            direct=not args.no_direct, key_limits=args.key_limits, spin_us=args.spin_us,
            host_memory=(parse_size(args.host_memory) if args.host_memory is not None
                         else None),
            devices=_devices(args.devices), max_call_seconds=args.max_call_seconds)
        serve(args.bind, args.backend, spare_workers=args.spare_workers,
              parent_pid=args.exit_with_parent, options=options)
    except ValueError as exc:
        print(f"gpushare serve: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # zmq bind errors and the like: say it plainly
        print(f"gpushare serve: cannot serve on {args.bind}: {exc}", file=sys.stderr)
        return 1
    return 0


def _run(args: argparse.Namespace) -> int:
    """Run a program as ``python SCRIPT`` / ``python -m MODULE`` would, with ``import
    cupy`` meaning gpushare's: the same ``__file__``, ``sys.argv`` and ``sys.path``, the
    same words and exit codes for a missing program, and the same traceback (the
    program's frames only, through ``sys.excepthook``) for an exception it lets out."""
    if args.server:
        os.environ["GPUSHARE_SERVER"] = args.server
    from . import _hook
    _hook.install()
    os.environ["GPUSHARE_HOOK"] = "1"  # (the program's children: gpushare-hook.pth)
    if args.module:
        import importlib.util
        try:
            found = importlib.util.find_spec(args.module) is not None
        except (ImportError, ValueError):  # (a parent package that is not there)
            found = False
        if not found:
            print(f"gpushare run: No module named {args.module}", file=sys.stderr)
            return 1
        sys.argv = [args.module, *args.args]
        return _as_main(runpy.run_module, args.module, run_name="__main__", alter_sys=True)
    if not args.script:
        print("gpushare run: give a SCRIPT or -m MODULE", file=sys.stderr)
        return 2
    path = os.path.abspath(args.script)  # (Python's ``__file__`` is absolute, 3.9 on)
    if not os.path.exists(path):
        print(f"gpushare run: can't open file {path!r}: [Errno 2] No such file or "
              "directory", file=sys.stderr)
        return 2
    sys.argv = [args.script, *args.args]
    sys.path.insert(0, os.path.dirname(path))
    if not os.path.isfile(path):  # a directory or zip file with a __main__.py
        return _as_main(runpy.run_path, path, run_name="__main__")
    return _as_main(_run_file, path)


def _run_file(path: str) -> None:
    """``python SCRIPT``: the file's code in a fresh ``__main__`` (as ``runpy.run_path``,
    which would also set ``sys.argv[0]`` to the absolute path Python leaves as given)."""
    import types
    with open(path, "rb") as f:
        code = compile(f.read(), path, "exec", dont_inherit=True)
    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=path, __cached__=None, __builtins__=__builtins__)
    saved = sys.modules["__main__"]
    sys.modules["__main__"] = main
    try:
        exec(code, main.__dict__)
    finally:
        sys.modules["__main__"] = saved


def _as_main(run: Any, *args: Any, **kwargs: Any) -> int:
    try:
        run(*args, **kwargs)
    except SystemExit:
        raise
    except BaseException as exc:  # the program's own exception: shown as Python does
        tb = exc.__traceback__
        ours = (__file__, runpy.__file__, "<frozen runpy>")
        while tb is not None and tb.tb_frame.f_code.co_filename in ours:
            tb = tb.tb_next  # (gpushare's and runpy's frames above the program's)
        sys.excepthook(type(exc), exc.with_traceback(tb), tb)
        return 130 if isinstance(exc, KeyboardInterrupt) else 1
    return 0


def _info(args: argparse.Namespace) -> int:
    if args.server:
        os.environ["GPUSHARE_SERVER"] = args.server
    from .client import get_session
    s = get_session()
    info: dict[str, Any] = dict(s.call("info", None))
    info.update(server_version=s.info.get("server_version"), address=s.address,
                client_version=__version__)
    if args.json:
        print(json.dumps(info, indent=2, default=str))
        return 0
    print(f"gpushare server {info.get('server_version')} at {s.address}")
    print(f"backend: {info.get('backend')}")
    for dev in info.get("devices", []):
        print(f"device {dev.get('id')}: {dev.get('name')}, "
              f"{_gib(dev.get('free_memory'))} free of {_gib(dev.get('total_memory'))}")
    return 0


def _keygen(args: argparse.Namespace) -> int:
    import re
    import zmq.auth
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", args.name):
        print(f"gpushare keygen: {args.name!r} is not a key name (letters, digits, '.', '_', "
              "'-')", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    public = os.path.join(args.out, f"{args.name}.key")
    secret = os.path.join(args.out, f"{args.name}.key_secret")
    if not args.force and (os.path.exists(public) or os.path.exists(secret)):
        print(f"gpushare keygen: {public} or {secret} exists already (--force replaces it)",
              file=sys.stderr)
        return 1
    old_umask = os.umask(0o077)  # the secret key is readable by its owner only
    try:
        public, secret = zmq.auth.create_certificates(args.out, args.name)
    finally:
        os.umask(old_umask)
    os.chmod(secret, 0o600)
    os.chmod(public, 0o644)
    print(f"public key: {public}\nsecret key: {secret} (keep it private)")
    return 0


def query_status(address: str, timeout: float | None = None,
                 wait: float | None = None) -> dict:
    """Ask the server at ``address`` for its status (``gpushare status``).

    Uses the client's keys (``GPUSHARE_SERVER_KEY``/``GPUSHARE_CLIENT_KEY``) like any
    session, but opens no session.

    Raises
    ------
    ConnectionError
        The server does not answer within ``timeout`` seconds (``GPUSHARE_TIMEOUT``).

    Notes
    -----
    The server asks each session's worker for fresh numbers and answers when all did,
    or after ``wait`` seconds (1 by default; a worker busy with a long call answers
    late) with the last numbers known, marked ``stale``.
    """
    import zmq
    from . import errors, security
    from .protocol import Decoder, Encoder
    from .settings import env_float
    if timeout is None:
        timeout = env_float("GPUSHARE_TIMEOUT", 10.0)
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    try:
        security.connect_client_socket(sock, address)
        request: dict = {"t": "status"}
        if wait is not None:
            request["wait"] = float(wait)
        sock.send_multipart(Encoder().encode(request))
        problem = security.wait_for_server(sock, address, timeout)
        if problem is not None:
            raise problem
        reply = Decoder(sock.recv_multipart(copy=False)).decode()
    finally:
        security.release(sock)
        sock.close(0)
        ctx.term()
    if not isinstance(reply, dict) or reply.get("t") != "status":
        raise errors.RemoteProtocolError(f"gpushare: unexpected status reply {reply!r}")
    reply.pop("t", None)
    return reply


def _status(args: argparse.Namespace) -> int:
    address = args.server or os.environ.get("GPUSHARE_SERVER", "").strip()
    if not address:
        print("gpushare status: give --server ADDR (or set GPUSHARE_SERVER)", file=sys.stderr)
        return 2
    status = query_status(address, args.timeout)
    if args.json:
        print(json.dumps(status, indent=2, default=str))
        return 0
    print(f"gpushare server {status.get('server_version')} at {status.get('address')} "
          f"(pid {status.get('pid')}, up {_duration(status.get('uptime_s'))}, "
          f"backend {status.get('backend')}, auth {status.get('auth')}"
          f"{', STOPPING' if status.get('stopping') else ''})")
    limit = status.get("memory_limit")
    print(f"limits: memory {_size(limit) if limit else 'none'} per session, "
          f"sessions {status.get('max_sessions') or 'unlimited'}, "
          f"idle timeout {status.get('session_timeout')} s")
    for dev in status.get("devices") or []:
        print(f"device {dev.get('id')}: {dev.get('name')}, "
              f"{_gib(dev.get('free_memory'))} free of {_gib(dev.get('total_memory'))}")
    if status.get("placement"):
        print(f"sessions spread over GPUs {','.join(map(str, status['placement']))} "
              "(one each; the device above is one worker's)")
    sessions = status.get("sessions") or []
    print(f"{len(sessions)} session(s), {_size(status.get('memory_bytes'))} in use")
    if sessions:
        placed = any(s.get("device") is not None for s in sessions)
        print(f"  {'id':<12} {'key':<12} {'state':<8} {'memory':>10} {'handles':>8} "
              f"{'calls':>8} {'age':>8}" + (f" {'gpu':>5}" if placed else ""))
        for s in sessions:
            print(f"  {s.get('id'):<12} {str(s.get('key') or '-'):<12} "
                  f"{s.get('state'):<8} {_size(s.get('memory_bytes')):>10} "
                  f"{s.get('handles'):>8} {s.get('calls'):>8} {_duration(s.get('age_s')):>8}"
                  + (f" {str(s.get('device') or '-'):>5}" if placed else ""))
    return 0


def _size(n: Any) -> str:
    try:
        value = float(n)
    except (TypeError, ValueError):
        return "?"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return "?"


def _duration(seconds: Any) -> str:
    try:
        s = int(float(seconds))
    except (TypeError, ValueError):
        return "?"
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


def _gib(n: Any) -> str:
    try:
        return f"{int(n) / 2**30:.1f} GiB"
    except (TypeError, ValueError):
        return "?"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gpushare",
                                     description="Run unmodified CuPy programs on a remote GPU.")
    parser.add_argument("--version", action="version", version=f"gpushare {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("serve", help="serve this machine's GPU (or CPU) to gpushare clients")
    p.add_argument("--bind", default="tcp://127.0.0.1:5555",
                   help="ZeroMQ address to listen on (default tcp://127.0.0.1:5555)")
    p.add_argument("--backend", default="auto", choices=["auto", "cupy", "cpu"],
                   help="auto: CuPy when a GPU is usable, else the CPU backend")
    p.add_argument("--devices", default="all", metavar="LIST",
                   help="the GPUs sessions are spread over, as CUDA_VISIBLE_DEVICES names "
                        "them (e.g. 0,1,3): each session gets the least used one and sees "
                        "it alone, as its device 0 (default all: every GPU the server "
                        "sees)")
    p.add_argument("--spare-workers", type=int, default=1,
                   help="session workers kept started ahead of time (default 1)")
    p.add_argument("--exit-with-parent", type=int, default=0, metavar="PID",
                   help=argparse.SUPPRESS)
    p.add_argument("--spin-us", type=float, default=250.0, metavar="US",
                   help="while its client sends calls back to back, a worker polls this "
                        "many microseconds for the next one before sleeping: shorter round "
                        "trips, at the cost of CPU time (default 250; 0: never)")
    p.add_argument("--no-direct", action="store_true",
                   help="route every call through the listening port (by default each "
                        "session's client also connects straight to its worker, on a port "
                        "of the same interface: faster, but one more port per session)")
    g = p.add_argument_group("security")
    g.add_argument("--server-key", metavar="FILE.key_secret",
                   help="the server's secret key (from `gpushare keygen`): encrypt with "
                        "CurveZMQ and require client keys")
    g.add_argument("--authorized-keys", metavar="DIR",
                   help="directory of the public NAME.key files of the clients allowed in "
                        "(re-read when it changes)")
    g.add_argument("--insecure", action="store_true",
                   help="allow serving a non-loopback address without keys")
    g.add_argument("--max-message-size", metavar="SIZE",
                   help="largest message accepted (default: the memory limit plus 1 MiB, "
                        "else 16GiB)")
    g = p.add_argument_group("tenancy and faults")
    g.add_argument("--memory-limit", metavar="SIZE",
                   help="bytes of arrays each session may hold, e.g. 64MiB or 8GiB")
    g.add_argument("--host-memory", metavar="SIZE",
                   help="CPU backend: host memory each session's worker may take before "
                        "its calls fail with OutOfMemoryError (default: the host's "
                        "available memory and swap when the worker starts; 0: no bound)")
    g.add_argument("--max-sessions", type=int, default=DEFAULT_MAX_SESSIONS, metavar="N",
                   help="sessions served at once, each a worker process with its own "
                        f"device context (default {DEFAULT_MAX_SESSIONS}; 0: no limit)")
    g.add_argument("--max-sessions-per-key", type=int, default=0, metavar="N",
                   help="sessions one client key may hold at once (default: no limit)")
    g.add_argument("--key-limits", metavar="FILE.toml",
                   help="per-key memory and session limits ([keys.NAME] memory = \"8GiB\", "
                        "sessions = 2); re-read when it changes")
    g.add_argument("--session-timeout", type=float, default=60.0, metavar="SECONDS",
                   help="free a session whose client is silent this long (default 60)")
    g.add_argument("--drain-timeout", type=float, default=30.0, metavar="SECONDS",
                   help="on SIGTERM, how long in-flight calls may take to finish (default 30)")
    g.add_argument("--max-call-seconds", type=float, default=0.0, metavar="SECONDS",
                   help="end a session whose one message of calls (a batch, a copy) runs "
                        "longer than this: an endless kernel cannot hold a device for ever "
                        "(default 0: no limit)")
    g = p.add_argument_group("operations")
    g.add_argument("--metrics-port", type=int, default=None, metavar="PORT",
                   help="serve Prometheus metrics on this port (needs prometheus-client)")
    g.add_argument("--metrics-addr", default="127.0.0.1", metavar="ADDR",
                   help="address of the metrics endpoint (default 127.0.0.1)")
    p.set_defaults(func=_serve)

    p = sub.add_parser("run", help="run a CuPy program through gpushare")
    p.add_argument("--server", help="server address (default: $GPUSHARE_SERVER, else an "
                                    "embedded local server)")
    p.add_argument("-m", dest="module", help="run a module, like python -m")
    p.add_argument("script", nargs="?")
    p.add_argument("args", nargs=argparse.REMAINDER)
    p.set_defaults(func=_run)

    p = sub.add_parser("info", help="show a server's version, backend, devices and memory")
    p.add_argument("--server")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_info)

    p = sub.add_parser("status", help="show a server's sessions, their memory and calls")
    p.add_argument("--server", help="server address (default: $GPUSHARE_SERVER)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds to wait for the server (default: $GPUSHARE_TIMEOUT or 10)")
    p.set_defaults(func=_status)

    p = sub.add_parser("keygen", help="make a CurveZMQ key pair: DIR/NAME.key (public) and "
                                      "DIR/NAME.key_secret (secret)")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--force", action="store_true", help="replace an existing key pair")
    p.add_argument("name", metavar="NAME")
    p.set_defaults(func=_keygen)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "run" and args.module and args.script:
        args.args = [args.script, *args.args]
        args.script = None
    try:
        return int(args.func(args) or 0)
    except ConnectionError as exc:
        text = str(exc)
        print(text if text.startswith("gpushare") else f"gpushare: {text}", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - gpushare's own errors, said plainly
        from .errors import GpushareError
        if not isinstance(exc, GpushareError):
            raise
        print(f"{exc}", file=sys.stderr)
        return 1
