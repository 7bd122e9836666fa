"""The client's session with a server: handle ids, the call queue, flushing, waiting.

Calls that return arrays are *pipelined*: the client picks the result's handle id,
queues the call, and returns a proxy at once. Queued calls travel together in one
message when the queue is long, or at the next point that waits (data to the host,
``repr``, a synchronous call). The server answers each batch with a ``done`` reply;
an error in a pipelined call is raised at the next point that waits, naming the call
and the user's line that made it. ``GPUSHARE_SYNC=1`` makes every call wait.
"""
from __future__ import annotations

import atexit
import collections
import os
import sys
import threading
# (bound once: a program that mocks time's clocks leaves the transport alone)
from time import monotonic as _monotonic
import weakref
from typing import Any, Callable

import msgpack
import numpy
import zmq

from . import errors
from . import lane as lanes
from .reliable import (GAP, NEW, WINDOW, Receiver, Sender, control, parse_control,
                       split_envelope)
from .protocol import (CHUNK_BYTES, INT_END, INT_MIN, PLAIN_TYPES, PROTOCOL_VERSION,
                       ArrayMeta, Decoder, Encoder, Ext, RemoteObject, _pack_int, dtype_ext,
                       packb, plain_ext)
from .settings import env_float
from .wire import keep_receive_buffers, send_frames, spin
from . import express as expresses
from .express import EXPRESS_MAX, ExpressClosed

#: the queue is sent when it holds this many calls
BATCH_CALLS = 512
#: how long (ms) a wait listens to the direct socket alone before it watches the rest
QUICK_WAIT_MS = 50
#: how long (s) a wait still reads the worker's replies once the broker has said the
#: session ended (``Session._late_replies``)
LATE_REPLIES_S = 1.0
_PKG_DIR = os.path.dirname(os.path.abspath(__file__))


#: packs calls (``Session._encode_call``): plain values (``protocol.PLAIN_TYPES``) as
#: they are, handles and plain tuples and slices as the ext values made for them
_CALL_PACKER = msgpack.Packer(strict_types=True, use_bin_type=True)
#: the operators' records (``Session.fast_op``): tuples of plain values, as arrays
_RECORD_PACKER = msgpack.Packer(use_bin_type=True)
_HANDLE = int(Ext.HANDLE)
#: what a download's call gives when the bulk lane failed midway (``Session.download``
#: asks again; the lane is closed by then, so the copy comes as chunk messages)
LANE_FAILED = object()
_new_tuple = tuple.__new__  # an ExtType without its argument checks (ours are right)
_getframe = sys._getframe


def handle_ext(hid: int, _ext: type = msgpack.ExtType, _pack: Any = _pack_int) -> Any:
    """Handle ``hid`` as it travels in a call's arguments."""
    return _new_tuple(_ext, (_HANDLE, _pack(hid)))

#: how long (s) a wait polls for the reply before it sleeps (``GPUSHARE_SPIN_US``;
#: 0: never): round trips of a loop of synchronous calls come back within this
SPIN_S = max(0.0, env_float("GPUSHARE_SPIN_US", 250.0)) / 1e6


class RemoteHandle:
    """Base of every client object standing for a server-side object."""

    __slots__ = ("_gs_id", "_gs_session", "__weakref__")


class ProxyTable:
    """Handle id -> the live proxy standing for it, held weakly. A new entry for every
    array made, so cheaper than ``WeakValueDictionary`` (a callback per entry): a
    proxy's release drops its entry (``Session.release``), and entries left dead
    otherwise are swept when the table has doubled since the last sweep."""

    __slots__ = ("refs", "_sweep_at")

    def __init__(self) -> None:
        #: the table itself: the operators' fast path writes ``refs[hid] =
        #: weakref.ref(proxy)`` directly
        self.refs: dict[int, weakref.ref] = {}
        self._sweep_at = 1024

    def get(self, hid: int, default: Any = None) -> Any:
        ref = self.refs.get(hid)
        obj = ref() if ref is not None else None
        return default if obj is None else obj

    def __setitem__(self, hid: int, obj: Any) -> None:
        self.refs[hid] = weakref.ref(obj)
        self.sweep()

    def sweep(self) -> None:
        refs = self.refs
        if len(refs) >= self._sweep_at:
            # over a copy (made in C, no Python code runs meanwhile): finalizers, in any
            # thread, drop entries of the table as the sweep goes
            for hid, ref in refs.copy().items():
                if ref() is None and refs.get(hid) is ref:
                    refs.pop(hid, None)
            self._sweep_at = max(1024, 2 * len(refs))


class PendingCall:
    """A call queued or sent, remembered until its batch is answered (to name it, and
    where the user made it, if it fails). Built for every call: the text is made only
    when needed."""

    __slots__ = ("seq", "_what", "_where", "out_ids")

    def __init__(self, seq: int, what: Any, where: Any, out_ids: tuple) -> None:
        self.seq = seq
        self._what = what  # a description, or (op, target)
        self._where = where  # "" (not asked), None (unknown), (file, line) or (code, offset)
        self.out_ids = out_ids

    @property
    def description(self) -> str:
        what = self._what
        return what if isinstance(what, str) else f"{what[0]} {what[1]}"

    @property
    def where(self) -> str:
        where = self._where
        if where == "":
            return ""
        if where is None:
            return "<unknown>"
        if type(where[0]) is not str:  # (code, offset): the line is found only now
            where = _code_line(*where)
        return f"{where[0]}:{where[1]}"


#: file name -> whether it is one of gpushare's (``fast_op``: the user's frame, found)
_OURS: dict[str, bool] = {}


def _where(frame: Any) -> tuple[Any, int] | None:
    """``(code, offset)`` of ``frame``, or of the innermost frame outside gpushare from
    ``frame`` outwards: ``user_location`` for a frame already in hand. Its line is found
    only if a message needs it (``_code_line``), as for the C path's records."""
    while frame is not None:
        code = frame.f_code
        name = code.co_filename
        ours = _OURS.get(name)
        if ours is None:
            if len(_OURS) >= 4096:
                _OURS.clear()
            ours = _OURS[name] = name.startswith(_PKG_DIR)
        if not ours:
            return code, frame.f_lasti
        frame = frame.f_back
    return None


def _drop_our_context(exc: BaseException) -> None:
    """A server's error raised while gpushare's own code handled an exception of its
    own (``CannotInfer``: the call went to the server instead) gets that exception's
    context instead: the program's traceback shows what CuPy's would, not "During
    handling of the above exception" and gpushare's frames."""
    ctx = exc.__context__
    while ctx is not None and ctx.__traceback__ is not None and \
            ctx.__traceback__.tb_frame.f_code.co_filename.startswith(_PKG_DIR):
        ctx = ctx.__context__  # (caught where gpushare's frame had it: ours)
    exc.__context__ = ctx


def user_location(depth: int = 2) -> tuple[Any, int] | None:
    """``_where`` of the frame ``depth`` levels up (the caller's caller by default): the
    user's call."""
    try:
        frame = sys._getframe(depth)
    except ValueError:  # called from outside Python: no frame that far up
        return None
    return _where(frame)


def _code_line(code: Any, offset: int) -> tuple[str, int]:
    """``(file, line)`` of the instruction at byte ``offset`` of ``code``."""
    for start, end, line in code.co_lines():
        if start <= offset < end and line is not None:
            return code.co_filename, line
    return code.co_filename, code.co_firstlineno


