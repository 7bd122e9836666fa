"""One session's executor: decodes call batches, runs them on a backend, encodes replies.

Sans-IO like the protocol: ``SessionExecutor.handle(frames) -> frames``. The worker
process (``worker.py``) owns the socket.

Ordering and errors: calls run in ``seq`` order. When a call fails, the rest of its
batch and every later batch are skipped (their results would depend on the failure)
until the client acknowledges the error (``"ack": seq`` in a later batch). The client
raises the error at its next point that waits.
"""
from __future__ import annotations

import contextlib
import functools
import logging
import os
import warnings
from operator import itemgetter
from typing import Any

import msgpack
import numpy

from gpushare import errors
from gpushare import lane as lanes
from gpushare.protocol import (CHUNK_BYTES, FLAG_C, FLAG_F, FLAG_OWN, STREAM_MIN, ArrayMeta,
                               Decoder, Encoder, HandleRef, HostArray, ProtocolError,
                               RemoteObject, dtype_to_wire, packb)

from . import lane
from .backends import check_view
from .handles import HandleTable

try:  # a run of operators' records in C (_records.c), where it was built
    from . import _records
except ImportError:  # pragma: no cover - no compiler where it was installed
    _records = None
if os.environ.get("GPUSHARE_ACCEL", "1") == "0":
    _records = None

log = logging.getLogger("gpushare.session")

#: dunder methods of arrays a client may call (operators go through ufuncs)
ARRAY_DUNDERS = frozenset({
    "__bool__", "__int__", "__float__", "__complex__", "__index__", "__len__", "__repr__",
    "__str__", "__format__", "__copy__", "__deepcopy__", "__array_namespace__", "__dlpack__",
    "__dlpack_device__", "__abs__", "__neg__", "__pos__", "__invert__", "__add__", "__radd__",
    "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
    "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__",
    "__matmul__", "__rmatmul__", "__and__", "__rand__", "__or__", "__ror__", "__xor__",
    "__rxor__", "__lshift__", "__rlshift__", "__rshift__", "__rrshift__", "__divmod__",
    "__rdivmod__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__iadd__",
    "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__", "__ipow__",
    "__imatmul__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__",
})


#: values ``_resolve`` passes through as they are
_PLAIN = frozenset({int, float, str, bool, bytes, type(None)})

#: the batch being run, for a backend that asks what comes after the running call (the
#: CPU backend, before a kernel launch: ``cpu_kernels.next_call_launches``): its
#: executor, decoder, calls frame and unpacker (read up to the running call's end)
RUNNING: list = [None, None, None, None]


class _WarningLog(list):
    """The warnings of the batch being run (``SessionExecutor.record_warnings``)."""

    def showwarning(self, message: Any, category: type, filename: str, lineno: int,
                    file: Any = None, line: Any = None) -> None:
        self.append(warnings.WarningMessage(message, category, filename, lineno, file, line))


#: results msgpack packs as the session's encoder would (no buffers, no handles)
_PLAIN_RESULTS = frozenset({float, bool, type(None)})
_NEVER = float("inf")  # (a position no call of a batch has)
#: the ``kinds`` an operator's record may have (``client.Session.fast_op``)
_RECORD_KINDS = frozenset((1, 2, 3, 4, 9, 11))


def _unwrap(value: Any) -> Any:
    return value.array if isinstance(value, HostArray) else value


