"""The play loop: join (or use a seat token), fold the seat's stream into its
:class:`~skat_sdk.Knowledge`, ask the bot whenever the seat must act, send the answer
with ``expected_seq``, and after a broken stream or a restarted server reconnect with
growing delays (to the table's new owner when a replica took it over from a dead one:
:meth:`Seat.reconnect`) and resume with ``after_seq``, so that no event is missed or
repeated."""

import logging
import time
import uuid
from dataclasses import dataclass
from typing import List, Optional, Union

import grpc

from skat.v1 import skat_pb2 as pb
from skat.v1 import skat_pb2_grpc as rpc

from . import errors, watches
from .address import ServerAddress, server_address
from .bot import Bot, decide
from .cards import Card
from .knowledge import Knowledge

log = logging.getLogger("skat_sdk")

#: Refusals that mean "the table moved on while you thought": not an error.
MOVED_ON = ("STALE_SEQ", "NOT_YOUR_TURN", "WRONG_PHASE", "DEAL_OVER", "TABLE_FINISHED", "SITTING_OUT")

#: What the SDK may do when the server refuses the bot's action as illegal (always after a
#: warning, ``illegal action refused``, with the decision, the legal set and the reason):
#: ``fallback`` plays the first legal action (pass, the lowest card, the first contract;
#: the default: the seat keeps playing), ``resign`` gives the deal up (resign when allowed,
#: pass while bidding, else the fallback), ``stop`` raises :class:`IllegalAction` (the
#: seat is left to forfeit on time). The same choices as the Rust and TypeScript SDKs.
ON_ILLEGAL = ("fallback", "resign", "stop")


class IllegalAction(RuntimeError):
    """The server refused the bot's action as illegal and ``on_illegal="stop"``."""

_REQUESTS = {
    "Bid": pb.BidRequest,
    "TakeSkat": pb.TakeSkatRequest,
    "Discard": pb.DiscardRequest,
    "Declare": pb.DeclareRequest,
    "PlayCard": pb.PlayCardRequest,
    "Resign": pb.ResignRequest,
}


@dataclass
class Finished:
    """How a list ended for this seat. ``str()`` of it is a table of the seats, their
    points and places (what ``print(result)`` shows); ``place`` is this seat's."""

    seat: int
    standings: List[pb.Standing]
    reconnects: int
    decisions: int
    #: Decisions at which the knowledge was compared with the view (``verify_knowledge``).
    verified: int = 0
    #: The table.
    table_id: str = ""

    def ranked(self) -> List[pb.Standing]:
        """The standings, best Seeger-Fabian first (seat order between equals)."""
        return sorted(self.standings, key=lambda s: (-s.seeger_fabian, s.seat))

    @property
    def place(self) -> int:
        """This seat's place by Seeger-Fabian (1: first), 0 when it has no standing."""
        return next((i + 1 for i, s in enumerate(self.ranked()) if s.seat == self.seat), 0)

    def __str__(self) -> str:
        head = f"table {self.table_id or '?'}, seat {self.seat}: place {self.place} of {len(self.standings)}"
        lines = [head, f"{'':2}{'seat':>4}  {'player':<20} {'Seeger-Fabian':>13} {'points':>7} {'won/declared':>12}"]
        for s in self.ranked():
            mark = ">" if s.seat == self.seat else " "
            lines.append(f"{mark:2}{s.seat:>4}  {s.name[:20]:<20} {s.seeger_fabian:>13} {s.plain:>7} {f'{s.won}/{s.declared}':>12}")
        return "\n".join(lines)


def _follow(address: ServerAddress, call):
    """Runs ``call(stub)`` at ``address``, following up to three redirects to the replica
    that owns the table (same TLS settings); returns the address that answered and the
    answer."""
    for _ in range(4):
        with address.channel() as channel:
            try:
                return address, call(rpc.SkatServiceStub(channel))
            except grpc.RpcError as e:
                owner = errors.redirect(e)
                if owner is None or address.at(owner).url == address.url:
                    raise
                log.debug("table lives on another replica; following: owner=%s", owner)
                address = address.at(owner)
    raise RuntimeError("too many redirects")


