"""The seats on one shared connection (a lobby's, at most 32 on one) watch their tables on
one ``WatchTables`` stream, not a ``WatchTable`` stream each: the server keeps state for
every open HTTP/2 stream (about 2 KiB), so thirty seats on one stream cost it less than
thirty streams (docs/server.md, "Many tables on one stream").

A watch yields exactly what a ``WatchTable`` stream would, and ends as it would: with the
same :class:`grpc.RpcError` (its code, message, ``ErrorInfo`` and ``skat-owner``), so
:func:`skat_sdk.errors.reason` and :func:`skat_sdk.play` treat both alike. When the shared
stream breaks (the server restarted), every open watch raises UNAVAILABLE and its seat
resumes as after any break. A server without ``WatchTables`` (UNIMPLEMENTED) is
remembered, and its seats watch on ``WatchTable``.

Each watch has its own queue, filled by the stream's reader thread as responses arrive,
so a bot that thinks never holds the other seats' events back; what a queue holds is
what its table did meanwhile, which the seat's own turn bounds (the table waits for it).
One hub is kept per server and connection group for the life of the process; its stream
is closed when its last watch goes (the next watch opens a new one), so no idle stream
outlives the seats.
"""

import itertools
import queue
import threading
from typing import Callable, Dict, Iterator, Optional, Tuple

import grpc

from skat.v1 import skat_pb2 as pb
from skat.v1 import skat_pb2_grpc as rpc

from .errors import OWNER_METADATA

_CODES = {code.value[0]: code for code in grpc.StatusCode}

#: The server has no WatchTables: the watch falls back to WatchTable.
_UNSUPPORTED = object()
#: The watch ended cleanly (the match is over).
_END = object()


class WatchEnded(grpc.RpcError, grpc.Call):
    """How a watch on a shared stream ended: the status its ``WatchTable`` stream would
    have ended with."""

    def __init__(self, code: grpc.StatusCode, message: str, details: bytes = b"", owner: str = ""):
        super().__init__(message)
        self._code, self._message = code, message
        self._trailers = tuple(
            [("grpc-status-details-bin", details)] if details else []
        ) + tuple([(OWNER_METADATA, owner)] if owner else [])

    def code(self):
        return self._code

    def details(self):
        return self._message

    def trailing_metadata(self):
        return self._trailers

    def initial_metadata(self):
        return ()

    def is_active(self):
        return False

    def time_remaining(self):
        return None

    def cancel(self):
        return False

    def add_callback(self, callback):
        return False

    def __str__(self):
        return f"watch ended: {self._code.name}: {self._message}"


class _Stream:
    """One open WatchTables stream: its requests' queue, each watch's queue, its reader."""

    def __init__(self, channel: grpc.Channel):
        self.requests: "queue.Queue[Optional[pb.WatchTablesRequest]]" = queue.Queue()
        self.routes: Dict[int, queue.Queue] = {}
        self.lock = threading.Lock()
        self.ids = itertools.count(1)
        self.ended = False
        self.closing = False
        self.call = rpc.SkatServiceStub(channel).WatchTables(iter(self.requests.get, None))
        threading.Thread(target=self._read, name="skat-watches", daemon=True).start()

    def add(self, table_id: str, token: str, after_seq: Optional[int]) -> Optional[Tuple[int, queue.Queue]]:
        """The new watch's id and queue; None when this stream takes no more watches (it
        ended, or its last watch went and its side is closed)."""
        watch_id, route = next(self.ids), queue.Queue()
        with self.lock:
            if self.ended or self.closing:
                return None
            self.routes[watch_id] = route
        add = pb.WatchAdd(watch_id=watch_id, table_id=table_id, seat_token=token, after_seq=after_seq)
        self.requests.put(pb.WatchTablesRequest(add=add))
        return watch_id, route

    def remove(self, watch_id: int):
        with self.lock:
            if self.routes.pop(watch_id, None) is None:
                return
            idle = self._idle()
        self.requests.put(pb.WatchTablesRequest(remove=pb.WatchRemove(watch_id=watch_id)))
        if idle:
            self.requests.put(None)

    def _idle(self) -> bool:
        """Under the lock: with no watch left, the stream takes no more (its side is closed
        once the caller has sent what it must, and the server then ends it) rather than
        stay open idle; the next watch opens a new one."""
        self.closing = self.closing or not self.routes
        return self.closing

    def _read(self):
        end: object = WatchEnded(grpc.StatusCode.UNAVAILABLE, "the server ended the shared watch stream")
        try:
            for said in self.call:
                kind = said.WhichOneof("kind")
                idle = False
                with self.lock:
                    route = self.routes.pop(said.watch_id, None) if kind == "ended" else self.routes.get(said.watch_id)
                    if kind == "ended" and route is not None:
                        idle = self._idle()
                if idle:
                    self.requests.put(None)
                if route is None:
                    continue  # a removed watch's late message
                if kind == "ended":
                    e = said.ended
                    code = _CODES.get(e.code, grpc.StatusCode.UNKNOWN)
                    ok = code in (grpc.StatusCode.OK, grpc.StatusCode.CANCELLED)
                    route.put(_END if ok else WatchEnded(code, e.message, e.details, e.owner))
                elif kind == "snapshot":
                    route.put(pb.WatchTableResponse(snapshot=said.snapshot))
                elif kind == "event":
                    route.put(pb.WatchTableResponse(event=said.event))
        except grpc.RpcError as e:
            end = _UNSUPPORTED if e.code() == grpc.StatusCode.UNIMPLEMENTED else WatchEnded(
                grpc.StatusCode.UNAVAILABLE, f"the shared watch stream ended: {e.details()}"
            )
        with self.lock:
            self.ended = True
            routes, self.routes = self.routes, {}
        self.requests.put(None)
        for route in routes.values():
            route.put(end)


class WatchHub:
    """The WatchTables stream of one connection, shared by the seats on it."""

    def __init__(self, channel: grpc.Channel):
        self._channel = channel
        self._lock = threading.Lock()
        self._stream: Optional[_Stream] = None
        self._unsupported = False

    def watch(
        self, table_id: str, token: str, after_seq: Optional[int], fallback: Callable[[], Iterator]
    ) -> Iterator[pb.WatchTableResponse]:
        """A watch of ``table_id`` as ``token``'s seat: WatchTable's messages, or
        ``fallback()``'s (a WatchTable stream) on a server without WatchTables."""
        while True:
            with self._lock:
                if self._unsupported:
                    return fallback()
                if self._stream is None or self._stream.ended or self._stream.closing:
                    self._stream = _Stream(self._channel)
                stream = self._stream
            added = stream.add(table_id, token, after_seq)
            if added is not None:
                return self._follow(stream, *added, fallback)

    def _follow(self, stream: _Stream, watch_id: int, route: queue.Queue, fallback) -> Iterator[pb.WatchTableResponse]:
        try:
            while True:
                item = route.get()
                if item is _UNSUPPORTED:
                    self._unsupported = True
                    yield from fallback()
                    return
                if item is _END:
                    return
                if isinstance(item, grpc.RpcError):
                    raise item
                yield item
        finally:
            stream.remove(watch_id)


_HUBS: Dict[Tuple[str, int], WatchHub] = {}
_HUBS_LOCK = threading.Lock()


def hub(address, group: int) -> WatchHub:
    """The hub of ``address``'s connection ``group`` (its channel has the group's options,
    so gRPC carries it on the same connection as the group's seats)."""
    key = (address.url, group)
    with _HUBS_LOCK:
        found = _HUBS.get(key)
        if found is None:
            found = _HUBS[key] = WatchHub(address.channel(group))
        return found
