"""Lobby mode: connect once with an account's bot token and play every seat the server
gives it (tournament tables), each in its own thread with a bot from ``make_bot``, as
many at once as they come. After a broken stream or a server restart it reconnects; the
server then hands out again every seat the account holds (after a restart with a new
seat token) and the game goes on."""

import logging
import threading
import time
from typing import Callable, List, Optional, Sequence, Union

import grpc

from skat.v1 import skat_pb2 as pb
from skat.v1 import skat_pb2_grpc as rpc

from . import errors
from .address import ServerAddress, server_address
from .bot import Bot
from .play import Finished, Seat, play

log = logging.getLogger("skat_sdk")

# Most seats on one connection: gRPC shares one connection among the channels to an
# address, and the server refuses a connection's 101st watch; the Rust and TypeScript
# SDKs put the same 64 on one (the server holds less a table the more share one).
SEATS_PER_CONNECTION = 64


def accepts(policy: Sequence[str], challenger: str) -> bool:
    """Whether an ``accept_challenges`` list accepts a challenge from ``challenger``."""
    return any(name == "*" or name == challenger for name in policy)


def answer_challenge(server: Union[str, ServerAddress], bot_token: str, challenge_id: str, accept: bool):
    """Accepts or declines a challenge offered to the account of ``bot_token``; returns the
    challenge after the answer (a ``ChallengeInfo``)."""
    address = server_address(server)
    address.check_secret("bot token")
    channel = address.channel()
    try:
        stub = rpc.SkatServiceStub(channel)
        request = pb.AnswerChallengeRequest(challenge_id=challenge_id, accept=accept)
        return stub.AnswerChallenge(request, metadata=(("authorization", f"Bearer {bot_token}"),)).challenge
    finally:
        channel.close()


def lobby(
    server: Union[str, ServerAddress],
    bot_token: str,
    make_bot: Callable[[], Bot],
    lists: Optional[int] = None,
    max_tables: int = 0,
    casual_seats: int = 0,
    on_illegal: str = "fallback",
    accept_challenges: Sequence[str] = (),
    open_tables: bool = False,
) -> List[Finished]:
    """Plays every seat the lobby hands out until ``lists`` tables have ended (None: for
    ever), whatever happened at them (a table whose seat stopped on an error counts);
    returns how each finished table ended. ``on_illegal``: see
    :data:`~skat_sdk.play.ON_ILLEGAL`.

    It logs (logger ``skat_sdk``) at INFO when it connects (``lobby connected``), is seated
    (``seated``), finishes a table with its result (``table finished``) and reconnects
    (``lobby reconnecting``); a seat that stops on an error is a WARNING (``seat
    stopped``): the same words as the Rust and TypeScript SDKs. ``max_tables``: most tables at once (0: the
    account's quota). ``casual_seats`` (3 or 4): also be matched with other bots as they
    arrive. ``accept_challenges``: the lobby is shown challenges (Challenge) and accepts
    those from these account names (``"*"``: anybody), declining the others (``challenge
    accepted``, ``challenge declined``); empty: no offers are shown (answer them with
    :func:`answer_challenge`). ``open_tables``: offer the account to people's tables (a
    CreateTable naming it in ``bots`` seats it, within its quota, and the seat comes through
    this lobby). A seat on another replica comes without its token; the bot then keeps a
    lobby open at that replica too, which hands the seat out with its token.

    ``server``: an address string or a :class:`~skat_sdk.ServerAddress`; the bot token
    never travels in plain text beyond this machine unless allowed
    (:class:`~skat_sdk.PlainTextRefused`)."""
    home = server_address(server)
    home.check_secret("bot token")
    options = _Options(make_bot, lists, max_tables, on_illegal, tuple(accept_challenges), open_tables)
    state = _Lobby(home, bot_token, options)
    state.keep(home, casual_seats, True)
    return state.finished


class _Options:
    """What a lobby was asked for (see :func:`lobby`)."""

    def __init__(self, make_bot, lists, max_tables, on_illegal, accept_challenges, open_tables):
        self.make_bot = make_bot
        self.lists = lists
        self.max_tables = max_tables
        self.on_illegal = on_illegal
        self.accept_challenges = accept_challenges
        self.open_tables = open_tables