class Seat:
    """A seat at a table: its server, table, token and seat number.

    ``server`` is an address string (``host:port``, ``http://...``, ``https://...``) or a
    :class:`~skat_sdk.ServerAddress` (a private CA, plain text allowed): the seat token
    never travels in plain text beyond this machine unless allowed. ``home``: where the
    seat was first asked for (before a redirect; by default ``server``), which
    :meth:`reconnect` asks when the seat's server is gone."""

    def __init__(
        self,
        server: Union[str, ServerAddress],
        table_id: str,
        token: str,
        seat: int,
        home: Union[str, ServerAddress, None] = None,
        connection_group: Optional[int] = None,
    ):
        self.address = server_address(server)
        self.address.check_secret("seat token")
        self.home = server_address(home) if home is not None else self.address
        self.server, self.table_id, self.token, self.seat = self.address.target, table_id, token, seat
        # Which of the shared connections to the server carries this seat (a lobby's
        # seats, at most 32 on one); None: the address's one.
        self.connection_group = connection_group
        self._connect()

    def _connect(self):
        self.channel = self.address.channel(self.connection_group)
        self.stub = rpc.SkatServiceStub(self.channel)
        # A lobby's seats watch on their connection's one WatchTables stream.
        self.hub = None if self.connection_group is None else watches.hub(self.address, self.connection_group)

    def reconnect(self) -> None:
        """A fresh connection after the old one broke: to the seat's server if it still
        holds the table, else to the table's owner now, found through ``home`` (a replica
        that took the table over from a dead one). If neither answers, the next attempt
        tries again."""
        self.channel.close()
        tries = [self.address] if self.home.url == self.address.url else [self.address, self.home]
        for address in tries:
            try:
                found, _ = _follow(
                    address,
                    lambda stub: stub.GetTable(
                        pb.GetTableRequest(table_id=self.table_id), metadata=self.metadata, timeout=10
                    ),
                )
            except grpc.RpcError:
                continue
            self.address, self.server = found, found.target
            break
        self._connect()

    @property
    def metadata(self):
        return (("authorization", f"Bearer {self.token}"),)

    @classmethod
    def join(
        cls,
        server: Union[str, ServerAddress],
        table_id: str,
        name: str = "python-bot",
        seat=None,
        join_code: str = "",
        join_key: Optional[str] = None,
    ) -> "Seat":
        """Takes a seat (the first open one unless ``seat`` is given). ``join_key``: keep
        one (16 to 128 printable characters) to get the same seat back after a crash
        (JoinTable with it again returns the seat, with a new token); by default a random
        one, with which a JoinTable whose answer was lost is retried."""
        home = server_address(server)
        # The answer is the seat token: it must not come back in plain text either.
        home.check_secret("join code" if join_code else "seat token")
        req = pb.JoinTableRequest(table_id=table_id, name=name, join_code=join_code, join_key=join_key or uuid.uuid4().hex)
        if seat is not None:
            req.seat = seat
        for attempt in range(3):
            try:
                address, r = _follow(home, lambda stub: stub.JoinTable(req))
                break
            except grpc.RpcError as e:
                # The answer may be lost after the server seated us: the same key again
                # gets that seat, never a second one.
                if e.code() != grpc.StatusCode.UNAVAILABLE or attempt == 2:
                    raise
                time.sleep(0.2 * (attempt + 1))
        return cls(address, table_id, r.token, r.seat, home=home)

    @classmethod
    def with_token(cls, server: Union[str, ServerAddress], table_id: str, token: str) -> "Seat":
        """A seat from a token handed out elsewhere (``skat arena``, ``skat table create``)."""
        home = server_address(server)
        home.check_secret("seat token")
        address, view = _follow(
            home,
            lambda stub: stub.GetTable(pb.GetTableRequest(table_id=table_id), metadata=(("authorization", f"Bearer {token}"),)),
        )
        return cls(address, table_id, token, view.table.your_seat, home=home)

    def watch(self, after_seq: Optional[int] = None):
        """The table's stream for this seat: a snapshot first, or with ``after_seq``
        exactly the events after it. A seat of a connection group (a lobby's) watches on
        the connection's WatchTables stream (:mod:`skat_sdk.watches`), any other on a
        WatchTable stream of its own; both yield ``WatchTableResponse`` and raise the same
        :class:`grpc.RpcError` at their end."""

        def own():
            request = pb.WatchTableRequest(table_id=self.table_id, after_seq=after_seq)
            return self.stub.WatchTable(request, metadata=self.metadata)

        if self.hub is None:
            return own()
        return self.hub.watch(self.table_id, self.token, after_seq, own)

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


