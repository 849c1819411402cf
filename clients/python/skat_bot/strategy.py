"""The example bot's decisions, a little smarter than random: bid only with jacks, keep
trumps, bank points, cash aces. Built on the SDK: every method gets the seat's
Knowledge and returns one of its legal choices."""

import random

from skat.v1 import skat_pb2 as pb

from skat_sdk import Bot

# proto GameType numbers for the suits D H S C.
SUIT_GAME = {"D": pb.GAME_TYPE_DIAMONDS, "H": pb.GAME_TYPE_HEARTS, "S": pb.GAME_TYPE_SPADES, "C": pb.GAME_TYPE_CLUBS}


def bid_limit(hand) -> int:
    """How high to bid: 0 (pass) without two jacks or a jack and two aces."""
    jacks = sum(1 for c in hand if c.is_jack)
    aces = sum(1 for c in hand if c.rank == "A")
    if jacks >= 3:
        return 36
    if jacks >= 2 or (jacks == 1 and aces >= 2):
        return 24
    return 0


class JackBot(Bot):
    """Bids with jacks, declares its longest suit (grand with three jacks), cashes aces,
    follows with its cheapest card."""

    def __init__(self, seed: int = 1):
        self.rng = random.Random(seed)

    def bid(self, k):
        return k.legal.bid_from if k.legal.bid_from <= bid_limit(k.hand) else None

    def answer(self, k, bid):
        return bid <= bid_limit(k.hand)

    def discard(self, k):
        keep_value = lambda c: (c.is_jack * 100) + (c.rank == "A") * 50 - c.points  # noqa: E731
        return sorted(k.legal.discard_from, key=keep_value)[:2]

    def declare(self, k):
        legal = list(k.legal.contracts)
        plain = [g for g, a in legal if a == pb.ANNOUNCEMENT_UNSPECIFIED]
        if sum(1 for c in k.hand if c.is_jack) >= 3 and pb.GAME_TYPE_GRAND in plain:
            return (pb.GAME_TYPE_GRAND, pb.ANNOUNCEMENT_UNSPECIFIED)
        counts = {s: sum(1 for c in k.hand if c.suit == s and not c.is_jack) for s in "DHSC"}
        for suit in sorted(counts, key=lambda s: (-counts[s], "DHSC".index(s))):
            if SUIT_GAME[suit] in plain:
                return (SUIT_GAME[suit], pb.ANNOUNCEMENT_UNSPECIFIED)
        return legal[0]

    def play(self, k):
        cards = list(k.legal.cards)
        if k.current_trick is None or not k.current_trick.cards:
            aces = [c for c in cards if c.rank == "A"]
            return aces[0] if aces else min(cards, key=lambda c: (c.points, self.rng.random()))
        return min(cards, key=lambda c: (c.points, c.is_jack, self.rng.random()))
