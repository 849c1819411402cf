"""Lobby mode: connect once with an account's bot token and play every seat the server
gives it (tournament tables), each in its own thread with a bot from ``make_bot``, as
many at once as they come. After a broken stream or a server restart it reconnects; the
server then hands out again every seat the account holds (after a restart with a new
seat token) and the game goes on."""

import logging
import threading
import time
from typing import Callable, List, Optional

import grpc

from skat.v1 import skat_pb2 as pb
from skat.v1 import skat_pb2_grpc as rpc

from . import errors
from .address import target
from .bot import Bot
from .play import Finished, Seat, play

log = logging.getLogger("skat_sdk")


def lobby(server: str, bot_token: str, make_bot: Callable[[], Bot], lists: Optional[int] = None) -> List[Finished]:
    """Plays every seat the lobby hands out until ``lists`` tables have finished (None:
    for ever); returns how each finished."""
    finished: List[Finished] = []
    lock = threading.Lock()
    playing = {}  # table id -> (seat token, thread)
    done = threading.Event()
    current = {}  # the open lobby stream, to cancel when the last list is done

    def run(seat: Seat):
        try:
            result = play(seat, make_bot())
            with lock:
                finished.append(result)
                if lists is not None and len(finished) >= lists:
                    done.set()
                    if "stream" in current:
                        current["stream"].cancel()
        except grpc.RpcError as e:
            # A newer token for this seat replaced this one (after a restart): the newer
            # thread plays on.
            log.info("seat at %s stopped: %s", seat.table_id, errors.reason(e) or e.code())

    failures = 0
    while not done.is_set():
        channel = grpc.insecure_channel(target(server))
        stub = rpc.SkatServiceStub(channel)
        try:
            stream = stub.Lobby(pb.LobbyRequest(), metadata=(("authorization", f"Bearer {bot_token}"),))
            with lock:
                current["stream"] = stream
                if done.is_set():
                    stream.cancel()
            for event in stream:
                failures = 0
                if event.WhichOneof("kind") != "seat_assigned":
                    continue
                s = event.seat_assigned
                with lock:
                    known = playing.get(s.table_id)
                    if known is not None and known[0] == s.seat_token:
                        continue
                address = s.owner_address or server
                t = threading.Thread(target=run, args=(Seat(address, s.table_id, s.seat_token, s.seat),), daemon=True)
                with lock:
                    playing[s.table_id] = (s.seat_token, t)
                t.start()
                if done.is_set():
                    break
        except grpc.RpcError as e:
            if done.is_set():
                break
            if e.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNKNOWN, grpc.StatusCode.CANCELLED):
                raise
            failures += 1
            if failures > 60:
                raise
            time.sleep(min(2.0, 0.1 * failures))
        finally:
            channel.close()
    return finished