def play(
    seat: Seat, bot: Bot, max_reconnects: int = 50, verify_knowledge: bool = False, on_illegal: str = "fallback"
) -> Finished:
    """Plays the seat until the list is over; returns the final standings.

    ``on_illegal``: what to do when the server refuses the bot's action as illegal
    (:data:`ON_ILLEGAL`: ``fallback``, ``resign`` or ``stop``).

    ``verify_knowledge`` (for tests; one GetTable per decision): before each decision,
    compare the knowledge folded from the stream with the seat's view and raise
    :class:`KnowledgeMismatch` on a difference. ``Finished.verified`` counts the
    decisions compared."""
    if on_illegal not in ON_ILLEGAL:
        raise ValueError(f"on_illegal is one of {ON_ILLEGAL}, not {on_illegal!r}")
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
                    decisions += _act(seat, bot, k, last, on_illegal)
            stream = seat.watch(after)
            for msg in stream:
                if not msg.HasField("event"):
                    continue
                event = msg.event
                k.apply(event)
                last = event.seq
                failures = 0
                if event.HasField("match_ended"):
                    return Finished(seat.seat, list(event.match_ended.standings), reconnects, decisions, verified, seat.table_id)
                if event.seq >= act_from and k.has_turn():
                    if verify_knowledge:
                        verified += _verify(seat, k, last)
                    decisions += _act(seat, bot, k, last, on_illegal)
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
            seat.reconnect()
            reconnects += 1


def _act(seat: Seat, bot: Bot, k: Knowledge, seq: int, on_illegal: str = "fallback") -> int:
    """Asks the bot and sends its answer, decided on the table at ``seq``. An answer the
    server refuses as illegal is logged and replaced as ``on_illegal`` says."""
    choice = decide(bot, k)
    if choice is None:
        return 0
    comment = bot.comment(k) if hasattr(bot, "comment") else None
    try:
        fields = dict(choice[1], comment=comment) if comment else choice[1]
        seat.send(choice[0], fields, seq)
        return 1
    except grpc.RpcError as e:
        why = errors.reason(e)
        if why in MOVED_ON or e.code() == grpc.StatusCode.ABORTED:
            log.debug("action not taken: %s", why)
            return 0
        if e.code() not in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION):
            raise
        if why == "INVALID_COMMENT":
            # The comment, not the action, was refused: the action goes again without it.
            log.warning("comment refused (%s); sending the action without it", e.details())
            other = choice
        else:
            other = _instead(k, choice, why or e.code().name, on_illegal)
            if other == choice:
                raise
    try:
        seat.send(other[0], other[1], seq)
    except grpc.RpcError as e:
        if errors.reason(e) not in MOVED_ON and e.code() != grpc.StatusCode.ABORTED:
            raise
    return 1


