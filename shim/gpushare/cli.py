"""The ``gpushare`` command: ``serve``, ``run``, ``info``.

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
        serve(args.bind, args.backend, spare_workers=args.spare_workers,
              parent_pid=args.exit_with_parent)
    except ValueError as exc:
        print(f"gpushare serve: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # zmq bind errors and the like: say it plainly
        print(f"gpushare serve: cannot serve on {args.bind}: {exc}", file=sys.stderr)
        return 1
    return 0


def _run(args: argparse.Namespace) -> int:
    if args.server:
        os.environ["GPUSHARE_SERVER"] = args.server
    from . import _hook
    _hook.install()
    if args.module:
        sys.argv = [args.module, *args.args]
        runpy.run_module(args.module, run_name="__main__", alter_sys=True)
        return 0
    if not args.script:
        print("gpushare run: give a SCRIPT or -m MODULE", file=sys.stderr)
        return 2
    sys.argv = [args.script, *args.args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(args.script)))
    runpy.run_path(args.script, run_name="__main__")
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
    p.add_argument("--spare-workers", type=int, default=1,
                   help="session workers kept started ahead of time (default 1)")
    p.add_argument("--exit-with-parent", type=int, default=0, metavar="PID",
                   help=argparse.SUPPRESS)
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
        print(f"gpushare: {exc}", file=sys.stderr)
        return 1