class _Lobby:
    """One account's lobbies (home, and the replicas followed for their seats) and the
    seats being played, each in a thread of its own."""

    def __init__(self, home: ServerAddress, bot_token: str, options: _Options):
        self.home = home
        self.bot_token = bot_token
        self.o = options
        self.finished: List[Finished] = []
        self.lock = threading.Lock()
        self.playing = {}  # table id -> (seat token, thread)
        self.done = threading.Event()
        self.streams = {}  # address -> the open lobby stream, to cancel when the last list is done
        self.followed = set()  # replicas whose lobby is kept open too
        self.ended = 0  # tables played to their end or stopped on an error
        self.groups = {}  # connection group -> seats on it now

    def take_group(self) -> int:
        """The first connection group with room for one more seat."""
        with self.lock:
            group = next((g for g, n in sorted(self.groups.items()) if n < SEATS_PER_CONNECTION), len(self.groups))
            self.groups[group] = self.groups.get(group, 0) + 1
            return group

    def release_group(self, group: int):
        with self.lock:
            self.groups[group] -= 1

    def count_one(self):
        with self.lock:
            self.ended += 1
            if self.o.lists is not None and self.ended >= self.o.lists:
                self.done.set()
                for stream in self.streams.values():
                    stream.cancel()

    def run(self, seat: Seat):
        try:
            self.play_seat(seat)
        finally:
            self.release_group(seat.connection_group)

    def play_seat(self, seat: Seat):
        try:
            result = play(seat, self.o.make_bot(), on_illegal=self.o.on_illegal)
        except grpc.RpcError as e:
            with self.lock:
                replaced = self.playing.get(seat.table_id, (seat.token,))[0] != seat.token
            if replaced:
                # A newer token for this seat replaced this one (after a restart): the
                # newer thread plays on.
                log.info("seat replaced: table=%s seat=%s", seat.table_id, seat.seat)
                return
            log.warning("seat stopped: table=%s seat=%s error=%s", seat.table_id, seat.seat, errors.reason(e) or e.code())
            self.count_one()
            return
        except Exception as e:  # noqa: BLE001 - a bot's own bug must not end the lobby
            log.warning("seat stopped: table=%s seat=%s error=%r", seat.table_id, seat.seat, e)
            self.count_one()
            return
        mine = next((s for s in result.standings if s.seat == seat.seat), None)
        ranked = sorted(result.standings, key=lambda s: -s.seeger_fabian)
        place = next((i + 1 for i, s in enumerate(ranked) if s.seat == seat.seat), 0)
        log.info(
            "table finished: table=%s seat=%s seeger_fabian=%s plain=%s place=%s/%s",
            seat.table_id, seat.seat, mine.seeger_fabian if mine else 0, mine.plain if mine else 0, place, len(ranked),
        )
        with self.lock:
            self.finished.append(result)
        self.count_one()

    def follow(self, address: str):
        with self.lock:
            if address in self.followed or address == self.home.url:
                return
            self.followed.add(address)
        log.info("following a seat to the replica at %s", address)
        threading.Thread(target=self.keep, args=(self.home.at(address), 0, False), daemon=True).start()

    def answer(self, server: ServerAddress, offer):
        accept = accepts(self.o.accept_challenges, offer.challenger)
        try:
            answer_challenge(server, self.bot_token, offer.challenge_id, accept)
            log.info(
                "challenge %s: challenge=%s challenger=%s",
                "accepted" if accept else "declined", offer.challenge_id, offer.challenger,
            )
        except grpc.RpcError as e:
            log.warning("challenge not answered: challenge=%s error=%s", offer.challenge_id, errors.reason(e) or e.code())

    def seat(self, server: ServerAddress, s):
        """A seat the lobby handed out: played in a thread of its own (a seat on another
        replica, without its token: that replica's lobby is followed for it)."""
        seat_server = server.at(s.owner_address) if s.owner_address else server
        if not s.seat_token:
            self.follow(seat_server.url)
            return
        with self.lock:
            known = self.playing.get(s.table_id)
            if known is not None and known[0] == s.seat_token:
                return
        log.info("seated: table=%s seat=%s tournament=%s", s.table_id, s.seat, s.tournament_id)
        seat = Seat(seat_server, s.table_id, s.seat_token, s.seat, home=self.home, connection_group=self.take_group())
        t = threading.Thread(target=self.run, args=(seat,), daemon=True)
        with self.lock:
            self.playing[s.table_id] = (s.seat_token, t)
        t.start()

    def listen(self, server: ServerAddress, stub, casual: int, primary: bool):
        """One lobby stream to its end: seats and challenges as they come."""
        # Challenges only at home: a followed replica's lobby is for its seats.
        request = pb.LobbyRequest(
            max_tables=self.o.max_tables,
            casual_seats=casual,
            challenges=primary and bool(self.o.accept_challenges),
            open_tables=primary and self.o.open_tables,
        )
        stream = stub.Lobby(request, metadata=(("authorization", f"Bearer {self.bot_token}"),))
        with self.lock:
            self.streams[server.url] = stream
            if self.done.is_set():
                stream.cancel()
        log.info("lobby connected: server=%s", server.url)
        for event in stream:
            yield
            if event.WhichOneof("kind") == "challenge_offered":
                # Answered beside the stream: a slow answer holds no seat back.
                threading.Thread(target=self.answer, args=(server, event.challenge_offered), daemon=True).start()
                continue
            if event.WhichOneof("kind") != "seat_assigned":
                continue
            self.seat(server, event.seat_assigned)
            if self.done.is_set():
                break

    def keep(self, server: ServerAddress, casual: int, primary: bool):
        """Keeps a lobby open until the last list is done, reconnecting after a break (the
        home lobby's refusal ends the bot; a followed replica's only that lobby)."""
        address = server.url
        failures = 0
        while not self.done.is_set():
            channel = server.channel()
            try:
                for _ in self.listen(server, rpc.SkatServiceStub(channel), casual, primary):
                    failures = 0
            except grpc.RpcError as e:
                if self.done.is_set():
                    break
                retryable = e.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.UNKNOWN, grpc.StatusCode.CANCELLED)
                failures += 1
                if not retryable or failures > 60:
                    if primary:
                        raise
                    log.warning("the lobby at %s ended: %s", address, errors.reason(e) or e.code())
                    return
                log.info("lobby reconnecting: server=%s error=%s", address, errors.reason(e) or e.code())
                time.sleep(min(2.0, 0.1 * failures))
            finally:
                channel.close()
