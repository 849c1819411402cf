"""Decisions, a little smarter than random: bid only with jacks, keep trumps, bank points.

Every function gets the seat's TableView (skat.v1) and returns a choice that is among
the view's legal actions.
"""

import random

from skat.v1 import skat_pb2 as pb

from .cards import Card

# proto GameType numbers for the suits D H S C.
SUIT_GAME = {"D": pb.GAME_TYPE_DIAMONDS, "H": pb.GAME_TYPE_HEARTS, "S": pb.GAME_TYPE_SPADES, "C": pb.GAME_TYPE_CLUBS}


def _hand(view):
    return [Card(c) for c in view.deal.hand]


def _jacks(hand):
    return sum(1 for c in hand if c.is_jack)


def _aces(hand):
    return sum(1 for c in hand if c.rank == "A")


def bid_limit(hand) -> int:
    """How high to bid: 0 (pass) without two jacks or a jack and two aces."""
    jacks, aces = _jacks(hand), _aces(hand)
    if jacks >= 3:
        return 36
    if jacks >= 2 or (jacks == 1 and aces >= 2):
        return 24
    return 0


def decide(view, rng: random.Random):
    """Returns (kind, argument): ("bid", value) ("hold",) ("pass",) ("take", bool)
    ("discard", [c1, c2]) ("declare", (game, announcement)) ("play", card)."""
    legal = view.deal.legal
    hand = _hand(view)
    if legal.cards:
        return ("play", choose_card(view, rng))
    if legal.discard_from:
        keep_value = lambda c: (c.is_jack * 100) + (c.rank == "A") * 50 - c.points  # noqa: E731
        cards = sorted((Card(c) for c in legal.discard_from), key=keep_value)
        return ("discard", [cards[0].number, cards[1].number])
    if legal.contracts:
        return ("declare", choose_contract(view, hand))
    if legal.pick_up_skat or legal.play_hand:
        return ("take", True)
    if legal.hold:
        return ("hold",) if view.deal.bid <= bid_limit(hand) else ("pass",)
    if legal.min_bid and legal.min_bid <= bid_limit(hand):
        return ("bid", legal.min_bid)
    return ("pass",)


def choose_contract(view, hand):
    legal = [(c.game, c.announcement) for c in view.deal.legal.contracts]
    plain = [g for g, a in legal if a == pb.ANNOUNCEMENT_UNSPECIFIED]
    if _jacks(hand) >= 3 and pb.GAME_TYPE_GRAND in plain:
        return (pb.GAME_TYPE_GRAND, pb.ANNOUNCEMENT_UNSPECIFIED)
    counts = {s: sum(1 for c in hand if c.suit == s and not c.is_jack) for s in "DHSC"}
    for suit in sorted(counts, key=lambda s: (-counts[s], "DHSC".index(s))):
        if SUIT_GAME[suit] in plain:
            return (SUIT_GAME[suit], pb.ANNOUNCEMENT_UNSPECIFIED)
    return legal[0]


def choose_card(view, rng):
    cards = [Card(c) for c in view.deal.legal.cards]
    trick = view.deal.current_trick
    if not trick.cards:
        # Leading: cash an ace if we have one, else a low card.
        aces = [c for c in cards if c.rank == "A"]
        return (aces[0] if aces else min(cards, key=lambda c: (c.points, rng.random()))).number
    # Following: the lowest-point card (keep points out of the other side's tricks).
    return min(cards, key=lambda c: (c.points, c.is_jack, rng.random())).number