def _instead(k: Knowledge, refused, why: str, on_illegal: str):
    """The request to send instead of a refused one, after the warning (see
    :data:`ON_ILLEGAL`); raises :class:`IllegalAction` for ``stop``."""
    legal = k.legal
    if on_illegal == "stop":
        other = None
    elif on_illegal == "resign" and legal.resign:
        other = ("Resign", {})
    elif on_illegal == "resign" and legal.pass_:
        other = ("Bid", {"call": pb.BID_CALL_PASS})
    else:
        other = first_legal(k)
    then = f"playing {describe(other)} ({on_illegal})" if other is not None else "stopping this seat"
    log.warning(
        "illegal action refused: decision=%s legal=%s reason=%s then=%s",
        describe(refused), describe_legal(legal), why, then,
    )
    if other is None:
        raise IllegalAction(f"illegal action {describe(refused)} refused ({why}); stopped (on_illegal=stop)")
    return other


def first_legal(k: Knowledge):
    """The first legal action as a request, in the order every SDK uses: the lowest card,
    the first two cards to discard, the first contract, picking up the skat, pass."""
    legal = k.legal
    if legal.cards:
        return ("PlayCard", {"card": legal.cards[0].number})
    if len(legal.discard_from) >= 2:
        return ("Discard", {"cards": [c.number for c in legal.discard_from[:2]]})
    if legal.contracts:
        game, announcement = legal.contracts[0]
        return ("Declare", {"game": game, "announcement": announcement})
    if legal.pick_up_skat:
        return ("TakeSkat", {"pick_up": True})
    if legal.pass_:
        return ("Bid", {"call": pb.BID_CALL_PASS})
    return None


def describe(choice) -> str:
    """A request in words, for logs (``bid 19``, ``play CJ``): the Rust SDK's words."""
    if choice is None:
        return "nothing"
    name, fields = choice
    if name == "Bid":
        call = fields.get("call")
        if call == pb.BID_CALL_SAY:
            return f"bid {fields.get('value')}"
        return "hold" if call == pb.BID_CALL_HOLD else "pass"
    if name == "PlayCard":
        return f"play {Card(fields['card'])}"
    if name == "Discard":
        return "discard " + " ".join(str(Card(c)) for c in fields["cards"])
    if name == "Declare":
        return f"declare {pb.GameType.Name(fields['game'])} {pb.Announcement.Name(fields['announcement'])}"
    if name == "TakeSkat":
        return "pick up the skat" if fields["pick_up"] else "play hand"
    return name.lower()


def describe_legal(legal) -> str:
    """The legal set in words, for logs (``bid 20..264 | pass``): the Rust SDK's words."""
    parts = []
    if legal.bid_from:
        parts.append(f"bid {legal.bid_from}..264")
    if legal.hold:
        parts.append("hold")
    if legal.pass_:
        parts.append("pass")
    if legal.pick_up_skat:
        parts.append("pick up the skat")
    if legal.play_hand:
        parts.append("play hand")
    if legal.discard_from:
        parts.append("discard 2 of " + " ".join(str(c) for c in legal.discard_from))
    if legal.contracts:
        parts.append(f"declare one of {len(legal.contracts)} contracts")
    if legal.cards:
        parts.append("play " + " ".join(str(c) for c in legal.cards))
    if legal.resign:
        parts.append("resign")
    return " | ".join(parts) or "nothing"


def join_and_play(
    server: Union[str, ServerAddress],
    table_id: str,
    bot: Bot,
    name: str = "python-bot",
    seat=None,
    join_code: str = "",
    on_illegal: str = "fallback",
) -> Finished:
    """Joins a table and plays the list with ``bot``."""
    return play(Seat.join(server, table_id, name, seat, join_code), bot, on_illegal=on_illegal)


def play_with_token(
    server: Union[str, ServerAddress], table_id: str, token: str, bot: Bot, on_illegal: str = "fallback"
) -> Finished:
    """Plays a seat whose token was handed out elsewhere."""
    return play(Seat.with_token(server, table_id, token), bot, on_illegal=on_illegal)
