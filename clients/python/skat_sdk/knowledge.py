"""What one seat knows, folded from its table's stream: the same shape, names and meaning
as the Rust SDK's ``Knowledge`` (the engine's ``SeatView``) and the TypeScript SDK's.

Every event of the seat's own ``WatchTable`` stream goes through :meth:`Knowledge.apply`
(a client that starts watching mid-deal begins with :meth:`Knowledge.from_view`);
afterwards the object says what the seat may know at that point and nothing more:

========================  ==============================================================
``seat``                  the seat (``None``: a spectator)
``frame``                 the deal's ``number`` (from 0), ``dealer`` and ``seats`` at
                          forehand, middlehand, rearhand (``None`` before the first deal)
``position``              the seat's position in this deal (``None``: a spectator, or the
                          dealer sitting out at four seats)
``phase``, ``to_move``    the deal's phase and who must act (:class:`Phase`, :class:`Position`)
``hand``                  the seat's cards now; ``hand_sizes`` every position's count
``auction``               the calls so far (:class:`AuctionCall`); ``bid`` the highest
``declarer``              once the auction has one
``skat_picked_up``        ``None`` until the declarer decides, then True or False
``skat``, ``discards``    the skat and discards, when this seat may see them
``contract``              the declaration (:class:`Contract`); ``hand_game`` whether hand
``open_hand``             the declarer's cards when they are open (ouvert, claimed)
``current_trick``         the trick being played (:class:`Trick` without a winner)
``tricks``                the completed tricks, with their winners
``claimed``, ``resigned`` the declarer's claim; who resigned, by position index
``dealt``, ``outcome``    every card and the result (``pb.DealResult``), once the deal is over
``legal``                 what the seat may do now (:class:`LegalActions`)
``final_standings``       the list's standings (``pb.Standing``), once it is over
========================  ==============================================================

Derived: ``game``, ``is_declarer``, ``played``, ``cards_out``, ``cannot_hold`` (per
position, the cards it has shown it cannot hold), and :meth:`Knowledge.same_side`.
:meth:`Knowledge.to_dict` writes it all in the form the three SDKs share; the
conformance corpus (``conformance/knowledge.jsonl``) holds that form after every event of
real streams, and this SDK's tests replay it.

``legal`` is the server's word: the legal actions attached to the event (a request that
causes several events is answered only in its final state, so only the last of them
carries any).
"""

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Dict, FrozenSet, List, Optional, Tuple

from skat.v1 import skat_pb2 as pb

from .cards import DECK, Card, cards_sorted
from .knowledge_json import knowledge_dict


class Position(IntEnum):
    """A position in a deal, numbered as the proto numbers it."""

    FOREHAND = pb.POSITION_FOREHAND
    MIDDLEHAND = pb.POSITION_MIDDLEHAND
    REARHAND = pb.POSITION_REARHAND

    @property
    def index(self) -> int:
        """0, 1, 2: the index into ``frame.seats``, ``hand_sizes``, ``resigned``."""
        return int(self) - 1

    def next(self) -> "Position":
        """Who plays after this position in a trick."""
        return Position(self.index % 3 + 2) if self.index < 2 else Position.FOREHAND


class Phase(IntEnum):
    """A deal's phase, numbered as the proto numbers it."""

    BIDDING = pb.PHASE_BIDDING
    SKAT_DECISION = pb.PHASE_SKAT_DECISION
    DISCARDING = pb.PHASE_DISCARDING
    DECLARING = pb.PHASE_DECLARING
    PLAYING = pb.PHASE_PLAYING
    FINISHED = pb.PHASE_FINISHED


#: Positions as the proto numbers them (kept for bots written against 0.1).
FOREHAND, MIDDLEHAND, REARHAND = Position.FOREHAND, Position.MIDDLEHAND, Position.REARHAND

_SUIT_GAMES = {pb.GAME_TYPE_DIAMONDS: "D", pb.GAME_TYPE_HEARTS: "H", pb.GAME_TYPE_SPADES: "S", pb.GAME_TYPE_CLUBS: "C"}

#: The follow class of a trump card.
TRUMP = "trump"


def follow_class(card: Card, game: int) -> str:
    """The suit a card belongs to for following suit: ``"trump"``, or ``D`` ``H`` ``S`` ``C``.
    In null every card is its own suit; in grand the jacks are trumps; in a suit game the
    jacks and the trump suit's cards."""
    if game == pb.GAME_TYPE_NULL:
        return card.suit
    if card.is_jack:
        return TRUMP
    if _SUIT_GAMES.get(game) == card.suit:
        return TRUMP
    return card.suit


