"""The research environment's numbers, from the SDK's own knowledge: a policy trained in
``skat_engine`` (the engine's Python package: its ``Table``, ``Batch`` and PettingZoo
environment) plays on the server unchanged.

- :func:`observe` turns a seat's :class:`~skat_sdk.Knowledge` into the observation the
  environment gives that seat (``OBS_LEN`` floats, sections in :data:`LAYOUT`), computed in
  pure Python from the folded stream; the SDK's tests check it equal to the environment's
  at every decision of lists played over the wire.
- :func:`legal_ids` and :func:`mask` give the action ids the seat may choose.
- :class:`PolicyBot` is a :class:`~skat_sdk.Bot` that asks ``policy(observation, legal_ids)``
  for an id at every decision (twice for a discard, one card at a time, as the environment
  does) and answers the server with it.

The ids and sections are documented in ``docs/research.md``; this module is their second,
independent implementation (the first is the engine's Rust crate ``skat-env``).
"""

from typing import Callable, List, Optional, Sequence, Tuple

from skat.v1 import skat_pb2 as pb

from .bot import Bot
from .cards import Card
from .knowledge import Knowledge, Phase, Position

#: The bid ladder.
LADDER = (
    18, 20, 22, 23, 24, 27, 30, 33, 35, 36, 40, 44, 45, 46, 48, 50, 54, 55, 59, 60, 63, 66, 70, 72, 77, 80,
    81, 84, 88, 90, 96, 99, 100, 108, 110, 117, 120, 121, 126, 130, 132, 135, 140, 143, 144, 150, 153, 154,
    156, 160, 162, 165, 168, 170, 176, 180, 187, 192, 198, 204, 216, 240, 264,
)

N_ACTIONS = 155
DISCARD, BID, HOLD, PASS, PICK_UP, HAND, DECLARE = 32, 64, 127, 128, 129, 130, 131

#: (name, length) of each section, in order.
_SECTIONS = (
    ("hand", 32), ("skat", 32), ("discards", 32), ("open_hand", 32), ("played", 96), ("trick", 96),
    ("trick_leader", 3), ("my_position", 3), ("phase", 6), ("to_move", 3), ("bid", 63), ("bidder", 3),
    ("passed", 3), ("declarer", 3), ("skat_taken", 2), ("game", 6), ("announced", 3), ("card_points", 2),
    ("tricks_won", 2),
)


def _layout():
    out, at = {}, 0
    for name, length in _SECTIONS:
        out[name] = (at, length)
        at += length
    return out, at


#: name -> (offset, length)
LAYOUT, OBS_LEN = _layout()

_PHASES = (Phase.BIDDING, Phase.SKAT_DECISION, Phase.DISCARDING, Phase.DECLARING, Phase.PLAYING, Phase.FINISHED)


def _rel(me: Position, p: Position) -> int:
    return (p.index - me.index) % 3


def observe(k: Knowledge, pending: Optional[Card] = None) -> List[float]:
    """The observation of ``k``'s seat. ``pending`` is the first card put away while the
    seat is half-way through its discard (:class:`PolicyBot` passes it)."""
    o = [0.0] * OBS_LEN
    at = {name: offset for name, (offset, _) in LAYOUT.items()}
    me = k.position if k.position is not None else Position.FOREHAND

    def put(section: str, cards, part: int = 0):
        for c in cards:
            o[at[section] + 32 * part + c.index] = 1.0

    hand, discards = set(k.hand), set(k.discards)
    if pending is not None:
        hand.discard(pending)
        discards.add(pending)
    put("hand", hand)
    put("skat", k.skat)
    put("discards", discards)
    put("open_hand", k.open_hand or ())
    points, won = [0, 0], [0, 0]
    for t in k.tricks:
        p = t.leader
        for c in t.cards:
            put("played", [c], _rel(me, p))
            p = p.next()
        side = 0 if t.winner == k.declarer else 1
        points[side] += sum(c.points for c in t.cards)
        won[side] += 1
    if k.current_trick is not None and k.current_trick.cards:
        p = k.current_trick.leader
        for c in k.current_trick.cards:
            put("played", [c], _rel(me, p))
            put("trick", [c], _rel(me, p))
            p = p.next()
        o[at["trick_leader"] + _rel(me, k.current_trick.leader)] = 1.0
    if k.position is not None:
        o[at["my_position"] + k.position.index] = 1.0
    o[at["phase"] + _PHASES.index(k.phase)] = 1.0
    if k.to_move is not None:
        o[at["to_move"] + _rel(me, k.to_move)] = 1.0
    for call in k.auction:
        if call.call == "bid":
            for r in range(3):
                o[at["bidder"] + r] = 0.0
            o[at["bidder"] + _rel(me, call.position)] = 1.0
        elif call.call == "pass":
            o[at["passed"] + _rel(me, call.position)] = 1.0
    if k.bid:
        o[at["bid"] + LADDER.index(k.bid)] = 1.0
    if k.declarer is not None:
        o[at["declarer"] + _rel(me, k.declarer)] = 1.0
    if k.skat_picked_up is True:
        o[at["skat_taken"]] = 1.0
    elif k.skat_picked_up is False:
        o[at["skat_taken"] + 1] = 1.0
    if k.contract is not None:
        game, announcement = k.contract
        o[at["game"] + game - pb.GAME_TYPE_DIAMONDS] = 1.0
        if game != pb.GAME_TYPE_NULL:
            o[at["announced"]] = float(announcement != pb.ANNOUNCEMENT_UNSPECIFIED)
            o[at["announced"] + 1] = float(announcement in (pb.ANNOUNCEMENT_SCHWARZ, pb.ANNOUNCEMENT_OUVERT))
        o[at["announced"] + 2] = float(announcement == pb.ANNOUNCEMENT_OUVERT)
    for side in range(2):
        o[at["card_points"] + side] = points[side] / 120.0
        o[at["tricks_won"] + side] = won[side] / 10.0
    return o