class Session:
    """One connection to a gpushare server (one session, one worker process)."""

    def __init__(self, address: str, *, timeout: float | None = None,
                 sync: bool | None = None, on_close: Callable[[], None] | None = None) -> None:
        self.address = address
        self.timeout = timeout if timeout is not None else env_float("GPUSHARE_TIMEOUT", 30.0)
        self.sync = sync if sync is not None else os.environ.get("GPUSHARE_SYNC", "") not in (
            "", "0")
        self._lock = threading.RLock()
        self._ctx = zmq.Context()
        self._sock = self._ctx.socket(zmq.DEALER)
        self._sock.setsockopt(zmq.LINGER, 0)
        # a routing id of our own (random, never shown to anyone) keeps this session
        # recognisable to the broker when ZeroMQ reconnects a dropped connection
        self._sock.setsockopt(zmq.ROUTING_ID, os.urandom(16))
        self._data: Any = None  # the direct socket to the session's worker, if any
        self._monitor: Any = None  # its connection events (a reconnection resyncs)
        try:
            self._start(address, on_close)
        except BaseException:
            # a session that never started leaves no sockets behind: a Context collected
            # later with a socket open would block the program in its term()
            self._close_sockets(linger=0)
            raise

    def _start(self, address: str, on_close: Callable[[], None] | None) -> None:
        from .security import connect_client_socket
        connect_client_socket(self._sock, address)
        self._next_id = 1
        self._seq = 0
        #: calls not sent yet: packed (bytes), or an operator's record (``fast_op``: a
        #: tuple, packed when sent; or packed by the C path, ``_accel.c``); beside each,
        #: its ``PendingCall``, or for a record the user's ``(code, offset)``
        #: (``_where``; its line: ``_code_line``)
        self._queue: list[Any] = []
        self._queued = threading.Event()  # a call entered the empty queue (idle flush)
        self._queue_info: list[Any] = []
        # (tuples of ints, as the operators' records: the garbage collector stops
        # tracking them, and this program makes one or two for every operator)
        self._release: list[tuple[int, int]] = []
        #: batches sent and not yet answered: ``[first seq, calls, infos]`` (to name a
        #: call that failed: ``_pending_call``)
        self._sent: collections.deque = collections.deque()
        self._done_seq = 0
        self._sent_seq = 0
        self._results: dict[int, Any] = {}
        self._error: tuple[PendingCall | None, BaseException] | None = None
        self._ack: int | None = None
        # a failed call's error as the server sent it (``errors.error_info``), not as an
        # exception: one that was raised holds the frames it went through, and the
        # arrays in them, for as long as it is kept
        self._last_error: Any = None
        self._warnings: list = []
        self._poisoned: dict[int, Any] = {}  # result id -> its call's error info
        self._abandoned: set[int] = set()  # the streams of interrupted downloads
        self._lost: BaseException | None = None
        # the error a reply said ends the session (a GPU's sticky CUDA error): raised,
        # then the session is lost (``_raise_pending``)
        self._fatal_reply = False
        self._stopped = False  # the session ended because the server stops
        self._closed = False
        self._forked = False  # this is a fork's copy of a session of the parent's
        self._connections = 0
        self._out = Sender()    # numbered messages to the worker, kept until acknowledged
        #: the express connection (``express.py``): None while not open; False once it
        #: is not to be (refused, failed, off)
        self._express: Any = None
        self._on_express = False  # whether our last numbered message went on it
        self._waits = 0  # synchronous calls so far (it opens at OPEN_AFTER)
        self._in = Receiver()   # numbered replies from the worker, taken in order
        self.resyncs = 0  # how many times this session asked its worker to resync
        self.gaps = 0     # replies that came after a lost one (and were asked again)
        #: a host array the next streamed download may be written into (``get(out=)``)
        self.download_into: Any = None
        self._on_close = on_close
        self.proxies = ProxyTable()
        self.make_array: Callable[[ArrayMeta], Any] = lambda meta: meta
        self.make_object: Callable[[RemoteObject], Any] = lambda obj: obj
        self.info = self._handshake()
        self.session_id = self.info["session"]
        try:  # how often the server asks idle clients to ping (see _ping_s)
            self._beat = float(self.info.get("heartbeat") or 5.0)
        except (TypeError, ValueError):
            self._beat = 5.0
        self.backend = self.info["backend"]
        self._data = self._connect_direct(self.info.get("direct"))
        keep_receive_buffers()  # a streamed download's chunks reuse the same memory
        #: where calls and bulk data go: the direct socket, or the broker's
        self._data_sock = data_sock = self._data if self._data is not None else self._sock
        if self._monitor is None:  # calls go through the broker: watch that connection
            self._monitor = self._watch_connection(data_sock)
            self._connections = 1  # its handshake is done already
        self._poller = zmq.Poller()
        self._poller.register(self._sock, zmq.POLLIN)
        if self._data is not None:
            self._poller.register(self._data, zmq.POLLIN)
        if self._monitor is not None:
            self._poller.register(self._monitor, zmq.POLLIN)
        atexit.register(self.close)
        _sessions.add(self)
        from .heartbeat import start_heartbeat, start_idle_flush
        start_heartbeat(self)  # keeps an idle session alive on the server
        start_idle_flush(self, self._queued)  # sends queued calls when the program pauses

    @property
    def _ping_s(self) -> float:
        """How long a wait that hears nothing goes before it pings the broker (which
        answers while the worker computes or copies; a ping also tells it we are
        here): as often as the server asks idle clients to, at least every 5 s, and
        three times within ``timeout``."""
        return max(0.05, min(5.0, self.timeout / 3, self._beat))

    # --- connection -------------------------------------------------------------
    def _handshake(self) -> dict:
        self._send(Encoder().encode({"t": "hello", "v": PROTOCOL_VERSION,
                                     "client": {"pid": os.getpid()}}))
        from .security import wait_for_server  # a refused handshake fails fast
        problem = wait_for_server(self._sock, self.address, self.timeout)
        if problem is not None:
            self._sock.close(0)
            self._ctx.term()
            raise problem
        reply = Decoder(self._sock.recv_multipart(copy=False)).decode()
        if reply.get("t") == "fatal":
            key, message = reply["error"]
            if key == "gpushare.VersionMismatch":
                raise errors.VersionMismatchError(message)
            raise errors.SessionLostError(message)
        if reply.get("t") != "welcome":
            raise errors.RemoteProtocolError(f"unexpected handshake reply {reply!r}")
        return reply

    def _connect_direct(self, direct: Any) -> Any:
        """A socket straight to the session's worker, when the server offers one
        (``GPUSHARE_DIRECT=0`` declines): calls then skip the broker's hop."""
        if not isinstance(direct, dict) or os.environ.get("GPUSHARE_DIRECT", "1") == "0":
            return None
        endpoint, token = str(direct.get("endpoint") or ""), str(direct.get("token") or "")
        if not endpoint or not token:
            return None
        scheme, _, rest = endpoint.partition("://")
        if scheme == "tcp":  # the worker listens where the broker does: reach it the same way
            host = self.address.partition("://")[2].rsplit(":", 1)[0]
            endpoint = f"tcp://{host}:{rest.rsplit(':', 1)[1]}"
        sock = self._ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.ROUTING_ID, bytes.fromhex(token))
        # a streamed download waits in the worker (which holds the data anyway) rather
        # than piling up here beside the array being filled
        sock.setsockopt(zmq.RCVHWM, 16)
        # a blocking receive gives up after this long, to look at the other sockets
        sock.setsockopt(zmq.RCVTIMEO, QUICK_WAIT_MS)
        from .security import client_keys, configure_client_socket, release
        configure_client_socket(sock, endpoint)
        if client_keys() is None:  # a plaintext worker admits only its session's client
            sock.plain_username = b"gpushare"  # (its handshake asks for the token:
            sock.plain_password = token.encode()  # server auth.SessionToken)
        release(sock)  # its handshake is not waited for; watch reconnections instead
        self._monitor = self._watch_connection(sock)
        sock.connect(endpoint)
        return sock

    def _watch_connection(self, sock: Any) -> Any:
        """A monitor of ``sock``'s handshakes: each one after the first is a
        reconnection (``_on_connection_events``). None when monitors are unavailable;
        then a silence while waiting resyncs."""
        try:
            return sock.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED,
                                           addr=f"inproc://gpushare-data-{id(self)}")
        except (zmq.ZMQError, AttributeError):  # pragma: no cover - monitors are optional
            return None

    def _send_data(self, frames: list) -> None:
        """Send calls and bulk data (numbered, see ``reliable.py``): to the worker
        directly, or through the broker. While ``WINDOW`` bytes sent are not
        acknowledged yet, first wait until half of them are (the broker's path has no
        backpressure of its own: it would hold what the worker has not taken)."""
        if self._out.unacked_bytes >= WINDOW:
            self._await_acks(WINDOW // 2)
        express = self._express
        if express:
            # small messages on the express connection; the channel changes only once
            # the worker has every message sent on the other (so it takes them in order)
            small = sum(f.nbytes if isinstance(f, memoryview) else len(f)
                        for f in frames) <= EXPRESS_MAX
            if small and (self._on_express or not self._out.pending):
                self._in.acknowledged()
                stamped = self._out.stamp(frames, self._in.last)
                self._on_express = True
                try:
                    express.send_message(stamped)
                except ExpressClosed:
                    self._express_failed()
                return
            if self._on_express and self._out.pending:
                self._await_acks(1)
            self._on_express = False
        self._in.acknowledged()
        send_frames(self._data_sock, self._out.stamp(frames, self._in.last))

    def _await_acks(self, below: int) -> None:
        """Handle what comes until fewer than ``below`` bytes of our messages are
        unacknowledged (raises only if the session is lost: an error of a call
        surfaces where the program waits, not in the middle of a copy)."""
        check = self._watch()
        out = self._out
        while out.unacked_bytes >= below:
            self._poll(200)
            check()

    def _send_sync(self) -> None:
        """Ask the worker where it is: it answers ``state`` and resends the replies
        after ours, and we resend the calls after its (see ``reliable.py``)."""
        self.resyncs += 1
        send_frames(self._data_sock, [control("sync", self._in.last)])

    def _poll(self, timeout_ms: int) -> list:
        """The sockets with something to read, waiting at most ``timeout_ms``."""
        express = self._express
        if express and express.buffered():  # (read already: the socket may be quiet)
            timeout_ms = 0
        ready = [sock for sock, _ in self._poller.poll(timeout_ms)]
        if express:
            fd = express.fileno()
            if fd in ready:
                ready.remove(fd)
                try:
                    express.fill()  # (the messages stay there until read)
                except ExpressClosed:
                    self._express_failed()
            if express.buffered():
                ready.append(express)
        if self._monitor is not None and self._monitor in ready:
            ready.remove(self._monitor)
            self._on_connection_events()
        return ready

    def _on_connection_events(self) -> None:
        """A new handshake with the worker after the first one is a reconnection:
        whatever was in flight on the old connection may be lost, so resync."""
        from zmq.utils.monitor import recv_monitor_message
        reconnected = False
        while self._monitor.poll(0):
            if recv_monitor_message(self._monitor)["event"] == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                self._connections += 1
                reconnected = reconnected or self._connections > 1
        if reconnected and not self._closed and self._lost is None:
            self._send_sync()

    def _send(self, frames: list) -> None:
        send_frames(self._sock, frames)

    def _close_sockets(self, linger: int) -> None:
        """Stop the connection monitor, close every socket (``linger`` ms for what is
        still queued) and end the context; nothing when ``_handshake`` did already."""
        if self._ctx.closed:
            return
        from .security import release
        release(self._sock)  # (the handshake's monitor, when it was never waited for)
        if self._monitor is not None:
            for sock in (self._data, self._sock):  # (the monitored one: not known yet
                if sock is not None:               # when the start failed)
                    try:
                        sock.disable_monitor()
                    except zmq.ZMQError:
                        pass
            self._monitor.close(linger=0)
        for sock in (self._data, self._sock):
            if sock is not None:
                sock.close(linger=linger)
        self._ctx.term()

    def close(self) -> None:
        """End the session: the server frees every array of it."""
        if self._forked:  # the parent's session: nothing of it is this process's to end
            self._closed = True
            return
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                if self._lost is None:
                    self._send(Encoder().encode({"t": "bye"}))
            except zmq.ZMQError:
                pass
            self._lane_give_up()
            if self._express:
                self._express.close()
            self._close_sockets(linger=500)  # (the goodbye goes out first)
            if self._on_close is not None:
                self._on_close()

    # --- ids and releases -------------------------------------------------------
    def new_id(self) -> int:
        with self._lock:
            hid = self._next_id
            self._next_id += 1
            return hid

    def release(self, hid: int) -> None:
        """Forget handle ``hid``; the release travels with the next batch."""
        # list.append is atomic: safe from finalizers. The position orders the release
        # after every call queued while the proxy was alive.
        if self._closed:
            return
        release = self._release
        release.append((len(self._queue), hid))
        self.proxies.refs.pop(hid, None)  # (its proxy is gone: no sweep needed)
        if self._poisoned:
            self._poisoned.pop(hid, None)
        if len(release) >= 4 * BATCH_CALLS:
            self._flush_releases()

    def _flush_releases(self) -> None:
        """Send the releases (many piled up), unless another thread holds the lock (its
        next batch carries them). Called from finalizers: never raises."""
        try:
            if self._lock.acquire(blocking=False):
                try:
                    self._flush_locked()
                finally:
                    self._lock.release()
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass

    def raise_poisoned(self, hid: int) -> None:
        """Raise the error of the call that was to make ``hid``, if it failed: the
        pending error itself when it is that one (with where the call was made, and
        not once more at the next wait)."""
        info = self._poisoned.get(hid)
        if info is None:
            return
        pending = self._error
        if pending is not None and getattr(pending[1], "__gpushare_info__", None) is info:
            self._raise_pending()
        raise _error_of(info)

    # --- calls ------------------------------------------------------------------
    def _encode_call(self, seq: int, op: str, target: Any, args: Any, kwargs: Any,
                     out_id: Any, want: bool) -> tuple[bytes, list]:
        # the common call: proxies, plain scalars, and tuples and slices of those
        # (shapes, axes, index keys), packed directly
        plain = [_plain(value) for value in args]
        if _NOT_PLAIN not in plain:
            plain_kwargs = {}
            if kwargs:
                for name, value in kwargs.items():
                    value = _plain(value)
                    if value is _NOT_PLAIN or type(name) is not str:
                        break
                    plain_kwargs[name] = value
            if len(plain_kwargs) == len(kwargs or ()):
                return _CALL_PACKER.pack([seq, op, target, plain, plain_kwargs, out_id,
                                          want]), []
        encoder = Encoder(handle_of=_handle_of, first_frame=2)
        packed = encoder.pack([seq, op, target, list(args), kwargs or {}, out_id, want])
        return packed, encoder.frames

    def _renumbered(self, op: str, target: Any, args: Any, kwargs: Any, out_id: Any,
                    want: bool) -> tuple[int, bytes, list]:
        """Encode a call again under the next free number: encoding its arguments made
        calls of their own (a ``poly1d``'s ``coeffs``, read from the server), which took
        the number it was encoded under (its result would have been theirs)."""
        for _ in range(3):
            seq = self._seq + 1
            packed, frames = self._encode_call(seq, op, target, args, kwargs, out_id, want)
            if self._seq < seq:
                return seq, packed, frames
        raise RuntimeError(f"gpushare: encoding the arguments of {target or op} keeps "
                           "calling the server")

    def submit(self, op: str, target: Any, args: Any = (), kwargs: Any = None,
               out_id: Any = None, description: str | None = None) -> int:
        """Queue a call whose result needs no reply; return its sequence number."""
        with self._lock:
            self._check_usable()
            seq = self._seq + 1
            packed, frames = self._encode_call(seq, op, target, args, kwargs, out_id, False)
            if self._seq >= seq:  # (an argument's encoding made calls: ``_renumbered``)
                seq, packed, frames = self._renumbered(op, target, args, kwargs, out_id,
                                                       False)
            self._seq = seq  # only once encoding succeeded: no gaps a wait could hang on
            info = PendingCall(seq, description or (op, target), user_location(),
                               tuple(out_id) if isinstance(out_id, list) else (out_id,))
            if frames:  # big host data: send it now, alone
                # (copied: the caller may change its array as soon as we return, and a
                # message is kept to be sent again after a reconnection)
                frames = [bytes(f) for f in frames]
                self._flush_locked()
                self._send_batch([packed], [info], frames)
            else:
                if not self._queue and not self._queued.is_set():  # (is_set: no lock)
                    self._queued.set()
                self._queue.append(packed)
                self._queue_info.append(info)
                if self.sync:  # (its error is its own: raised as the call's, unannotated)
                    self._wait_locked(seq, own_call=seq)
                elif len(self._queue) >= BATCH_CALLS:
                    self._flush_locked()
            return seq

    def wait(self, seq: int, out_id: int | None = None) -> None:
        """Wait until call ``seq`` has run; its error is raised here, as the call's own
        (``out_id``, its result's id, is then forgotten: no array will hold it)."""
        with self._lock:
            try:
                self._wait_locked(seq, own_call=seq)
            except BaseException:
                if out_id is not None:
                    self._poisoned.pop(out_id, None)
                raise

    @property
    def alloc_wait_bytes(self) -> int:
        """New arrays of this many bytes or more wait for the server (the creation
        routines, and every call whose result the client lays out itself: operators,
        ufuncs, routines), so that ``OutOfMemoryError`` is raised at the call, as CuPy
        raises it: ``GPUSHARE_WAIT_ALLOC_MB`` (256), or an eighth of the session's
        memory limit (the server's, or the pool's ``set_limit``) when that is less;
        never under 64 KiB."""
        limit = self.__dict__.get("_alloc_wait_bytes")
        if limit is None:
            limit = int(env_float("GPUSHARE_WAIT_ALLOC_MB", 256.0) * (1 << 20))
            quota = self.info.get("memory_limit") if isinstance(self.info, dict) else None
            for cap in (quota, self.pool_limit):
                if isinstance(cap, int) and cap > 0:
                    limit = min(limit, max(cap // 8, 1 << 16))
            # (never under 64 KiB: the operators' fast paths count on it)
            self.__dict__["_alloc_wait_bytes"] = limit = max(limit, 1 << 16)
        return limit

    @property
    def pool_limit(self) -> int:
        return int(self.__dict__.get("_pool_limit") or 0)

    @pool_limit.setter
    def pool_limit(self, limit: int) -> None:
        self.__dict__["_pool_limit"] = int(limit)
        self.__dict__.pop("_alloc_wait_bytes", None)

    def fast_op(self, kinds: int, target: str, a: Any, b: Any, out_id: int = 0,
                depth: int = 3) -> int:
        """The operators' fast path: queue ``target(a, b)`` with its result under a new
        id, and return the id. ``kinds`` says which of ``a`` and ``b`` are handle ids
        (bit 0: ``a``, bit 1: ``b``), the others being plain Python scalars; 4:
        ``target(a)`` of a handle ``a`` (``b`` None); bit 3 (with bit 0): ``target(a, b,
        out=a)``, ``out_id`` being ``a`` (returned: no new array). The call travels as
        the record ``[seq, kinds, target, a, b, out_id]``. 0 when the general path must
        take the call (a closed or lost session, sync mode, a failed call's arrays
        about: ``submit`` says why). ``depth``: how many frames up the user's call is
        (3: an operator's, below)."""
        with self._lock:
            if self._closed or self._lost is not None or self.sync or self._poisoned:
                return 0
            hid = out_id
            if not hid:
                hid = self._next_id
                self._next_id = hid + 1
            seq = self._seq + 1
            self._seq = seq
            queue = self._queue
            if not queue and not self._queued.is_set():
                self._queued.set()
            queue.append((seq, kinds, target, a, b, hid))
            # (frames up: this, ufunc._fast1, _fast2 or _fast_into, the operator or
            # ufunc.__call__: the user's, unless gpushare's own code calls)
            try:
                frame = _getframe(depth)
                code = frame.f_code
                self._queue_info.append((code, frame.f_lasti)
                                        if _OURS.get(code.co_filename) is False
                                        else _where(frame))
            except ValueError:  # called from outside Python: no frame that far up
                self._queue_info.append(None)
            if len(queue) >= BATCH_CALLS:
                self._flush_locked()
            return hid

    def call(self, op: str, target: Any, args: Any = (), kwargs: Any = None,
             out_id: Any = None) -> Any:
        """Run a call and wait for its result (arrays come back as proxies)."""
        with self._lock:
            self._check_usable()
            seq = self._seq + 1
            packed, frames = self._encode_call(seq, op, target, args, kwargs, out_id, True)
            if self._seq >= seq:  # (an argument's encoding made calls: ``_renumbered``)
                seq, packed, frames = self._renumbered(op, target, args, kwargs, out_id, True)
            self._seq = seq
            info = PendingCall(seq, (op, target), "", ())
            if frames:
                self._flush_locked()
                self._send_batch([packed], [info], frames)
            else:
                self._queue.append(packed)
                self._queue_info.append(info)
            self._wait_locked(seq, own_call=seq)
            if self._express is None:
                self._waits += 1
                if self._waits >= expresses.OPEN_AFTER and not self._queue and \
                        self._done_seq >= self._seq:
                    self._open_express()
            return self._results.pop(seq, None)

    def upload_stream(self, host: Any, order: str, hid: int, description: str,
                      existing: bool = False) -> None:
        """Create array ``hid`` on the server from the contiguous host array ``host``,
        streamed in chunks of its memory order (``order``: ``"C"`` or ``"F"``).
        ``existing``: ``hid`` is an array already, contiguous in ``order``, of ``host``'s
        size (``ndarray.set``): the chunks are written into it."""
        import numpy
        with self._lock:
            # same host: through the shared-memory ring (opened when nothing else is in
            # flight, so that opening it cannot surface another call's error here)
            ring = self._shm_ring(open_now=not self._queue and self._error is None and
                                  self._done_seq >= self._seq)
            lane = None  # else, on the bulk lane (opened on the same terms)
            if ring is None and host.nbytes >= lanes.LANE_MIN:
                lane = self._lane(open_now=not self._queue and self._error is None and
                                  self._done_seq >= self._seq)
            if not existing:
                self.submit("upload_begin", None, (tuple(host.shape), host.dtype),
                            {"order": order}, out_id=hid, description=description)
            self._flush_locked()
            flat = memoryview(host.reshape(-1, order="A").view(numpy.uint8))
            # Like CuPy's copy from pageable memory, the copy is over when we return:
            # the caller may change ``host`` at once. Through the ring: we saw the
            # worker empty every slot; on the lane: it said DONE
            if ring is not None:
                self._shm_upload(ring, flat, hid)
                return
            if lane is not None and self._lane_upload(lane, flat, hid):
                return
            for offset in range(0, flat.nbytes, CHUNK_BYTES):
                head = msgpack.packb({"t": "batch", "n": 0, "chunk": [hid, offset]})
                self._send_data([head, b"", flat[offset:offset + CHUNK_BYTES]])
            # chunks go without a copy, and are kept to be sent again after a
            # reconnection: wait until the worker has them all (it says so once it has
            # written them)
            self._wait_locked(self._done_seq, delivered=self._out.sent)

    def download(self, arr: Any) -> Any:
        """The host copy of the proxy ``arr`` (the ``download`` call; a numpy array,
        written into ``download_into`` when that fits)."""
        with self._lock:
            into = self.download_into
            host = self.call("download", None, (arr,))
            if host is LANE_FAILED:  # the lane failed midway: again, as chunk messages
                self.download_into = into
                self.submit("lane_close", None)
                host = self.call("download", None, (arr,))
            return host

    def flush(self) -> None:
        with self._lock:
            if not self._closed and self._lost is None:
                self._flush_locked()

    def synchronize(self) -> None:
        """Wait until every queued call (and streamed copy) has run; raise any pending
        error."""
        with self._lock:
            self._check_usable()
            self._wait_locked(self._seq)

    def _flush_locked(self, drain: bool = True) -> None:
        if self._queue or self._release or self._ack is not None:
            queue, info = self._queue, self._queue_info
            self._queue, self._queue_info = [], []
            self._send_batch(queue, info, [], drain)

    def _send_batch(self, calls: list, info: list, frames: list,
                    drain: bool = True) -> None:
        release, self._release = self._release, []
        header: dict = {"t": "batch", "n": len(calls)}
        if release:
            header["release"] = release
        if self._ack is not None:
            header["ack"] = self._ack
            self._ack = None
        if info:
            first = info[0]
            first = first.seq if type(first) is PendingCall else _record(calls[0])[0]
            self._sent.append([first, calls, info])
            self._sent_seq = first + len(info) - 1
        self._send_data([packb(header), _pack_calls(calls), *frames])
        if drain:  # (a caller about to wait reads the replies anyway)
            self._drain()

    def _drain(self) -> None:
        """Handle replies that already arrived, without waiting."""
        while True:
            ready = self._poll(0)
            if not ready:
                return
            for sock in ready:
                self._on_reply(sock.recv_multipart(copy=False))

    def _wait_locked(self, seq: int, own_call: int | None = None, delivered: int = 0) -> None:
        """Wait for the replies up to call ``seq`` (an error stops the wait), and until
        the worker has acknowledged our messages up to number ``delivered`` (whatever
        happens, short of losing the session); then raise what is pending."""
        self._flush_locked(drain=False)
        last_heard = last_sync = _monotonic()
        pinged = False
        quick = self._data
        out = self._out
        while self._lost is None and (self._done_seq < seq and self._error is None or
                                      delivered and not out.delivered(delivered)):
            if quick is not None:
                # the common case: the reply comes on the direct socket soon; wait for
                # it there alone (one ZeroMQ call). The broker's socket and the
                # connection events matter only once the worker has been silent a while
                try:
                    if self._on_express:  # (the express connection: where it comes)
                        express = self._express
                        try:
                            frames = express.wait(SPIN_S, QUICK_WAIT_MS / 1000)
                        except ExpressClosed:
                            self._express_failed()
                            continue
                        if frames is None:
                            raise zmq.Again
                        self._on_reply(frames)
                        last_heard = _monotonic()
                        pinged = False
                        continue
                    if SPIN_S > 0:
                        spin(quick, SPIN_S)
                    self._on_reply(quick.recv_multipart(copy=False))
                    last_heard = _monotonic()
                    pinged = False
                    continue
                except zmq.Again:
                    quick = None  # silent for QUICK_WAIT_MS: watch everything until done
            ready = self._poll(1000)
            if ready:
                for sock in ready:
                    self._on_reply(sock.recv_multipart(copy=False))
                last_heard = _monotonic()
                pinged = False
                continue
            now = _monotonic()
            silent = now - last_heard
            if self._monitor is None and silent >= 2.0 and now - last_sync >= 3.0:
                last_sync = now  # no connection events to go by: ask now and then
                self._send_sync()
            if silent > self.timeout:
                self._lost = self._silent_error(silent)
            elif not pinged and silent > self._ping_s:
                self._ping()
                pinged = True
        ended = self._lost is not None
        if ended and self._stopped:
            # the broker's word that the server stops came while we waited: the
            # worker's own replies, sent before it, travel on another connection and
            # may come just after it
            ended = not self._late_replies(seq, delivered)
        if self._warnings:  # before any error: CuPy warns, then raises
            items, self._warnings = self._warnings, []
            try:
                errors.reissue_warnings(items, stacklevel=4)
            except BaseException:
                # a warning the program made an error ends the call there, as in CuPy,
                # where nothing after it ran: the error the server met after the
                # warning is not raised later, at an unrelated call
                self._error = None
                raise
        self._raise_pending(own_call, ended)

    def _late_replies(self, seq: int, delivered: int) -> bool:
        """Read what comes for up to ``LATE_REPLIES_S`` until the wait for call ``seq``
        (and delivery ``delivered``) is satisfied; whether it is. Then the calls waited
        for ran, and the session's end is raised by the next call instead."""
        out = self._out
        deadline = _monotonic() + LATE_REPLIES_S
        while True:
            if (self._done_seq >= seq or self._error is not None) and \
                    (not delivered or out.delivered(delivered)):
                return True
            left = deadline - _monotonic()
            if left <= 0:
                return False
            try:
                for sock in self._poll(max(1, int(left * 1000))):
                    self._on_reply(sock.recv_multipart(copy=False))
            except (zmq.ZMQError, ExpressClosed):
                return False

    def _ping(self) -> None:
        """Ping the broker, which answers while the worker computes or copies (the
        worker, busy, cannot), and so hears that this client is still here: the waits
        do it once ``_ping_s`` passes without a word."""
        self._send(Encoder().encode({"t": "ping"}))

    def _after_fork(self) -> None:
        """In a forked child: the session is the parent's (its sockets, its express
        connection and shared memory are the parent's too, and a message of the child's
        there would corrupt the parent's session), so the child only raises what CuPy
        raises in a child forked after CUDA was initialised."""
        self._forked = True
        self._lock = threading.RLock()  # (the parent's may be held by a thread not here)
        self._on_close = None  # (the embedded server is the parent's)
        self._lost = _fork_error()

    def _lost_error(self) -> BaseException:
        """The error that ended this session, for a call to raise: a kernel fault's CUDA
        error once (CuPy raises it at the first call that waits), then
        ``SessionLostError``."""
        if self._forked:  # (raised by every call, as CUDA's is in such a child)
            return _fork_error()
        lost = self._lost
        if type(lost) is errors.CUDARuntimeError or type(lost) is errors.CUDADriverError:
            self._lost = errors.SessionLostError(
                f"gpushare: the session's worker process ended after a kernel's fault "
                f"({lost}); every array of this session is gone. Other sessions are "
                "unaffected.")
        assert lost is not None
        return lost

    def _silent_error(self, silent: float) -> errors.ServerUnavailableError:
        """The error of a wait that heard nothing for ``silent`` (> timeout) seconds."""
        return errors.ServerUnavailableError(
            f"gpushare: the server at {self.address} stopped answering "
            f"({silent:.0f} s without a reply); the session's arrays may be lost")

    def _raise_pending(self, own_call: int | None = None, ended: bool = True) -> None:
        """Raise the session's end (unless not ``ended``: a wait it did not cut short),
        else the error of a call, if any."""
        if ended and self._lost is not None:
            raise self._lost_error()
        if self._error is not None:
            pending, exc = self._error
            self._error = None
            if pending is not None and pending.seq != own_call and pending.where:
                exc = errors.build_error(exc.__gpushare_info__, (  # type: ignore[attr-defined]
                    f"raised by the pipelined call {pending.description} made at "
                    f"{pending.where}; it surfaced at the next call that waits "
                    "(GPUSHARE_SYNC=1 raises errors where they happen)"))
            if self._fatal_reply:
                # a GPU's sticky error (the cupy backend): raised once, as CuPy raises it;
                # the worker ends after it (``SessionExecutor.fatal``), so the session has
                # ended: its arrays raise the loss, new work gets a new session
                self._lost = errors.SessionLostError(
                    f"gpushare: the session's worker process ended after a kernel's fault "
                    f"({exc}); every array of this session is gone. Other sessions are "
                    "unaffected.")
            try:
                raise exc
            except BaseException as raised:
                _drop_our_context(raised)
                raise
            finally:  # (kept here, a raised exception and this frame would hold each
                del exc, pending  # other, and the caller's arrays, until a collection)

    def _check_usable(self) -> None:
        if self._closed:
            raise errors.SessionLostError("gpushare: this session is closed")
        if self._lost is not None:
            raise self._lost_error()

    # --- replies ----------------------------------------------------------------
    def _take(self, frames: list) -> list | None:
        """``frames`` without their envelope if they are to be handled now; None for a
        duplicate, a message after a gap (a resend is asked for), a ``state`` or an
        ``ack``."""
        envelope, frames = split_envelope(frames)
        if envelope is None:
            message = parse_control(frames)
            if message is None or message[0] == "sync":
                return frames  # the broker's (pong, fatal...), or not for a client
            kind, have = message
            if kind == "state":
                self._on_state(have)
            else:  # "ack": the worker took our messages up to "have"
                self._out.acked(have)
            return None
        n, ack = envelope
        self._out.acked(ack)
        verdict = self._in.check(n)
        if verdict == NEW:
            if self._in.took(frames):  # a long download: the worker's window moves on
                self._send_ack()
            return frames
        if verdict == GAP:
            self.gaps += 1
            if self._in.should_ask():
                self._send_sync()
        return None

    def _send_ack(self) -> None:
        """Tell the worker which of its messages we have (it keeps them until then);
        other messages carry this in their envelope."""
        self._in.acknowledged()
        send_frames(self._data_sock, [control("ack", self._in.last)])

    def _on_state(self, have: int) -> None:
        """The worker's ``state``: resend the messages it does not have."""
        if self._closed or self._lost is not None:
            return
        sock = self._data_sock
        for frames in self._out.resend(have):
            send_frames(sock, frames)

    def _on_reply(self, frames: list) -> None:
        frames = self._take(frames)
        if frames is None:
            return
        decoder = Decoder(frames, remote_array=self._remote_array,
                          remote_object=self._remote_object)
        reply = decoder.decode()
        kind = reply.get("t") if isinstance(reply, dict) else None
        if kind == "done":
            error = reply.get("error")
            if error is not None:
                seq, info = error
                exc = _error_of(info)
                pending = self._pending_call(seq)
                self._error = (pending, exc)
                self._last_error = info
                if reply.get("fatal"):  # (the worker ends after it: ``_raise_pending``)
                    self._fatal_reply = True
                self._ack = seq
                for out in (pending.out_ids if pending else ()):
                    if out is not None:
                        self._poisoned[out] = info
            for seq, out_id in reply.get("skipped") or ():
                skipped = self._pending_call(seq)
                for out in (skipped.out_ids if skipped else ()):
                    if out is not None and self._last_error is not None:
                        self._poisoned[out] = self._last_error
            self._warnings.extend(reply.get("warnings") or ())
            printed = reply.get("output")
            if printed:  # printf from kernels, and anything else the session printed
                sys.stdout.write(str(printed))
                sys.stdout.flush()
            upto = reply.get("upto")
            if isinstance(upto, int):
                sent = self._sent
                while sent and sent[0][0] + len(sent[0][1]) - 1 <= upto:
                    sent.popleft()
                self._done_seq = max(self._done_seq, upto)
            # the results last: a download streamed after the reply may be interrupted
            # (Ctrl-C), and the reply's bookkeeping above must be done by then
            for seq, packed in reply.get("results") or ():
                value = decoder.unpack(packed)
                if isinstance(value, dict) and "stream" in value:
                    value = self._receive_stream(value)
                    self._send_ack()  # the worker may let go of the copy's chunks now
                self._results[seq] = value
        elif kind == "chunk" and reply.get("stream") in self._abandoned:
            pass  # the rest of a download the program stopped waiting for: dropped
        elif kind == "fatal":
            key, message = reply["error"]
            if self._lost is not None and self._fatal_reply:
                pass  # (the error a reply said ends the session was raised: it has ended)
            elif key == "cupy.cuda.runtime.CUDARuntimeError":
                # a kernel's fault ended the worker (the CPU backend's emulator): CUDA's
                # error, raised once, where CuPy raises it (the next call that waits)
                self._lost = errors.CUDARuntimeError(reply.get("status"), message)
            elif key == "cupy.cuda.driver.CUDADriverError":
                # (the same, where the call after the faulting launch was a launch)
                self._lost = errors.CUDADriverError(reply.get("status"), message)
            else:
                self._lost = errors.SessionLostError(message)
                # (the server stops: its worker answered every call it ran before the
                # broker said so, on another connection: ``_late_replies``)
                self._stopped = key == "gpushare.ServerStopped"
        elif kind == "pong":
            if not reply.get("alive"):
                self._lost = errors.SessionLostError(
                    reply.get("lost") or "gpushare: the server no longer has this session")
        elif kind == "protocol_error":
            self._lost = errors.RemoteProtocolError(
                f"gpushare: the server could not understand a message: {reply.get('error')}")
        else:
            self._lost = errors.RemoteProtocolError(f"gpushare: unexpected reply {reply!r}")

    def _pending_call(self, seq: Any) -> PendingCall | None:
        """The call ``seq`` of a batch sent and not yet answered."""
        for first, calls, infos in self._sent:
            i = seq - first if type(seq) is int else -1
            if 0 <= i < len(infos):
                info = infos[i]
                if type(info) is PendingCall:
                    return info
                # an operator's record: [seq, kinds, target, a, b, out_id]
                record = _record(calls[i])
                # (``a op= b`` makes no array: a failure there leaves ``a`` usable)
                return PendingCall(seq, record[2], info,
                                   (None,) if record[1] & 8 else (record[5],))
        return None

    def _receive_stream(self, desc: dict) -> Any:
        """Receive the chunk messages of a streamed array (they follow its reply)."""
        import numpy

        from .protocol import dtype_from_wire
        shape, dtype = tuple(desc["shape"]), dtype_from_wire(desc["descr"])
        order = desc.get("order", "C")
        into, self.download_into = self.download_into, None
        if into is not None and into.shape == shape and into.dtype == dtype and \
                into.flags.writeable and (into.flags.f_contiguous if order == "F"
                                          else into.flags.c_contiguous):
            out = into  # get(out=...): straight into the caller's array, no second copy
        else:
            out = numpy.empty(shape, dtype=dtype, order=order)
        flat = out.reshape(-1, order="A").view(numpy.uint8)
        total = int(desc["nbytes"])
        if desc.get("shm"):  # through the shared-memory ring
            return self._shm_download(desc, out, flat)
        if desc.get("lane"):  # on the bulk lane
            return self._lane_download(total, out, flat, bool(desc.get("ack")))
        try:
            self._receive_chunks(desc, flat, total)
        except BaseException:
            # interrupted (KeyboardInterrupt): the chunks still on their way are the
            # copy's, and dropped as they come (a stream's number is never used
            # again); the session goes on
            self._abandoned.add(desc["stream"])
            raise
        # inside the download's reply, nothing else in flight: the ring (or the
        # lane) may open now
        open_now = not self._queue and self._error is None and self._sent_seq == self._seq
        if self._shm_ring(open_now) is None and total >= lanes.LANE_MIN:
            self._lane(open_now)
        return out

    def _receive_chunks(self, desc: dict, flat: Any, total: int) -> None:
        """The chunk messages of stream ``desc`` into ``flat``."""
        import numpy
        received = 0
        data_sock = self._data_sock
        last_heard = pinged = _monotonic()
        while received < total:
            ready = self._poll(1000)
            if _monotonic() - pinged > self._ping_s:
                # a long copy: the broker hears from us meanwhile (the worker, busy
                # sending, cannot tell it we are here), so the session does not expire
                pinged = _monotonic()
                self._ping()
            if not ready:
                if _monotonic() - last_heard > self.timeout:
                    self._lost = errors.ServerUnavailableError(
                        f"gpushare: the server at {self.address} stopped in the middle of "
                        "a copy")
                    raise self._lost_error()
                continue
            last_heard = _monotonic()
            sock = data_sock if data_sock in ready else ready[0]
            frames = self._take(sock.recv_multipart(copy=False))
            if frames is None:
                continue
            head = msgpack.unpackb(frames[0].bytes)
            if not isinstance(head, dict) or head.get("t") != "chunk" or \
                    head.get("stream") != desc["stream"] or len(frames) != 2:
                self._on_reply(frames)  # e.g. the session was lost meanwhile
                if self._lost is not None:
                    raise self._lost_error()
                continue
            offset = int(head["offset"])
            data = frames[1].buffer
            flat[offset:offset + len(data)] = numpy.frombuffer(data, numpy.uint8)
            received += len(data)

    def _remote_array(self, meta: ArrayMeta) -> Any:
        proxy = self.proxies.get(meta.id)
        if proxy is not None:
            return proxy
        proxy = self.make_array(meta)
        self.proxies[meta.id] = proxy
        return proxy

    def _remote_object(self, obj: RemoteObject) -> Any:
        proxy = self.proxies.get(obj.id)
        if proxy is not None:
            return proxy
        proxy = self.make_object(obj)
        self.proxies[obj.id] = proxy
        return proxy

    # --- shared memory (same host, opt-in; see shm.py) ----------------------------
    def _shm_ring(self, open_now: bool) -> Any:
        """The worker's shared-memory ring, mapped here; None: copies stream instead.
        Opened (two round trips) on the first large copy when ``open_now``; decided
        once per session. ``GPUSHARE_SHM=0`` never asks."""
        ring = self.__dict__.get("_gs_shm", False)
        if ring is not False or not open_now or self._closed or self._lost is not None:
            return ring or None
        from . import shm
        self._gs_shm = None
        self.shm_bytes = [0, 0]  # bytes copied through the ring: up, down
        if not shm.wanted(self.address):
            return None
        try:
            info = self.call("shm_open", None, (),
                             {"slots": shm.SLOTS, "slot_bytes": shm.SLOT_BYTES})
            ring = shm.attach(info) if info else None
            if ring is None:
                if info:  # another host, or something odd: the worker drops it
                    self.submit("shm_close", None)
                return None
            if self.call("shm_confirm", None, (ring.nonce.hex(),)) is True:
                self._gs_shm = ring
        except Exception:  # noqa: BLE001 - e.g. refused: stream instead
            if self._lost is not None:
                raise
        return self._gs_shm

    def _shm_upload(self, ring: Any, flat: memoryview, hid: int) -> None:
        """Copy ``flat`` into array ``hid`` through the ring: one numbered message
        announces the copy, then we fill slot after slot, publishing our count
        (``UP_PRODUCED``) as the worker empties them and publishes its own. We wait only
        for a free slot, and at the end until the worker has emptied every slot (so a
        copy it abandoned is an error here, not a half-written array)."""
        import numpy

        from . import shm
        src = numpy.frombuffer(flat, numpy.uint8)
        words, slots, size_max, total = ring.words, ring.slots, ring.slot_bytes, src.size
        base = int(words[shm.UP_PRODUCED])
        ring.uploads += 1
        xfer = ring.uploads
        self._send_data([msgpack.packb({"t": "batch", "n": 0, "chunk": None,
                                        "shm": ["up", xfer, hid, 0, total, base]})])
        done = base
        try:
            for offset in range(0, total, size_max):
                if words[shm.UP_CONSUMED] <= done - slots:  # every slot is full
                    self._shm_wait(ring, shm.UP_CONSUMED, done + 1 - slots, xfer)
                size = min(size_max, total - offset)
                numpy.copyto(ring.slot[done % slots][:size], src[offset:offset + size])
                done += 1
                words[shm.UP_PRODUCED] = done
            self._shm_wait(ring, shm.UP_CONSUMED, done, xfer)
        except BaseException:
            self._shm_give_up(ring)
            raise
        self.shm_bytes[0] += total

    def _shm_download(self, desc: dict, out: Any, flat: Any) -> Any:
        """Receive a download through the ring (the worker fills it once the reply
        carrying ``desc`` is sent): empty each slot as the worker's count
        (``DOWN_PRODUCED``) says it is full, and publish our own (``DOWN_CONSUMED``)."""
        import numpy

        from . import shm
        ring = self.__dict__.get("_gs_shm")
        base = desc.get("base")
        if not ring or type(base) is not int or base != ring.words[shm.DOWN_CONSUMED]:
            if ring:
                self._shm_give_up(ring)  # the worker must not wait for us
            self._lost = errors.RemoteProtocolError(
                "gpushare: the server sent shared memory this client does not have")
            raise self._lost_error()
        words, slots, size_max = ring.words, ring.slots, ring.slot_bytes
        total, done = int(desc["nbytes"]), base
        try:
            for offset in range(0, total, size_max):
                if words[shm.DOWN_PRODUCED] <= done:  # not filled yet
                    self._shm_wait(ring, shm.DOWN_PRODUCED, done + 1)
                size = min(size_max, total - offset)
                numpy.copyto(flat[offset:offset + size], ring.slot[done % slots][:size])
                done += 1
                words[shm.DOWN_CONSUMED] = done
        except BaseException:
            self._shm_give_up(ring)
            raise
        self.shm_bytes[1] += total
        return out

    def _shm_give_up(self, ring: Any) -> None:
        """Leave the ring for good, midway through a copy (after an error, or an
        interrupt: then the session goes on, its copies streamed as messages); the
        abort word tells the worker, which stops waiting and drops it too."""
        from . import shm
        if not ring.words[shm.ABORT]:
            ring.words[shm.ABORT] = 1
        self._gs_shm = None

    def _shm_wait(self, ring: Any, index: int, target: int, xfer: int | None = None) -> None:
        """Wait until the worker's count ``index`` in the ring's header reaches
        ``target`` (``shm.wait``: a short spin, then yields, then short sleeps between
        which replies and the broker's messages are handled as usual; a reconnection
        resyncs, which resends a lost announce). Gives up (the session is lost) after
        ``timeout`` seconds without progress once the worker is on this copy (upload
        ``xfer`` begun, or a download); before that only when nothing at all is heard
        for ``timeout`` seconds, as any wait (the broker answers pings while the worker
        is still busy with earlier calls)."""
        from . import shm
        words = ring.words
        check = self._watch()
        progress = [_monotonic()]  # since when the worker is on this copy

        def idle(waited: float) -> None:
            now = _monotonic()
            begun = xfer is None or words[shm.XFER] == xfer
            check(silence_counts=not begun)
            if not begun:
                progress[0] = now
            elif now - progress[0] > self.timeout:
                self._lost = errors.ServerUnavailableError(
                    f"gpushare: the server at {self.address} stopped in the middle of a "
                    f"copy ({now - progress[0]:.0f} s without progress)")
                raise self._lost_error()
        try:
            shm.wait(words, index, target, idle)
        except shm.Aborted:
            self._lost = errors.RemoteProtocolError(
                "gpushare: the server abandoned a copy through shared memory (it waited "
                "too long for this client); the session cannot go on")
            raise self._lost_error() from None

    def _watch(self) -> Callable[..., None]:
        """A check to call now and then while waiting on something other than a reply
        (a copy through the ring or on the lane): it handles the replies that came,
        raises once the session is lost, and, when ``silence_counts``, once nothing has
        been heard for ``timeout`` seconds, as any wait (after a while it pings: the
        broker answers while the worker is busy)."""
        # when we last heard anything, whether we pinged since, when we last resynced
        heard = [_monotonic(), False, _monotonic()]

        def check(silence_counts: bool = True) -> None:
            now = _monotonic()
            for sock in self._poll(0):
                self._on_reply(sock.recv_multipart(copy=False))
                heard[:2] = [now, False]
            if self._lost is not None:
                raise self._lost_error()
            if not silence_counts:
                heard[0] = now
                return
            silent = now - heard[0]
            if self._monitor is None and silent >= 2.0 and now - heard[2] >= 3.0:
                heard[2] = now  # no connection events to go by (as _wait_locked)
                self._send_sync()
            if silent > self.timeout:
                self._lost = self._silent_error(silent)
                raise self._lost_error()
            if not heard[1] and silent > self._ping_s:
                self._ping()
                heard[1] = True
        return check

    # --- the bulk lane (plain TCP connections for big copies; see lane.py) --------
    def _open_express(self) -> None:
        """Open the express connection (``express.py``; two round trips), over a
        plaintext ``tcp://`` direct path, unless ``GPUSHARE_EXPRESS=0``; tried once per
        session."""
        self._express = False
        if not expresses.enabled():
            return
        socks = self._side_connections("express", 1)
        if socks:
            socks[0].settimeout(None)
            express = expresses.Express(socks[0], stall=self.timeout)
            self._poller.register(express.fileno(), zmq.POLLIN)
            self._express = express

    def _express_failed(self) -> None:
        """The express connection failed: close it for good, and let ZeroMQ carry what
        may be lost with it (ours again, the worker's asked for: the numbering drops
        what arrived twice)."""
        express = self._express
        self._express, self._on_express = False, False
        if not express:
            return
        try:
            self._poller.unregister(express.fileno())
        except (KeyError, ValueError, zmq.ZMQError):
            pass
        express.close()
        if not self._closed and self._lost is None:
            self._send_sync()  # (its ``state`` has ours sent again: ``_on_state``)

    def _lane(self, open_now: bool) -> Any:
        """The open bulk lane (``lane.Lane``); None: big copies go as chunk messages.
        Opened (two round trips) on the first big copy when ``open_now``, over a
        plaintext ``tcp://`` direct path, unless ``GPUSHARE_LANES=0``; decided once per
        session, and closed for good when a copy on it fails."""
        lane = self.__dict__.get("_gs_lane", False)
        if lane is not False or not open_now or self._closed or self._lost is not None:
            return lane or None
        self._gs_lane = None
        streams = lanes.streams_wanted(lanes.host_of(self.address))
        socks = self._side_connections("lane", streams) if streams else []
        if socks:
            self._gs_lane = lanes.Lane(socks)
        return self._gs_lane

    def _side_connections(self, kind: str, streams: int) -> list:
        """Plain TCP connections straight to the worker (the bulk lane's, ``kind``
        "lane"; the express connection, "express"), over a plaintext ``tcp://`` direct
        path (the express connection also over an ``ipc://`` one, as a Unix socket):
        ``{kind}_open`` makes the worker listen and answer its port (or path), a token
        and how many of ``streams`` it takes; we connect them with the token
        (``lane.connect``) and ``{kind}_confirm`` makes it take them. [] when not
        offered, refused or failed (the session goes on over ZeroMQ)."""
        from .security import client_keys
        scheme = self.address.partition("://")[0]
        if self._data is None or client_keys() is not None or not (
                scheme == "tcp" or scheme == "ipc" and kind == "express"):
            return []
        socks: list = []
        try:
            info = self.call(f"{kind}_open", None, (), {"streams": streams})
            if not isinstance(info, dict):
                return []
            port, token, n = info.get("port"), info.get("token"), info.get("streams")
            if scheme == "ipc":
                port = info.get("path")  # (a Unix socket's)
            if type(port) is not (int if scheme == "tcp" else str) or type(n) is not int or \
                    not 1 <= n <= streams or not isinstance(token, str):
                raise ValueError(f"an odd {kind} offer: {info!r}")
            try:
                socks = lanes.connect(lanes.host_of(self.address), port,
                                      bytes.fromhex(token), n, self.timeout)
            except (OSError, ValueError):
                self.submit(f"{kind}_close", None)  # the worker stops listening
                return []
            if self.call(f"{kind}_confirm", None) is True:
                socks, taken = [], socks
                return taken
        except Exception:  # noqa: BLE001 - e.g. refused: ZeroMQ alone then
            if self._lost is not None:
                raise
        finally:
            lanes.close(socks)  # (unless they were taken)
        return []

    def _lane_give_up(self) -> None:
        """Close the lane for good (after a failed copy, or an interrupt). The worker
        notices at its next use of it, or at the ``lane_close`` a failed download sends
        before asking again."""
        lane = self.__dict__.get("_gs_lane")
        if lane:
            lane.close()
        self._gs_lane = None

    def _lane_upload(self, lane: Any, flat: memoryview, hid: int) -> bool:
        """Copy ``flat`` into array ``hid`` on the lane: one numbered message announces
        it, then the parts go and the worker's ``DONE`` is awaited (``_on_lane``).
        False when the lane failed (it is closed then; the caller sends the copy as
        chunk messages: the host data is still there)."""
        total = flat.nbytes
        self._send_data([msgpack.packb({"t": "batch", "n": 0, "chunk": None,
                                        "lane": ["up", hid, total]})])
        def copy(socks: list) -> None:
            # (pages handed to the sockets: ``flat`` stays as it is until DONE)
            lanes.send_parts(socks, flat, pages=True)
            lanes.recv_done(socks[0])
        # (no time limit on the sockets: the worker may be busy; our wait decides)
        if not self._on_lane(lane, copy, None):
            self.submit("lane_close", None)
            return False
        lane.bytes[0] += total
        return True

    def _lane_download(self, total: int, out: Any, flat: Any, ack: bool) -> Any:
        """Receive a download's parts on the lane (the worker writes them once the
        reply carrying their descriptor is sent) into ``out``'s bytes ``flat``;
        ``ack``: then say ``DONE`` on connection 0 (the worker handed its array's
        pages to the sockets, and waits for that before it goes on).
        ``LANE_FAILED`` when the lane failed (or was closed here already: the worker
        did not know yet); ``download`` then asks again."""
        lane = self.__dict__.get("_gs_lane")
        if not lane:
            return LANE_FAILED

        def copy(socks: list) -> None:
            lanes.recv_parts(socks, memoryview(flat))
            if ack:
                socks[0].sendall(lanes.DONE)
        # (the worker is on it: no progress for ``timeout`` seconds fails)
        if not self._on_lane(lane, copy, self.timeout):
            return LANE_FAILED
        lane.bytes[1] += total
        return out

    def _on_lane(self, lane: Any, copy: Callable[[list], None],
                 timeout: float | None) -> bool:
        """Run ``copy(connections)`` on a thread (each connection's time limit
        ``timeout``) while this one goes on handling the session as any wait does
        (replies; pings, so that a long copy, or a worker still busy with earlier
        calls, does not look like a gone client). False when the copy failed on the
        lane; the lane is closed then. An interrupt or a lost session closes it too,
        and raises."""
        failed: list = []
        done = threading.Event()

        def run() -> None:
            try:
                for sock in lane.socks:
                    sock.settimeout(timeout)
                copy(lane.socks)
            except BaseException as exc:  # noqa: BLE001 - reported below
                failed.append(exc)
            finally:
                done.set()
        worker = threading.Thread(target=run, daemon=True, name="gpushare-lane")
        worker.start()
        check = self._watch()
        try:
            while not done.wait(min(1.0, self._ping_s)):
                check()
        except BaseException:
            self._lane_give_up()  # (ends the copy: its connections are shut)
            worker.join()
            raise
        worker.join()
        if not failed:
            return True
        self._lane_give_up()
        if isinstance(failed[0], (lanes.LaneError, OSError)):
            return False
        raise failed[0]

_NOT_PLAIN = object()


def _error_of(info: Any) -> BaseException:
    """A new exception for a call's error as the server sent it."""
    exc = errors.build_error(info)
    exc.__gpushare_info__ = info  # type: ignore[attr-defined]
    return exc


def _plain(value: Any) -> Any:
    """``value`` as ``Session._encode_call`` packs it directly, or ``_NOT_PLAIN``."""
    kind = type(value)
    if kind in PLAIN_TYPES:
        return value if kind is not int or INT_MIN <= value < INT_END else _NOT_PLAIN
    if isinstance(value, RemoteHandle):
        return _NOT_PLAIN if value._gs_session._poisoned else handle_ext(value._gs_id)
    if kind is msgpack.ExtType:
        return value  # packed already (a kernel launch's grid, block and arguments)
    if kind is tuple or kind is slice:
        ext = plain_ext(value)
    elif isinstance(value, numpy.dtype):
        ext = dtype_ext(value)
    else:
        return _NOT_PLAIN
    return _NOT_PLAIN if ext is None else ext


def _pack_calls(calls: list) -> bytes:
    """The calls of a batch as one stream of msgpack values: packed calls (bytes) as
    they are, and each run of operators' records (tuples) packed in one go, as an array
    whose header is then dropped."""
    try:
        return b"".join(calls)  # all packed already (the C path's records: the usual)
    except TypeError:
        pass
    pack = _RECORD_PACKER.pack
    parts: list = []
    start = 0
    for i, call in enumerate(calls):
        if type(call) is bytes:
            if start < i:
                run = pack(calls[start:i])
                parts.append(run[_array_header_size(i - start):])
            parts.append(call)
            start = i + 1
    if start < len(calls):
        n = len(calls) - start
        run = pack(calls[start:] if start else calls)
        parts.append(run[_array_header_size(n):])
    return b"".join(parts)


def _record(call: Any) -> Any:
    """An operator's record as a sequence: as queued (a tuple, ``Session.fast_op``) or
    packed already (bytes, the C path's: ``gpushare/_accel.c``)."""
    return msgpack.unpackb(call) if type(call) is bytes else call


def _array_header_size(n: int) -> int:
    """Bytes of msgpack's header of an array of ``n`` items."""
    return 1 if n < 16 else 3 if n < 1 << 16 else 5


def _handle_of(obj: Any) -> int | None:
    if isinstance(obj, RemoteHandle):
        session = obj._gs_session
        if session._poisoned:  # an operand whose making call failed: raise that failure
            session.raise_poisoned(obj._gs_id)  # again
        return obj._gs_id
    cupy_get = getattr(type(obj), "__cupy_get_ndarray__", None)
    if cupy_get is not None:  # CuPy's protocol for array-like wrappers
        return _handle_of(cupy_get(obj))
    return None


_session: Session | None = None
_session_lock = threading.Lock()
_embedded: Any = None
#: every session of this process, for ``_after_fork_in_child``
_sessions: "weakref.WeakSet[Session]" = weakref.WeakSet()


def _fork_error() -> BaseException:
    return errors.CUDARuntimeError(3, "cudaErrorInitializationError: initialization error")


def _after_fork_in_child() -> None:
    """``os.fork()`` (``multiprocessing``'s default start on Linux): the child cannot
    use the parent's sessions, as a CUDA process's child cannot use CUDA; a child of a
    process that never used gpushare starts a session of its own at its first call."""
    global _session_lock
    _session_lock = threading.Lock()
    for session in list(_sessions):
        session._after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def get_session() -> Session:
    """The process's session, connecting (or starting the embedded server) on first use."""
    global _session
    session = _session
    if session is not None and not session._closed and (session._lost is None or
                                                        session._forked):
        return session  # (a fork's copy raises CUDA's error at each call)
    with _session_lock:
        if _session is not None and _session._lost is not None and not _session._forked:
            # the loss was raised to the program already (its arrays keep raising it);
            # new work gets a new session rather than failing forever
            _session.close()
        if _session is None or _session._closed:
            _session = _connect()
        return _session


def _connect() -> Session:
    global _embedded
    address = os.environ.get("GPUSHARE_SERVER", "").strip()
    if not address or _embedded is not None and address == _embedded.address:
        from . import _hook
        from .embedded import start_embedded_server
        _embedded = start_embedded_server()
        address = _embedded.address
        session = Session(address, on_close=_embedded.stop)
        if _hook.installed():  # the program's children (``import cupy``) share it
            os.environ["GPUSHARE_SERVER"] = address
    else:
        session = Session(address)
    from .cupy import _ndarray  # installs the proxy factories
    _ndarray.install(session)
    return session


def reset_session() -> None:
    """Close the current session (tests use this to start afresh)."""
    global _session
    with _session_lock:
        if _session is not None:
            _session.close()
        _session = None