def follow_set(card: Card, game: int) -> FrozenSet[Card]:
    """Every card of the same follow class as ``card`` in ``game``."""
    wanted = follow_class(card, game)
    return frozenset(c for c in DECK if follow_class(c, game) == wanted)


def _position(value: int) -> Optional[Position]:
    return Position(value) if value in (1, 2, 3) else None


@dataclass(frozen=True)
class Frame:
    """The current deal's frame: which deal, who deals, who sits where."""

    number: int
    dealer: int
    seats: Tuple[int, int, int]


@dataclass(frozen=True)
class AuctionCall:
    """A call in the auction: ``call`` is ``"bid"`` (with its ``value``), ``"hold"`` or ``"pass"``."""

    position: Position
    call: str
    value: Optional[int] = None


class Contract(tuple):
    """A declaration: ``(game, announcement)``, the proto's ``GameType`` and
    ``Announcement`` numbers (``ANNOUNCEMENT_UNSPECIFIED`` is no announcement)."""

    def __new__(cls, game: int, announcement: int = pb.ANNOUNCEMENT_UNSPECIFIED):
        return super().__new__(cls, (game, announcement))

    @property
    def game(self) -> int:
        return self[0]

    @property
    def announcement(self) -> int:
        return self[1]


@dataclass
class Trick:
    """A trick: who led, the cards in play order, and who won it (``None`` while open)."""

    leader: Position
    cards: List[Card] = field(default_factory=list)
    winner: Optional[Position] = None


@dataclass(frozen=True)
class Dealt:
    """Every card as dealt: forehand's, middlehand's and rearhand's hands, and the skat."""

    hands: Tuple[FrozenSet[Card], FrozenSet[Card], FrozenSet[Card]]
    skat: FrozenSet[Card]


@dataclass(frozen=True)
class LegalActions:
    """What the seat may do now: the same fields as the Rust SDK's (``pass_`` because
    ``pass`` is a Python keyword). Card lists are sorted by card number."""

    bid_from: Optional[int] = None
    hold: bool = False
    pass_: bool = False
    pick_up_skat: bool = False
    play_hand: bool = False
    discard_from: Tuple[Card, ...] = ()
    contracts: Tuple[Contract, ...] = ()
    cards: Tuple[Card, ...] = ()
    claim: bool = False
    resign: bool = False

    @classmethod
    def from_pb(cls, legal: Optional[pb.LegalActions]) -> "LegalActions":
        if legal is None:
            return cls()
        return cls(
            bid_from=legal.min_bid or None,
            hold=legal.hold,
            pass_=legal.may_pass,
            pick_up_skat=legal.pick_up_skat,
            play_hand=legal.play_hand,
            discard_from=tuple(cards_sorted(Card(c) for c in legal.discard_from)),
            contracts=tuple(Contract(c.game, c.announcement) for c in legal.contracts),
            cards=tuple(cards_sorted(Card(c) for c in legal.cards)),
            claim=legal.claim,
            resign=legal.resign,
        )

    def has_turn(self) -> bool:
        """Whether the seat must act now (anything but resign or claim)."""
        return bool(
            self.bid_from or self.hold or self.pass_ or self.pick_up_skat or self.play_hand
            or self.discard_from or self.contracts or self.cards
        )