def contract_id(game: int, announcement: int) -> int:
    """The id of declaring ``(game, announcement)`` (proto numbers)."""
    return DECLARE + (game - pb.GAME_TYPE_DIAMONDS) * 4 + announcement


def legal_ids(k: Knowledge, pending: Optional[Card] = None) -> List[int]:
    """The ids the seat may choose now, in increasing order (claim and resign are not in
    the action space)."""
    legal = k.legal
    ids = [c.index for c in legal.cards]
    ids += [DISCARD + c.index for c in legal.discard_from if c != pending]
    if legal.bid_from:
        ids += [BID + i for i in range(LADDER.index(legal.bid_from), len(LADDER))]
    for ok, id_ in ((legal.hold, HOLD), (legal.pass_, PASS), (legal.pick_up_skat, PICK_UP), (legal.play_hand, HAND)):
        if ok:
            ids.append(id_)
    ids += sorted(contract_id(*c) for c in legal.contracts)
    return ids


def mask(k: Knowledge, pending: Optional[Card] = None) -> List[int]:
    """1 where an id is legal, ``N_ACTIONS`` long."""
    m = [0] * N_ACTIONS
    for i in legal_ids(k, pending):
        m[i] = 1
    return m


#: ``policy(observation, legal_ids) -> id``
Policy = Callable[[Sequence[float], Sequence[int]], int]


class PolicyBot(Bot):
    """A bot that plays by ``policy(observation, legal_ids) -> id``, the environment's
    interface. An id outside ``legal_ids`` raises ``ValueError`` (the policy's bug, said
    at once rather than sent to be refused). ``on_decision(knowledge, pending,
    observation, legal_ids, id)``, if given, sees every decision (for logs and tests)."""

    def __init__(self, policy: Policy, on_decision: Optional[Callable] = None):
        self.policy = policy
        self.on_decision = on_decision

    def _choose(self, k: Knowledge, pending: Optional[Card] = None) -> int:
        obs, ids = observe(k, pending), legal_ids(k, pending)
        choice = int(self.policy(obs, ids))
        if choice not in ids:
            raise ValueError(f"policy chose id {choice}, not among the legal ids {ids}")
        if self.on_decision is not None:
            self.on_decision(k, pending, obs, ids, choice)
        return choice

    def bid(self, k: Knowledge) -> Optional[int]:
        choice = self._choose(k)
        return LADDER[choice - BID] if BID <= choice < HOLD else None

    def answer(self, k: Knowledge, bid: int) -> bool:
        return self._choose(k) == HOLD

    def take_skat(self, k: Knowledge) -> bool:
        return self._choose(k) == PICK_UP

    def discard(self, k: Knowledge) -> List[Card]:
        first = Card(self._choose(k) - DISCARD + 1)
        second = Card(self._choose(k, first) - DISCARD + 1)
        return [first, second]

    def declare(self, k: Knowledge) -> Tuple[int, int]:
        i = self._choose(k) - DECLARE
        return (pb.GAME_TYPE_DIAMONDS + i // 4, i % 4)

    def play(self, k: Knowledge) -> Card:
        return Card(self._choose(k) + 1)