class SessionExecutor:
    """Runs the calls of one session against one backend."""

    def __init__(self, backend: Any, output: Any = None) -> None:
        self.backend = backend
        self._output = output  # returns what the session's code printed since last asked
        self.outbox: list = []
        self._streams = 0
        self.handles = HandleTable()
        inplace = self._inplace = getattr(backend, "inplace", None)
        # (a CUDA graph's stream capture, where the backend emulates one: ``cpu_graph``)
        self._capture = getattr(backend, "capture", None)
        self._runner = _records.Runner(inplace) if _records is not None and \
            inplace is not None else None
        self.failed_seq: int | None = None  # set while an error is unacknowledged
        # set by an error after which the device is unusable (a sticky CUDA error: an
        # illegal address in a user kernel): the worker replies, then ends the session
        self.fatal: str | None = None
        self.fatal_status: int | None = None  # (its CUDA status, where it has one)
        self.calls = 0
        self._recorder: _WarningLog | None = None
        # (while ``record_warnings`` is in force: what it installed, and its context)
        self._recording: Any = None
        self._showwarning: Any = None
        self._first_filter: Any = None
        # called as after_call(out_id, result) once a call's result is stored; it may
        # raise to fail the call (the memory quota, see quota.py)
        self.after_call: Any = None
        # the session's memory limit (quota.MemoryQuota): the server's --memory-limit,
        # or the client's MemoryPool.set_limit; None while neither was set
        self.quota: Any = None
        # the shared-memory ring (same-host clients, opt-in; see shm.py); the worker
        # says whether this server offers it (shm.allowed)
        self.shm_allowed = False
        self._shm: Any = None          # confirmed segment
        self._shm_pending: Any = None  # created, waiting for the client's nonce
        self._downs: list = []         # downloads to write into the ring after the reply
        self.shm_bytes = [0, 0]        # bytes copied through the ring: in, out
        # the bulk lane (plain TCP connections for big copies; see lane.py): the worker
        # says how many connections a client may open (0: not offered) and where
        self.lane_streams = 0
        self.lane_bind: str | None = None
        self._lane: list | None = None      # the connections, once confirmed
        self._lane_listener: Any = None     # listening, between lane_open and _confirm
        self._lane_downs: list = []         # downloads to write on it after the reply
        self.lane_bytes = [0, 0]            # bytes copied through it: in, out
        # the express connection (small messages on plain TCP; see gpushare/express.py):
        # where the worker may listen for it (None: not offered); once confirmed, the
        # connected socket, until the worker's loop takes it
        self.express_bind: str | None = None
        self._express_listener: Any = None
        self.express_socket: Any = None

    def _quota(self) -> Any:
        if self.quota is None:
            from .quota import MemoryQuota
            MemoryQuota(self.backend, 0).install(self)
        return self.quota

    def record_warnings(self) -> None:
        """Record every warning of this process for the batch being run, once and for
        all (cheaper than a recorder per batch). For a process that runs nothing but
        this session (the worker): it changes ``warnings``' global state."""
        self._recorder = _WarningLog()
        self._recording = contextlib.nullcontext(self._recorder)
        warnings.simplefilter("always")
        self._first_filter = warnings.filters[0]
        warnings.showwarning = self._showwarning = self._recorder.showwarning

    # --- messages ---------------------------------------------------------------
    def handle(self, frames: list) -> list:
        """Handle one client message; return the reply frames."""
        decoder = Decoder(frames, host_array=HostArray, writable=False)
        try:
            header = decoder.decode(0)
            if not isinstance(header, dict):
                raise ProtocolError("message header is not a map")
            kind = header.get("t")
            if kind != "batch":
                raise ProtocolError(f"unexpected message kind {kind!r}")
            if "shm" in header:
                return self._shm_message(header.get("shm"))
            if "lane" in header:
                return self._lane_message(header.get("lane"))
            if "chunk" in header:
                return self._chunk(header, frames)
            return self._batch(header, decoder)
        except ProtocolError as exc:
            return Encoder().encode({"t": "protocol_error", "error": str(exc)})

    def _chunk(self, header: dict, frames: list) -> list:
        """Write one chunk of a streamed upload into its array (no reply)."""
        try:
            hid, offset = header["chunk"]
            data = frames[2] if len(frames) > 2 else b""
            data = data.buffer if hasattr(data, "buffer") else data
            arr = self._upload_target(hid, offset, memoryview(data).nbytes)
            self.backend.write_bytes(arr, offset, data)
        except Exception as exc:  # noqa: BLE001 - the upload's array stays as it is
            log.debug("dropped an upload chunk: %s", exc)
        return []

    def _upload_target(self, hid: Any, offset: Any, nbytes: int) -> Any:
        """Array ``hid``, when ``nbytes`` bytes at byte ``offset`` of its memory are
        inside it; else ValueError. (What a client streams into is a contiguous array
        of its own: the backends' ``write_bytes`` copies raw bytes from ``offset``, so
        a negative offset, or a view's strides, would put them elsewhere.)"""
        arr = self.handles.get(hid)
        if not self.backend.is_array(arr) or \
                not (arr.flags.c_contiguous or arr.flags.f_contiguous) or \
                type(offset) is not int or offset < 0 or offset + nbytes > arr.nbytes:
            raise ValueError("the upload does not fit its array")
        return arr

    def take_outbox(self) -> Any:
        """Messages to send after the reply (the chunks of streamed downloads). After a
        shared-memory download's reply, an iterable that, once those are sent, writes
        the download into the ring (``_fill_ring``) and yields nothing more."""
        out, self.outbox = self.outbox, []
        if any(callable(m) for m in out):  # chunks copied from the device as they go
            out = (m() if callable(m) else m for m in out)
        if self._lane_downs:
            return self._send_lane(out)
        if not self._downs:
            return out
        return self._fill_ring(out)

    # --- the bulk lane (plain TCP connections for big copies; see lane.py) --------
    def _lane_open(self, kwargs: Any) -> Any:
        """Listen for the client's lane connections; answer where, and the token they
        must bring (None: no lane here)."""
        streams = kwargs.get("streams") if isinstance(kwargs, dict) else None
        if type(streams) is not int or not 1 <= streams <= lanes.MAX_STREAMS:
            raise ValueError("lane_open: streams must be an integer from 1 to "
                             f"{lanes.MAX_STREAMS}")
        self._lane_drop()
        if not self.lane_streams or not self.lane_bind:
            return None
        try:
            listener = lane.Listener(self.lane_bind, min(streams, self.lane_streams))
        except OSError as exc:  # stream as messages instead
            log.debug("no bulk lane: %s", exc)
            return None
        self._lane_listener = listener
        return listener.offer()

    def _express_open(self) -> Any:
        """Listen for the client's express connection; answer where, and the token it
        must bring (None: not offered here)."""
        self._express_drop()
        if not self.express_bind:
            return None
        try:
            listener = lane.Listener(self.express_bind, 1)
        except OSError as exc:
            log.debug("no express connection: %s", exc)
            return None
        self._express_listener = listener
        return listener.offer()

    def _express_confirm(self) -> bool:
        """Take the client's express connection (made before it asked)."""
        listener, self._express_listener = self._express_listener, None
        socks = self._accepted(listener, "express connection")
        if socks is None:
            return False
        self.express_socket = socks[0]
        return True

    @staticmethod
    def _accepted(listener: Any, what: str) -> list | None:
        """The client's connections to ``listener`` (a ``lane.Listener``, or None);
        None when there is none, or they did not come."""
        if listener is None:
            return None
        try:
            return listener.accept()
        except lanes.LaneError as exc:
            log.warning("no %s: %s", what, exc)
            return None

    def _express_drop(self) -> None:
        if self._express_listener is not None:
            self._express_listener.close()
        if self.express_socket is not None:
            self.express_socket.close()
        self._express_listener = self.express_socket = None

    def _lane_confirm(self) -> bool:
        """Take the client's connections (they were made before it asked)."""
        listener, self._lane_listener = self._lane_listener, None
        self._lane = self._accepted(listener, "bulk lane")
        return self._lane is not None

    def _lane_drop(self) -> None:
        if self._lane_listener is not None:
            self._lane_listener.close()
        if self._lane is not None:
            lanes.close(self._lane)
        self._lane = self._lane_listener = None
        self._lane_downs = []

    def _lane_message(self, value: Any) -> list:
        """A client's upload on the lane (numbered like a chunk; no reply):
        ``["up", hid, nbytes]``. Read the parts into array ``hid`` (or drop them when
        it cannot take them: its creation failed, and that error surfaces at the
        client's next wait), then say ``DONE`` on connection 0. Without a lane (we
        closed it: the client's writes fail and it streams the copy instead), nothing."""
        socks = self._lane
        if socks is None or not (isinstance(value, list) and len(value) == 3 and
                                 value[0] == "up" and type(value[1]) is int and
                                 type(value[2]) is int and value[2] >= 0):
            return []
        hid, total = value[1], value[2]
        arr = None
        try:
            arr = self.handles.get(hid)
            if not self.backend.is_array(arr) or int(arr.nbytes) != total or \
                    not (arr.flags.c_contiguous or arr.flags.f_contiguous):
                raise ValueError("the upload does not fit its array")
        except Exception as exc:  # noqa: BLE001 - the upload's array stays as it is
            log.debug("an upload on the lane goes nowhere: %s", exc)
            arr = None
        try:
            lane.receive_into(socks, self.backend, arr, total)
            socks[0].sendall(lanes.DONE)
        except Exception as exc:  # noqa: BLE001 - the client repeats it as chunks
            log.warning("bulk lane closed: an upload failed (%s)", exc)
            self._lane_drop()
            return []
        if arr is not None:
            self.lane_bytes[0] += total
        return []

    def _lane_download(self, arr: Any) -> dict:
        """Queue ``arr`` to be written on the lane once the reply carrying this
        descriptor is sent (``take_outbox``)."""
        if not (arr.flags.c_contiguous or arr.flags.f_contiguous):
            arr = self.backend.function("cupy.ascontiguousarray")(arr)
        f = arr.flags.f_contiguous and not arr.flags.c_contiguous
        self._streams += 1
        self._lane_downs.append(arr)
        return {"stream": self._streams, "lane": True, "ack": lane.pages_handed(self.backend, arr),
                "descr": dtype_to_wire(arr.dtype),
                "shape": list(arr.shape), "order": "F" if f else "C",
                "nbytes": int(arr.nbytes)}

    def _send_lane(self, first: Any) -> Any:
        """Yield ``first``, then write the queued downloads on the lane."""
        yield from first
        downs, self._lane_downs = self._lane_downs, []
        for arr in downs:
            socks = self._lane
            if socks is None:
                return
            try:
                self.backend.synchronize()  # work on any stream that writes ``arr`` is done
                lane.send_from(socks, self.backend, arr)
            except Exception as exc:  # noqa: BLE001 - the client asks again, as chunks
                log.warning("bulk lane closed: a download failed (%s)", exc)
                self._lane_drop()
                return
            self.lane_bytes[1] += int(arr.nbytes)

    # --- shared memory (same host, opt-in; the segment is ours, see shm.py) -------
    def _shm_open(self, args: Any, kwargs: Any) -> Any:
        from . import shm
        if args or set(kwargs) - {"slots", "slot_bytes"}:
            raise TypeError("shm_open takes only slots= and slot_bytes=")
        slots, slot_bytes = kwargs.get("slots", 4), kwargs.get("slot_bytes", 1 << 20)
        shm.check_ring(slots, slot_bytes)  # a refused request leaves the ring as it is
        self._shm_drop()
        if not self.shm_allowed:
            return None
        try:
            seg = shm.open_segment(slots, slot_bytes)
        except Exception as exc:  # noqa: BLE001 - no /dev/shm, no space: stream instead
            log.debug("no shared-memory ring: %s", exc)
            return None
        self._shm_pending = seg
        return {"name": seg.name, "size": seg.size, "slots": seg.slots,
                "slot_bytes": seg.slot_bytes, "header": shm.HEADER}

    def _shm_confirm(self, args: Any) -> bool:
        import hmac
        seg = self._shm_pending
        self._shm_pending = None
        if seg is None:
            return False
        nonce = args[0] if len(args) == 1 else None
        if not isinstance(nonce, str) or not hmac.compare_digest(nonce, seg.nonce.hex()):
            seg.close()
            return False
        seg.unlink()  # both sides have it mapped: nothing to leak from here on
        seg.confirmed = True
        self._shm = seg
        return True

    def _shm_drop(self) -> None:
        for seg in (self._shm, self._shm_pending):
            if seg is not None:
                seg.close()  # (sets the abort word: a client waiting on it stops)
        self._shm = self._shm_pending = None
        self._downs = []

    def _shm_wait(self, index: int, target: int) -> None:
        """Wait until the client's counter ``index`` reaches ``target``; ``shm.Aborted``
        when the client gave up, or after ``shm.TIMEOUT`` seconds without it."""
        from gpushare.shm import Aborted, wait

        from .shm import TIMEOUT

        def idle(waited: float) -> None:
            if waited > TIMEOUT:
                raise Aborted(f"the client made no progress for {TIMEOUT:.0f} s")
        wait(self._shm.words, index, target, idle)

    def _shm_abort(self, exc: Exception) -> None:
        """Give up on the ring (the client learns it from the abort word); later copies
        stream as messages."""
        log.warning("shared-memory copy abandoned: %s", exc)
        self._shm_drop()

    def _shm_message(self, value: Any) -> list:
        """A client's upload through the ring (numbered like a chunk; no reply):
        ``["up", xfer, hid, offset, nbytes, base]``. Empty each slot into array ``hid``
        at ``offset`` as the client's count says it is full, and count it emptied; back
        to the loop once all ``nbytes`` are in (the worker serves nothing meanwhile).
        Slots of an array that cannot take them (its creation failed: that error
        surfaces at the client's next wait) are emptied all the same."""
        from gpushare.shm import ABORT, UP_CONSUMED, UP_PRODUCED, XFER, Aborted
        seg = self._shm
        if seg is None or not (isinstance(value, list) and len(value) == 6 and
                               value[0] == "up" and all(type(v) is int for v in value[1:])):
            return []
        if seg.words[ABORT]:  # the client left the ring (it sends no more of these)
            self._shm_drop()
            return []
        xfer, hid, offset, total, base = value[1:]
        words = seg.words
        if base != words[UP_CONSUMED] or total < 0:  # not where we are: the ring is lost
            self._shm_abort(ValueError("an upload out of step with the ring"))
            return []
        arr = None
        try:
            arr = self._upload_target(hid, offset, total)
        except Exception as exc:  # noqa: BLE001 - the upload's array stays as it is
            log.debug("an upload through the ring goes nowhere: %s", exc)
            arr = None
        words[XFER] = xfer
        slots, slot_bytes, done = seg.slots, seg.slot_bytes, base
        try:
            for pos in range(0, total, slot_bytes):
                if words[UP_PRODUCED] <= done:  # not filled yet
                    self._shm_wait(UP_PRODUCED, done + 1)
                if arr is not None:
                    size = min(slot_bytes, total - pos)
                    try:
                        self.backend.write_bytes(arr, offset + pos,
                                                 seg.slot(done % slots)[:size])
                        self.shm_bytes[0] += size
                    except Exception as exc:  # noqa: BLE001
                        log.debug("dropped an upload slot: %s", exc)
                        arr = None
                done += 1
                words[UP_CONSUMED] = done
        except Aborted as exc:
            self._shm_abort(exc)
        return []

    def _shm_download(self, arr: Any) -> dict:
        """Queue ``arr`` to be written through the ring once the reply carrying this
        descriptor is sent (``take_outbox``); ``base``: the count of download slots
        before its first. Streamed as messages instead once the client left the ring."""
        from gpushare.shm import ABORT, DOWN_PRODUCED
        if self._shm.words[ABORT]:
            self._shm_drop()
            return self._stream(self.backend.download(arr))
        if not (arr.flags.c_contiguous or arr.flags.f_contiguous):
            arr = self.backend.function("cupy.ascontiguousarray")(arr)
        f = arr.flags.f_contiguous and not arr.flags.c_contiguous
        self._streams += 1
        slot_bytes = self._shm.slot_bytes
        if self._downs:
            before, size, _ = self._downs[-1]
            base = before + -(-size // slot_bytes)
        else:
            base = int(self._shm.words[DOWN_PRODUCED])
        self._downs.append((base, int(arr.nbytes), arr))
        return {"stream": self._streams, "shm": True, "base": base,
                "descr": dtype_to_wire(arr.dtype), "shape": list(arr.shape),
                "order": "F" if f else "C", "nbytes": int(arr.nbytes)}

    def _fill_ring(self, first: list) -> Any:
        """Yield ``first``, then write the queued downloads into the ring: fill each
        slot as the client's count says it is free, and count it filled."""
        from gpushare.shm import DOWN_CONSUMED, DOWN_PRODUCED
        yield from first
        downs, self._downs = self._downs, []
        seg = self._shm
        for base, total, arr in downs:
            if seg is None or self._shm is not seg:
                return
            slots, slot_bytes, words = seg.slots, seg.slot_bytes, seg.words
            done = base
            try:
                for pos in range(0, total, slot_bytes):
                    if words[DOWN_CONSUMED] <= done - slots:  # every slot is full
                        self._shm_wait(DOWN_CONSUMED, done + 1 - slots)
                    size = min(slot_bytes, total - pos)
                    self.backend.read_bytes(arr, pos, seg.slot(done % slots)[:size])
                    self.shm_bytes[1] += size
                    done += 1
                    words[DOWN_PRODUCED] = done
            except Exception as exc:  # noqa: BLE001 - never raise into the worker's loop;
                self._shm_abort(exc)  # the client gets an error, not wrong bytes
                return

    def _stream(self, host: Any) -> dict:
        """Queue ``host`` as chunk messages; return the descriptor the reply carries."""
        import numpy
        f = host.flags.f_contiguous and not host.flags.c_contiguous
        if not (host.flags.c_contiguous or f):
            host = numpy.ascontiguousarray(host)
        flat = memoryview(host.reshape(-1, order="A").view(numpy.uint8))
        self._streams += 1
        sid = self._streams
        for offset in range(0, flat.nbytes, CHUNK_BYTES):
            head = msgpack.packb({"t": "chunk", "stream": sid, "offset": offset})
            self.outbox.append([head, flat[offset:offset + CHUNK_BYTES]])
        return {"stream": sid, "descr": dtype_to_wire(host.dtype), "shape": list(host.shape),
                "order": "F" if f else "C", "nbytes": flat.nbytes}

    def _stream_device(self, arr: Any) -> dict:
        """Like ``_stream``, for a C-contiguous array in device memory: each chunk is
        copied to the host only when its turn to be sent comes (``take_outbox``), so the
        copies of later chunks overlap the sending of earlier ones instead of the whole
        array crossing to the host first."""
        import numpy
        self.backend.synchronize()  # work on any stream that writes ``arr`` is done
        self._streams += 1
        sid = self._streams
        nbytes = int(arr.nbytes)

        def chunk(offset: int) -> list:
            buf = numpy.empty(min(CHUNK_BYTES, nbytes - offset), numpy.uint8)
            self.backend.read_bytes(arr, offset, buf)
            return [msgpack.packb({"t": "chunk", "stream": sid, "offset": offset}), buf]
        for offset in range(0, nbytes, CHUNK_BYTES):
            self.outbox.append(functools.partial(chunk, offset))
        return {"stream": sid, "descr": dtype_to_wire(arr.dtype), "shape": list(arr.shape),
                "order": "C", "nbytes": nbytes}

    def _batch(self, header: dict, decoder: Decoder) -> list:
        ack = header.get("ack")
        if ack is not None and ack == self.failed_seq:
            self.failed_seq = None
        # each release says how many of this batch's calls were queued before it: a call
        # queued before its operand's proxy died still sees the operand
        releases = header.get("release")
        releases = self._releases(releases) if releases else ()
        next_release = 0
        results: list = []
        error: list | None = None
        skipped: list = []
        upto = header.get("upto")
        encoder = None  # (made for the first result that is not a plain value)
        size = header.get("n", 0)
        if type(size) is not int:
            raise ProtocolError(f"malformed batch: n is {size!r}")
        if size:
            unpacker, data = decoder.stream(1)
            calls = decoder.iter_stream(1, unpacker)
            RUNNING[:] = self, decoder, data, unpacker
        else:
            calls = ()
        # warnings of the whole batch travel with its reply (even those of a call that
        # then failed): recorded by the process-wide recorder when the worker installed
        # one (``record_warnings``), else by one recorder per batch
        recorder = self._recorder
        if recorder is not None:
            recorder.clear()
            filters = warnings.filters
            if not filters or filters[0] is not self._first_filter or \
                    warnings.showwarning is not self._showwarning:
                self.record_warnings()  # something changed the process's warning state
                recorder = self._recorder
            recording: Any = self._recording
        else:
            recording = warnings.catch_warnings(record=True)
        # (the names the loop uses, looked up once: a batch is often one or two calls)
        run, resolve, plain = self._run, self._resolve, _PLAIN
        store, after_call = self._store, self.after_call
        get, put = self.handles.get, self.handles.put
        function, normalize = self.backend.function, self.backend.normalize
        # (an operator's record has handles and plain scalars only: a backend may give
        # its ufunc without the wrapper that hands host data over, ``record_function``)
        record_fn = getattr(self.backend, "record_function", function)
        # An operator's result that the next call alone uses (the client releases it
        # right after: ``x = x + 1`` in a loop) need never be stored: the next call, if
        # the backend can, computes its own result into it (``Backend.inplace``). Until
        # then it is carried: (out_id, array), and stored if the next call cannot.
        inplace = self._inplace
        intos: dict = {}  # target -> inplace(target) (None without one), for this batch
        carry: tuple | None = None
        dies: dict | None = None  # handle id -> the position of its release in the batch
        if inplace is not None and releases:
            dies = {}
            for pos, hid in reversed(releases):
                dies[hid] = pos
        # (per call, the loop below reads locals only: it runs once for every operator)
        objects, release = self.handles.objects, self.handles.release
        next_at = releases[0][0] if releases else _NEVER  # the next release's position
        failed, count = self.failed_seq, 0
        # a run of records carrying one result, in C where it was built (_records.c)
        runner = self._runner if dies is not None else None
        capture = self._capture
        if capture is not None and capture.active:
            # a stream is capturing a CUDA graph on a backend that emulates it (the CPU
            # backend's ``cpu_graph``): every call goes through the capture, which checks
            # and records it; nothing is carried
            function, run = capture.function(function), capture.run(run)
            record_fn = function
            inplace = dies = runner = None
        index = -1
        with recording as caught:
            if recorder is None:
                warnings.simplefilter("always")
            for call in calls:
                index += 1
                if index >= next_at:
                    # (the last call's result, held here, must not outlive its release:
                    # CuPy's pool would count it used; the GPU: ``del a`` then
                    # ``pool.used_bytes()`` in one batch still saw ``a``)
                    result = x = y = r = None
                    while next_release < len(releases) and releases[next_release][0] <= index:
                        hid = releases[next_release][1]
                        if hid in objects:  # (a carried array never was)
                            release(hid)
                        next_release += 1
                    next_at = releases[next_release][0] if next_release < len(releases) \
                        else _NEVER
                if type(call) is list and len(call) == 6:
                    # an operator's record (``client.Session.fast_op``): [seq, kinds,
                    # target, a, b, out_id]: target(a, b), kinds saying which of a and b
                    # are handles (bits 0 and 1); target(a) for a handle a (kinds 4);
                    # target(a, b, out=a) (bit 3, with bit 0; out_id is a)
                    seq, kinds, target, a, b, out_id = call
                    if type(seq) is not int or type(target) is not str or \
                            type(kinds) is not int or kinds not in _RECORD_KINDS or \
                            type(out_id) is not int or \
                            kinds == 4 and b is not None or kinds & 8 and out_id != a:
                        raise ProtocolError(f"malformed call {call!r}")
                    record = True
                else:
                    record = False
                    try:
                        seq, op, target, args, kwargs, out_id, want = call
                    except (TypeError, ValueError):
                        raise ProtocolError(f"malformed call {call!r}") from None
                    if out_id is not None and type(out_id) is not int and (
                            type(out_id) is not list or
                            any(type(hid) is not int for hid in out_id)):
                        raise ProtocolError(f"malformed call {call!r}")
                upto = seq
                if failed is not None:
                    skipped.append([seq, out_id])
                    continue
                count += 1
                if record:
                    try:
                        if kinds & 8:  # a op= b: into a itself, no new array
                            if carry is not None:  # (stored: this is no chain)
                                put(carry[0], carry[1])
                                carry = None
                            x = get(a)
                            record_fn(target)(x, get(b) if kinds & 2 else b, out=x)
                            continue
                        into = intos.get(target, False)
                        if into is False:
                            into = intos[target] = inplace(target) if inplace else None
                        if carry is None:
                            result = normalize(record_fn(target)(get(a)) if kinds == 4
                                               else record_fn(target)(
                                get(a) if kinds & 1 else a, get(b) if kinds & 2 else b))
                        else:
                            # the last call's result, which this call alone may use
                            cid, r = carry
                            x = (r if a == cid else get(a)) if kinds & 5 else a
                            y = (r if b == cid else get(b)) if kinds & 2 else b
                            if into is not None and (x is r or y is r) and into(r, x, y):
                                result = r  # computed into it: it was never seen
                                carry = None
                            else:  # stored after all, for this call and any later
                                put(cid, r)
                                carry = None
                                result = normalize(record_fn(target)(x) if kinds == 4
                                                   else record_fn(target)(x, y))
                        if into is not None and dies is not None and \
                                dies.get(out_id) == index + 2:
                            # a new array (an elementwise ufunc's) the next call alone
                            # may use: counted against the memory limit now, as if
                            # stored (its own call fails if it does not fit)
                            if after_call is not None:
                                after_call(out_id, result)
                            carry = (out_id, result)
                            if runner is None:
                                continue
                            # the records after it that the runner takes (it stops
                            # before the first it does not: the loop goes on there)
                            start = unpacker.tell()
                            end, index, next_release, cid, ran, seq, exc = runner.run(
                                data, start, index + 1, releases, next_release, dies,
                                objects, release, out_id, result, after_call)
                            index -= 1  # (the next call's index, less the loop's step)
                            if not ran:
                                continue
                            unpacker.read_bytes(end - start)
                            next_at = 0  # (the releases due: found at the next call)
                            count += ran
                            upto = seq
                            if exc is None:
                                carry = (cid, result)
                                continue
                            raise exc
                        store(out_id, result)
                        if after_call is not None:
                            after_call(out_id, result)
                    except ProtocolError:
                        raise
                    except BaseException as exc:  # noqa: BLE001 - as below
                        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                            raise
                        carry = None  # (its only user failed: it is never seen)
                        self._failed(seq, exc)
                        failed = self.failed_seq
                        error = [seq, self._error_info(exc)]
                    continue
                if carry is not None:
                    put(carry[0], carry[1])
                    carry = None
                try:
                    # (``_resolve``, with its most common case, a list, taken here)
                    if type(args) is list:
                        args = [v if type(v) in plain else resolve(v) for v in args]
                        if op == "call" and kwargs == {} and type(target) is str:
                            # the most common call (an operator): what ``_run`` does
                            result = normalize(function(target)(*args))
                        else:
                            result = run(op, target, args, resolve(kwargs) if kwargs
                                         else kwargs)
                    else:
                        result = run(op, target, resolve(args),
                                     resolve(kwargs) if kwargs else kwargs)
                    if out_id is not None:
                        store(out_id, result)
                    if after_call is not None:
                        after_call(out_id, result)
                    if want:  # (a float, a bool, None: ``float(x)``'s, packed directly)
                        if type(result) in _PLAIN_RESULTS:
                            results.append([seq, packb(result)])
                        else:
                            if encoder is None:
                                encoder = Encoder(remote_of=self._remote_of, first_frame=1)
                            results.append([seq, encoder.pack(result)])
                except ProtocolError:
                    raise
                except BaseException as exc:  # noqa: BLE001 - every user error goes back
                    if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                        raise
                    self._failed(seq, exc)
                    failed = self.failed_seq
                    error = [seq, self._error_info(exc)]
            if carry is not None:
                put(carry[0], carry[1])
        RUNNING[:] = None, None, None, None
        self.calls += count
        batch_warnings = [[errors.warning_key(w.category, None), str(w.message)]
                          for w in caught]
        for _, hid in releases[next_release:]:
            self.handles.release(hid)
        if index + 1 != size:  # (a call cut short is none: the frame ends before it)
            # what ran, ran; the client hears that its batch was not what it said
            raise ProtocolError(f"malformed batch: n is {size}, its frame holds "
                                f"{index + 1} whole calls")
        reply: dict = {"t": "done", "upto": upto, "results": results}
        if error is not None:  # (absent keys are empty: the usual reply stays small)
            reply["error"] = error
            if self.fatal is not None:  # (a sticky CUDA error: the worker ends after this
                reply["fatal"] = True   # reply, and the client's session with it)
        if skipped:
            reply["skipped"] = skipped
        if batch_warnings:
            reply["warnings"] = batch_warnings
        if self._output is not None:
            printed = self._output()
            if printed:
                reply["output"] = printed
        # plain values only (results are packed already, their buffers in the encoder's
        # frames), so no encoder is needed for the reply itself
        return [packb(reply), *encoder.frames] if encoder is not None else [packb(reply)]

    def _error_info(self, exc: BaseException) -> list:
        """``exc`` for the wire, as the backend words it (``Backend.restate_error``,
        optional: the CPU backend's host ``MemoryError`` as CuPy's)."""
        restate = getattr(self.backend, "restate_error", None)
        if restate is not None:
            exc = restate(exc, self.handles.values())
        return errors.error_info(exc, self.backend.error_keys)

    def _failed(self, seq: int, exc: BaseException) -> None:
        """Call ``seq`` raised ``exc``: the calls after it are skipped until the client
        acknowledges the error."""
        self.failed_seq = seq
        is_fatal = getattr(self.backend, "is_fatal", None)
        if is_fatal is not None and is_fatal(exc):
            self.fatal = f"{type(exc).__name__}: {exc}"
            status = getattr(exc, "status", None)
            self.fatal_status = status if type(status) is int else None

    @staticmethod
    def _releases(items: Any) -> list:
        if type(items) is not list:
            raise ProtocolError(f"malformed release list {items!r}")
        out = []
        for item in items:
            if type(item) is list and len(item) == 2 and type(item[0]) is int and \
                    type(item[1]) is int:
                out.append((item[0], item[1]))
            else:
                raise ProtocolError(f"malformed release {item!r}")
        if len(out) > 1:
            out.sort(key=itemgetter(0))
        return out

    # --- calls ------------------------------------------------------------------
    def _run(self, op: str, target: Any, args: Any, kwargs: Any) -> Any:
        backend = self.backend
        if not isinstance(args, list) or not isinstance(kwargs, dict):
            raise ProtocolError("call arguments must be a list and a map")
        if op == "call":
            return backend.normalize(backend.function(str(target))(*args, **kwargs))
        if op == "ufunc_method":
            method = args[0]
            if method not in ("reduce", "accumulate", "reduceat", "outer", "at"):
                raise AttributeError(f"'ufunc' object has no attribute {method!r}")
            fn = backend.function(str(target))
            fn = getattr(fn, "__wrapped__", fn)
            if method == "at" and hasattr(backend, "ufunc_at"):  # (the CPU backend's)
                return backend.ufunc_at(fn, *args[1:], **kwargs)
            return backend.normalize(getattr(fn, method)(*args[1:], **kwargs))
        if op == "method":
            obj, rest = args[0], args[1:]
            name = str(target)
            if name.startswith("__") and backend.is_array(obj) and name not in ARRAY_DUNDERS:
                raise AttributeError(f"gpushare: method {name} is not served")
            return backend.normalize(backend.method(obj, name)(*rest, **kwargs))
        if op == "getattr":
            return backend.get_attribute(args[0], str(target))
        if op == "setattr":
            backend.set_attribute(args[0], str(target), args[1])
            return None
        if op == "getitem":
            return backend.getitem(args[0], args[1])
        if op == "setitem":
            backend.setitem(args[0], args[1], args[2])
            return None
        if op == "pointer":
            arr = args[0]
            root = arr
            while backend.is_array(getattr(root, "base", None)):
                root = root.base
            owner = getattr(backend, "memory_owner", None)  # (the CuPy backend's imports)
            if owner is not None:
                root = owner(root, self.handles.values())
            return [root, backend.address(arr) - backend.address(root)]
        if op == "from_pointer":
            root, offset, shape, dtype, strides = args
            check_view(root.nbytes, int(offset), tuple(shape), numpy.dtype(dtype).itemsize,
                       strides)
            return backend.view_of(*args)
        if op == "flat_getitem":
            return backend.normalize(args[0].flat[_unwrap(args[1])])
        if op == "flat_setitem":
            args[0].flat[_unwrap(args[1])] = _unwrap(args[2])
            return None
        if op == "upload":
            return backend.upload(args[0], **kwargs)
        if op == "download":
            capturing = getattr(backend, "capturing", None)
            if capturing is not None and capturing():
                return HostArray(backend.download(args[0]))  # CuPy's get refuses it
            if self._shm is not None and backend.is_array(args[0]) and \
                    args[0].nbytes >= STREAM_MIN:
                return self._shm_download(args[0])
            if self._lane is not None and backend.is_array(args[0]) and \
                    args[0].nbytes >= lanes.LANE_MIN:
                return self._lane_download(args[0])
            arr = args[0]
            if getattr(backend, "chunked_download", False) and backend.is_array(arr) and \
                    arr.nbytes >= STREAM_MIN and arr.flags.c_contiguous:
                return self._stream_device(arr)
            host = backend.download(arr)
            if host.nbytes >= STREAM_MIN:
                return self._stream(host)
            return HostArray(host)
        if op == "upload_begin":
            shape, dtype = args
            return backend.empty(tuple(shape), dtype, kwargs.get("order", "C"))
        if op == "shm_open":
            return self._shm_open(args, kwargs)
        if op == "shm_confirm":
            return self._shm_confirm(args)
        if op == "shm_close":
            self._shm_drop()
            return None
        if op == "express_open":
            return self._express_open()
        if op == "express_confirm":
            return self._express_confirm()
        if op == "express_close":
            self._express_drop()
            return None
        if op == "device_attributes":  # (``Device.attributes``: one round trip)
            codes, device = args
            attribute = backend.function("cupy.cuda.runtime.deviceGetAttribute")
            values = []
            for code in codes:
                try:
                    values.append(int(attribute(int(code), int(device))))
                except Exception as exc:  # noqa: BLE001 - CUDA's, raised as the loop's
                    if getattr(exc, "status", None) != 1:  # (cudaErrorInvalidValue:
                        raise                              # an attribute it lacks)
                    values.append(None)
            return values
        if op == "lane_open":
            return self._lane_open(kwargs)
        if op == "lane_confirm":
            return self._lane_confirm()
        if op == "lane_close":
            self._lane_drop()
            return None
        if op == "memory":
            if target == "set_limit":  # cupy.cuda.MemoryPool.set_limit (see quota.py)
                self._quota().set_session_limit(int(args[0]))
                return None
            if target == "get_limit":
                return self.quota.limit if self.quota is not None else 0
            return backend.memory(str(target), self.handles.values())
        if op == "info":
            info = backend.info()
            info["handles"] = len(self.handles)
            info["pid"] = os.getpid()
            info["calls"] = self.calls
            info["shm"] = {"active": self._shm is not None, "bytes_in": self.shm_bytes[0],
                           "bytes_out": self.shm_bytes[1]}
            info["lane"] = {"active": self._lane is not None, "bytes_in": self.lane_bytes[0],
                            "bytes_out": self.lane_bytes[1],
                            "streams": len(self._lane or ())}
            return info
        if op == "synchronize":
            backend.synchronize()
            return None
        if op == "meta":
            arr = args[0]
            meta = self.array_meta(arr)
            base = arr.base if meta.base_id is not None else None
            return [list(meta.shape), meta.dtype, list(meta.strides), meta.flags, base]
        raise ProtocolError(f"unknown operation {op!r}")

    def _resolve(self, value: Any) -> Any:
        """Replace handle references by the objects they name."""
        kind = type(value)
        if kind in _PLAIN:
            return value
        if kind is HandleRef:
            return self.handles.get(value.id)
        if kind is list:
            return [v if type(v) in _PLAIN else self._resolve(v) for v in value]
        if kind is dict:
            return {k: v if type(v) in _PLAIN else self._resolve(v) for k, v in value.items()}
        if isinstance(value, HandleRef):
            return self.handles.get(value.id)
        if isinstance(value, list):
            return [self._resolve(v) for v in value]
        if isinstance(value, tuple):
            items = tuple(self._resolve(v) for v in value)
            # a namedtuple (the decoder's, by name: an mdspan argument) keeps its type
            return items if kind is tuple else kind(*items)
        if isinstance(value, dict):
            return {k: self._resolve(v) for k, v in value.items()}
        if isinstance(value, slice):
            return slice(self._resolve(value.start), self._resolve(value.stop),
                         self._resolve(value.step))
        return value

    def _store(self, out_id: Any, result: Any) -> None:
        if isinstance(out_id, list):  # several results, one id each
            if not isinstance(result, (tuple, list)) or len(result) != len(out_id):
                raise TypeError("gpushare: result count does not match")
            for hid, value in zip(out_id, result):
                self.handles.put(hid, value)
            return
        if not self.backend.is_array(result) and type(result).__name__ not in \
                self.backend.remote_types:
            raise TypeError(f"gpushare: expected an array, the call returned "
                            f"{type(result).__name__}")
        self.handles.put(out_id, result)

    def _remote_of(self, obj: Any) -> Any:
        """Arrays and other server objects in a reply travel as handles."""
        backend = self.backend
        if backend.is_array(obj):
            return self.array_meta(obj)
        if type(obj).__name__ in backend.remote_types:
            hid = self.handles.add(obj)
            return RemoteObject(hid, type(obj).__name__, {})
        return None

    def array_meta(self, arr: Any) -> ArrayMeta:
        hid = self.handles.add(arr)
        flags = arr.flags
        bits = (FLAG_C if flags.c_contiguous else 0) | (FLAG_F if flags.f_contiguous else 0) | \
               (FLAG_OWN if flags.owndata else 0)
        base_id = None
        if arr.base is not None:
            base_id = self.handles.find(arr.base)
        return ArrayMeta(hid, tuple(arr.shape), arr.dtype, tuple(arr.strides), bits, base_id)