@dataclass
class Knowledge:
    """One seat's knowledge (see the module docs)."""

    seat: Optional[int] = None
    frame: Optional[Frame] = None
    position: Optional[Position] = None
    phase: Phase = Phase.BIDDING
    # The auction opens with middlehand saying to forehand.
    to_move: Optional[Position] = Position.MIDDLEHAND
    hand: FrozenSet[Card] = frozenset()
    hand_sizes: List[int] = field(default_factory=lambda: [10, 10, 10])
    auction: List[AuctionCall] = field(default_factory=list)
    bid: Optional[int] = None
    declarer: Optional[Position] = None
    skat_picked_up: Optional[bool] = None
    skat: FrozenSet[Card] = frozenset()
    discards: FrozenSet[Card] = frozenset()
    contract: Optional[Contract] = None
    hand_game: bool = False
    open_hand: Optional[FrozenSet[Card]] = None
    current_trick: Optional[Trick] = None
    tricks: List[Trick] = field(default_factory=list)
    claimed: bool = False
    resigned: List[bool] = field(default_factory=lambda: [False, False, False])
    dealt: Optional[Dealt] = None
    outcome: Optional[pb.DealResult] = None
    legal: LegalActions = field(default_factory=LegalActions)
    final_standings: Optional[List[pb.Standing]] = None

    # ----- derived ---------------------------------------------------------------

    @property
    def game(self) -> Optional[int]:
        """The declared game type (a ``GameType`` number), ``None`` before the declaration."""
        return self.contract.game if self.contract is not None else None

    @property
    def is_declarer(self) -> bool:
        return self.position is not None and self.position == self.declarer

    @property
    def played(self) -> FrozenSet[Card]:
        """Every card played so far (completed tricks and the current one)."""
        cards = set(self.current_trick.cards) if self.current_trick else set()
        for t in self.tricks:
            cards.update(t.cards)
        return frozenset(cards)

    @property
    def cards_out(self) -> FrozenSet[Card]:
        """The cards this seat has not seen: still in other hands (or the unseen skat)."""
        seen = self.hand | self.played | self.skat | self.discards | (self.open_hand or frozenset())
        return frozenset(DECK) - seen

    @property
    def cannot_hold(self) -> List[FrozenSet[Card]]:
        """Per position (by index), the cards it cannot hold: those of every suit (trumps
        counted as one suit) it failed to follow."""
        out: List[set] = [set(), set(), set()]
        game = self.game
        if game is None:
            return [frozenset(), frozenset(), frozenset()]
        tricks = [(t.leader, t.cards) for t in self.tricks]
        if self.current_trick is not None:
            tricks.append((self.current_trick.leader, self.current_trick.cards))
        for leader, cards in tricks:
            if not cards:
                continue
            follow = follow_set(cards[0], game)
            p = leader
            for c in cards:
                if c not in follow:
                    out[p.index] |= follow
                p = p.next()
        return [frozenset(s) for s in out]

    def same_side(self, a: Position, b: Position) -> bool:
        """Whether ``a`` and ``b`` play on the same side (both the declarer, or both defenders)."""
        return (a == self.declarer) == (b == self.declarer)

    def has_turn(self) -> bool:
        """Whether the seat must act now (not only resign or claim out of turn)."""
        return self.legal.has_turn()

    # ----- the fold --------------------------------------------------------------

    def apply(self, event: pb.Event) -> None:
        """Folds one event of the seat's stream into the knowledge."""
        kind = event.WhichOneof("kind")
        if kind == "deal_started":
            self._start(event.deal_started)
        elif kind == "action_taken":
            self._moved(event.action_taken)
        elif kind == "deal_ended":
            self._ended(event.deal_ended)
        elif kind == "match_ended":
            self.final_standings = list(event.match_ended.standings)
        self.legal = LegalActions.from_pb(event.legal if event.HasField("legal") else None)

    def _start(self, d: pb.DealStarted) -> None:
        seats = tuple(d.position_seats)
        fresh = Knowledge(seat=self.seat, final_standings=self.final_standings)
        self.__dict__.update(fresh.__dict__)
        self.frame = Frame(number=d.number, dealer=d.dealer_seat, seats=seats)
        if self.seat is not None and self.seat in seats:
            self.position = Position(seats.index(self.seat) + 1)
            self.hand = frozenset(Card(c) for c in d.hand)

    def _moved(self, a: pb.ActionTaken) -> None:
        act, who = a.action, Position(a.position)
        facts = a.facts
        mine = self.position == who
        if act.kind == pb.ACTION_KIND_BID:
            self.auction.append(AuctionCall(who, "bid", act.bid))
        elif act.kind == pb.ACTION_KIND_HOLD:
            self.auction.append(AuctionCall(who, "hold"))
        elif act.kind == pb.ACTION_KIND_PASS:
            self.auction.append(AuctionCall(who, "pass"))
        elif act.kind == pb.ACTION_KIND_PICK_UP_SKAT:
            self.skat_picked_up = True
            self.hand_sizes[who.index] += 2
            if mine:
                self.skat = frozenset(Card(c) for c in act.cards)
                self.hand = self.hand | self.skat
        elif act.kind == pb.ACTION_KIND_PLAY_HAND:
            self.skat_picked_up = False
        elif act.kind == pb.ACTION_KIND_DISCARD:
            self.hand_sizes[who.index] = max(0, self.hand_sizes[who.index] - 2)
            if mine:
                self.discards = frozenset(Card(c) for c in act.cards)
                self.hand = self.hand - self.discards
        elif act.kind == pb.ACTION_KIND_PLAY_CARD:
            self._play(who, Card(act.card), facts)
        elif act.kind == pb.ACTION_KIND_CLAIM:
            self.claimed = True
        elif act.kind == pb.ACTION_KIND_RESIGN:
            self.resigned[who.index] = True
        if a.open_hand:
            self.open_hand = frozenset(Card(c) for c in a.open_hand)
        self.phase = Phase(facts.phase)
        self.to_move = _position(facts.to_move)
        self.declarer = _position(facts.declarer)
        self.bid = facts.bid or None
        declared = facts.HasField("declaration")
        self.contract = Contract(facts.declaration.game, facts.declaration.announcement) if declared else None
        self.hand_game = (declared and facts.declaration.hand) or self.skat_picked_up is False

    def _play(self, who: Position, card: Card, facts: pb.DealFacts) -> None:
        self.hand_sizes[who.index] = max(0, self.hand_sizes[who.index] - 1)
        if who == self.position:
            self.hand = self.hand - {card}
        if _position(facts.declarer) == who and self.open_hand is not None:
            self.open_hand = self.open_hand - {card}
            if not self.open_hand:
                self.open_hand = None
        trick = self.current_trick or Trick(leader=who)
        trick = Trick(trick.leader, trick.cards + [card])
        winner = _position(facts.trick_winner)
        if winner is not None and len(trick.cards) == 3:
            trick.winner = winner
            self.tricks.append(trick)
            self.current_trick = None
        else:
            self.current_trick = trick

    def _ended(self, e: pb.DealEnded) -> None:
        self.phase = Phase.FINISHED
        self.to_move = None
        d = e.dealt
        hands = tuple(frozenset(Card(c) for c in h) for h in (d.forehand, d.middlehand, d.rearhand))
        self.dealt = Dealt(hands=hands, skat=frozenset(Card(c) for c in d.skat))
        self.outcome = e.result
        self.skat = self.dealt.skat
        self.discards = frozenset(Card(c) for c in d.discards)
        self.open_hand = None

    # ----- a snapshot ------------------------------------------------------------

    @classmethod
    def from_view(cls, view: pb.TableView) -> "Knowledge":
        """The knowledge a table view shows: for a client that starts following mid-deal
        (``WatchTable`` without ``after_seq`` sends this view first)."""
        seat = view.your_seat if view.HasField("your_seat") else None
        k = cls(seat=seat)
        if not view.HasField("deal"):
            return k
        d = view.deal
        k.frame = Frame(number=d.number, dealer=d.dealer_seat, seats=tuple(d.position_seats))
        k.position = _position(d.your_position)
        k.phase = Phase(d.phase)
        k.to_move = _position(d.to_move)
        k.hand = frozenset(Card(c) for c in d.hand)
        k.hand_sizes = list(d.hand_sizes)
        calls = {pb.BID_CALL_SAY: "bid", pb.BID_CALL_HOLD: "hold", pb.BID_CALL_PASS: "pass"}
        k.auction = [
            AuctionCall(Position(a.position), calls[a.call], a.value if a.call == pb.BID_CALL_SAY else None)
            for a in d.auction
        ]
        k.bid = d.bid or None
        k.declarer = _position(d.declarer)
        k.skat_picked_up = d.skat_picked_up if d.skat_decided else None
        k.skat = frozenset(Card(c) for c in d.skat)
        k.discards = frozenset(Card(c) for c in d.discards)
        declared = d.HasField("contract")
        k.contract = Contract(d.contract.game, d.contract.announcement) if declared else None
        k.hand_game = d.contract.hand if declared else (d.skat_decided and not d.skat_picked_up)
        k.open_hand = frozenset(Card(c) for c in d.open_hand) or None
        if d.HasField("current_trick") and d.current_trick.cards:
            k.current_trick = Trick(Position(d.current_trick.leader), [Card(c) for c in d.current_trick.cards])
        k.tricks = [Trick(Position(t.leader), [Card(c) for c in t.cards], Position(t.winner)) for t in d.tricks]
        k.claimed = d.claimed
        k.resigned = [Position(i + 1) in {_position(p) for p in d.resigned} for i in range(3)]
        if d.HasField("dealt"):
            hands = tuple(frozenset(Card(c) for c in h) for h in (d.dealt.forehand, d.dealt.middlehand, d.dealt.rearhand))
            k.dealt = Dealt(hands=hands, skat=frozenset(Card(c) for c in d.dealt.skat))
        k.outcome = d.result if d.HasField("result") else None
        k.legal = LegalActions.from_pb(d.legal if d.HasField("legal") else None)
        return k

    # ----- the shared form -------------------------------------------------------

    def to_dict(self) -> Dict:
        """The knowledge in the form the three SDKs share (see ``skat_sdk::knowledge`` in
        the Rust SDK): cards as ISS codes sorted by number, enums as lower-case names."""
        return knowledge_dict(self)


def has_turn(legal) -> bool:
    """Whether these legal actions (the SDK's or the proto's) give a turn."""
    if isinstance(legal, LegalActions):
        return legal.has_turn()
    return bool(
        legal.cards or legal.discard_from or legal.contracts or legal.pick_up_skat or legal.play_hand
        or legal.hold or legal.may_pass or legal.min_bid
    )
