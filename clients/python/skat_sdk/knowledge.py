"""What one seat knows, folded from its table's stream: the same meaning as the Rust
SDK's ``Knowledge`` (the engine's ``SeatView``).

Every event of the seat's own ``WatchTable`` stream goes through :meth:`Knowledge.apply`;
afterwards the object says what the seat may know at that point and nothing more: its
hand, the auction, the skat if it picked it up, its discards, the declaration, the open
hand if one was shown, the current trick, every trick played, every card played, and
which suits each position has shown it lacks ("voids"). ``legal`` is what the seat may
do now (empty when it is not its turn).
"""

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from skat.v1 import skat_pb2 as pb

from .cards import Card

#: Positions as the proto numbers them.
FOREHAND, MIDDLEHAND, REARHAND = pb.POSITION_FOREHAND, pb.POSITION_MIDDLEHAND, pb.POSITION_REARHAND

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


@dataclass
class Trick:
    """A trick: who led, the cards in order, and who won it (None while open)."""

    leader: int
    cards: List[Tuple[int, Card]] = field(default_factory=list)
    winner: Optional[int] = None


@dataclass
class Knowledge:
    """One seat's knowledge of the current deal (see the module docs)."""

    seat: Optional[int] = None
    deal: int = 0
    position: Optional[int] = None
    position_seats: List[int] = field(default_factory=list)
    hand: Set[Card] = field(default_factory=set)
    auction: List[Tuple[int, int, int]] = field(default_factory=list)  # (position, ActionKind, value)
    bid: int = 0
    declarer: Optional[int] = None
    phase: int = pb.PHASE_UNSPECIFIED
    to_move: Optional[int] = None
    skat: List[Card] = field(default_factory=list)
    discards: List[Card] = field(default_factory=list)
    contract: Optional[pb.Contract] = None
    open_hand: Set[Card] = field(default_factory=set)
    claimed: bool = False
    trick: Optional[Trick] = None
    tricks: List[Trick] = field(default_factory=list)
    played: Set[Card] = field(default_factory=set)
    voids: Dict[int, Set[str]] = field(default_factory=dict)
    legal: pb.LegalActions = field(default_factory=pb.LegalActions)
    seq: int = 0
    result: Optional[pb.DealResult] = None

    @property
    def game(self) -> int:
        """The declared game type (``GAME_TYPE_UNSPECIFIED`` before the declaration)."""
        return self.contract.game if self.contract is not None else pb.GAME_TYPE_UNSPECIFIED

    @property
    def is_declarer(self) -> bool:
        return self.position is not None and self.position == self.declarer

    def has_turn(self) -> bool:
        """Whether the seat must act now (not only resign or claim out of turn)."""
        return has_turn(self.legal)

    def apply(self, event: pb.Event) -> None:
        """Folds one event of the seat's stream into the knowledge."""
        kind = event.WhichOneof("kind")
        if kind == "deal_started":
            self._start(event.deal_started)
        elif kind == "action_taken":
            self._action(event.action_taken)
        elif kind == "deal_ended":
            self.result = event.deal_ended.result
        # After the fold: a new deal resets everything else.
        self.seq = event.seq
        self.legal = event.legal if event.HasField("legal") else pb.LegalActions()

    def _start(self, d: pb.DealStarted) -> None:
        seat = self.seat
        self.__init__(seat=seat)  # a new deal: forget the last one
        self.deal = d.number
        self.position_seats = list(d.position_seats)
        if seat is not None and seat in self.position_seats:
            self.position = self.position_seats.index(seat) + 1
        self.hand = {Card(c) for c in d.hand}
        self.phase = pb.PHASE_BIDDING
        self.voids = {p: set() for p in (FOREHAND, MIDDLEHAND, REARHAND)}

    def _action(self, a: pb.ActionTaken) -> None:
        facts = a.facts
        self.phase = facts.phase
        self.to_move = facts.to_move or None
        self.declarer = facts.declarer or None
        self.bid = facts.bid
        if facts.HasField("declaration"):
            self.contract = facts.declaration
        if a.open_hand:
            self.open_hand = {Card(c) for c in a.open_hand}
        act, who = a.action, a.position
        mine = self.position is not None and who == self.position
        if act.kind in (pb.ACTION_KIND_BID, pb.ACTION_KIND_HOLD, pb.ACTION_KIND_PASS):
            self.auction.append((who, act.kind, act.bid))
        elif act.kind == pb.ACTION_KIND_PICK_UP_SKAT and mine and act.cards:
            self.skat = [Card(c) for c in act.cards]
            self.hand |= set(self.skat)
        elif act.kind == pb.ACTION_KIND_DISCARD and mine and act.cards:
            self.discards = [Card(c) for c in act.cards]
            self.hand -= set(self.discards)
        elif act.kind == pb.ACTION_KIND_DECLARE:
            self.contract = act.contract
        elif act.kind == pb.ACTION_KIND_CLAIM:
            self.claimed = True
        elif act.kind == pb.ACTION_KIND_PLAY_CARD:
            self._play(who, Card(act.card), facts.trick_winner)

    def _play(self, who: int, card: Card, winner: int) -> None:
        if self.trick is None:
            self.trick = Trick(leader=who)
        if self.trick.cards:
            led = follow_class(self.trick.cards[0][1], self.game)
            if follow_class(card, self.game) != led:
                self.voids.setdefault(who, set()).add(led)
        self.trick.cards.append((who, card))
        self.played.add(card)
        self.hand.discard(card)
        self.open_hand.discard(card)
        if winner:
            self.trick.winner = winner
            self.tricks.append(self.trick)
            self.trick = None


def has_turn(legal: pb.LegalActions) -> bool:
    """Whether these legal actions give a turn (not only resign or claim out of turn)."""
    return bool(
        legal.cards or legal.discard_from or legal.contracts or legal.pick_up_skat or legal.play_hand
        or legal.hold or legal.may_pass or legal.min_bid
    )
