"""The play loop: join (or use a seat token), fold the seat's stream into its
:class:`~skat_sdk.Knowledge`, ask the bot whenever the seat must act, send the answer
with ``expected_seq``, and after a broken stream or a restarted server reconnect with
growing delays and resume with ``after_seq``, so that no event is missed or repeated."""

import logging
import time
from dataclasses import dataclass
from typing import List, Union

import grpc

from skat.v1 import skat_pb2 as pb
from skat.v1 import skat_pb2_grpc as rpc

from . import errors
from .address import ServerAddress, server_address
from .bot import Bot, decide
from .knowledge import Knowledge

log = logging.getLogger("skat_sdk")

#: Refusals that mean "the table moved on while you thought": not an error.
MOVED_ON = ("STALE_SEQ", "NOT_YOUR_TURN", "WRONG_PHASE", "DEAL_OVER", "TABLE_FINISHED")

_REQUESTS = {
    "Bid": pb.BidRequest,
    "TakeSkat": pb.TakeSkatRequest,
    "Discard": pb.DiscardRequest,
    "Declare": pb.DeclareRequest,
    "PlayCard": pb.PlayCardRequest,
}


@dataclass
class Finished:
    """How a list ended for this seat."""

    seat: int
    standings: List[pb.Standing]
    reconnects: int
    decisions: int
    #: Decisions at which the knowledge was compared with the view (``verify_knowledge``).
    verified: int = 0


class Seat:
    """A seat at a table: its server, table, token and seat number.

    ``server`` is an address string (``host:port``, ``http://...``, ``https://...``) or a
    :class:`~skat_sdk.ServerAddress` (a private CA, plain text allowed): the seat token
    never travels in plain text beyond this machine unless allowed."""

    def __init__(self, server: Union[str, ServerAddress], table_id: str, token: str, seat: int):
        self.address = server_address(server)
        self.address.check_secret("seat token")
        self.server, self.table_id, self.token, self.seat = self.address.target, table_id, token, seat
        self._connect()

    def _connect(self):
        self.channel = self.address.channel()
        self.stub = rpc.SkatServiceStub(self.channel)

    @property
    def metadata(self):
        return (("authorization", f"Bearer {self.token}"),)

    @classmethod
    def join(
        cls, server: Union[str, ServerAddress], table_id: str, name: str = "python-bot", seat=None, join_code: str = ""
    ) -> "Seat":
        """Takes a seat (the first open one unless ``seat`` is given)."""
        address = server_address(server)
        # The answer is the seat token: it must not come back in plain text either.
        address.check_secret("join code" if join_code else "seat token")
        with address.channel() as channel:
            req = pb.JoinTableRequest(table_id=table_id, name=name, join_code=join_code)
            if seat is not None:
                req.seat = seat
            r = rpc.SkatServiceStub(channel).JoinTable(req)
        return cls(address, table_id, r.token, r.seat)

    @classmethod
    def with_token(cls, server: Union[str, ServerAddress], table_id: str, token: str) -> "Seat":
        """A seat from a token handed out elsewhere (``skat arena``, ``skat table create``)."""
        address = server_address(server)
        address.check_secret("seat token")
        with address.channel() as channel:
            view = rpc.SkatServiceStub(channel).GetTable(
                pb.GetTableRequest(table_id=table_id), metadata=(("authorization", f"Bearer {token}"),)
            )
        return cls(address, table_id, token, view.table.your_seat)

    def view(self) -> pb.TableView:
        return self.stub.GetTable(pb.GetTableRequest(table_id=self.table_id), metadata=self.metadata).table

    def send(self, rpc_name: str, fields: dict, expected_seq: int):
        request = _REQUESTS[rpc_name](table_id=self.table_id, expected_seq=expected_seq, **fields)
        return getattr(self.stub, rpc_name)(request, metadata=self.metadata)


class KnowledgeMismatch(AssertionError):
    """The knowledge folded from the stream differs from the server's view (see
    ``verify_knowledge``): a bug in this SDK or the server."""


def _verify(seat: Seat, k: Knowledge, seq: int) -> bool:
    """Compares the knowledge with the seat's view when the view is at ``seq``."""
    view = seat.view()
    if view.seq != seq:
        return False
    want = Knowledge.from_view(view).to_dict()
    got = k.to_dict()
    # The final standings come with the match's end only; a view mid-list has none.
    got["final_standings"] = want["final_standings"] = None
    if got != want:
        diff = {key: (got[key], want[key]) for key in got if got[key] != want[key]}
        raise KnowledgeMismatch(f"knowledge at seq {seq} differs from the view: {diff}")
    return True


def play(seat: Seat, bot: Bot, max_reconnects: int = 50, verify_knowledge: bool = False) -> Finished:
    """Plays the seat until the list is over; returns the final standings.

    ``verify_knowledge`` (for tests; one GetTable per decision): before each decision,
    compare the knowledge folded from the stream with the seat's view and raise
    :class:`KnowledgeMismatch` on a difference. ``Finished.verified`` counts the
    decisions compared."""
    k = Knowledge(seat=seat.seat)
    last = None  # the last seq folded; None: not started
    act_from = 0
    reconnects = decisions = failures = verified = 0
    while True:
        try:
            if last is None:
                # Fold the table's log from its start; act only on what happens from now on.
                act_from = seat.view().seq
                after = 0
            else:
                after = last
                if k.has_turn():
                    decisions += _act(seat, bot, k, last)
            stream = seat.stub.WatchTable(pb.WatchTableRequest(table_id=seat.table_id, after_seq=after), metadata=seat.metadata)
            for msg in stream:
                if not msg.HasField("event"):
                    continue
                event = msg.event
                k.apply(event)
                last = event.seq
                failures = 0
                if event.HasField("match_ended"):
                    return Finished(seat.seat, list(event.match_ended.standings), reconnects, decisions, verified)
                if event.seq >= act_from and k.has_turn():
                    if verify_knowledge:
                        verified += _verify(seat, k, last)
                    decisions += _act(seat, bot, k, last)
            if last is None:
                last = 0
        except grpc.RpcError as e:
            if errors.reason(e) != "STREAM_BEHIND" and e.code() not in (
                grpc.StatusCode.UNAVAILABLE,
                grpc.StatusCode.CANCELLED,
                grpc.StatusCode.UNKNOWN,
            ):
                raise
            failures += 1
            if failures > max_reconnects:
                raise
            log.info("connection lost (%s); resuming after seq %s", e.code(), last)
            time.sleep(min(2.0, 0.05 * 2**failures))
            seat._connect()
            reconnects += 1


def _act(seat: Seat, bot: Bot, k: Knowledge, seq: int) -> int:
    """Asks the bot and sends its answer, decided on the table at ``seq``."""
    choice = decide(bot, k)
    if choice is None:
        return 0
    try:
        seat.send(choice[0], choice[1], seq)
        return 1
    except grpc.RpcError as e:
        if errors.reason(e) in MOVED_ON:
            log.debug("action not taken: %s", errors.reason(e))
            return 0
        raise


def join_and_play(server: Union[str, ServerAddress], table_id: str, bot: Bot, name: str = "python-bot", seat=None, join_code: str = "") -> Finished:
    """Joins a table and plays the list with ``bot``."""
    return play(Seat.join(server, table_id, name, seat, join_code), bot)


def play_with_token(server: Union[str, ServerAddress], table_id: str, token: str, bot: Bot) -> Finished:
    """Plays a seat whose token was handed out elsewhere."""
    return play(Seat.with_token(server, table_id, token), bot)
