"""The six decisions of a bot, and how the SDK asks for them.

Subclass :class:`Bot` and override what you want; the defaults take the first legal
choice, so a bot that only overrides :meth:`Bot.play` is complete. Every method gets the
seat's :class:`~skat_sdk.Knowledge` (``k.legal`` holds what is allowed now) and returns
a choice among ``k.legal``. Cards are :class:`~skat_sdk.Card`.
"""

from typing import List, Optional, Tuple

from skat.v1 import skat_pb2 as pb

from .cards import Card
from .knowledge import Knowledge


class Bot:
    """A Skat bot: six decisions (the same as the Rust SDK's ``Bot``)."""

    def bid(self, k: Knowledge) -> Optional[int]:
        """Your turn to call a bid: a value of at least ``k.legal.bid_from`` on the bid
        ladder (18, 20, 22, 23, 24, 27, 30, 33, 35, 36, 40, ...), or None to pass."""
        return None

    def answer(self, k: Knowledge, bid: int) -> bool:
        """Somebody bid ``bid`` to you: True to hold, False to pass."""
        return False

    def take_skat(self, k: Knowledge) -> bool:
        """You won the auction: True to pick up the skat, False to play hand."""
        return True

    def discard(self, k: Knowledge) -> List[Card]:
        """You picked up the skat (it is in ``k.hand``): the two cards to put away."""
        return list(k.legal.discard_from[:2])

    def declare(self, k: Knowledge) -> Tuple[int, int]:
        """Your declaration, one of ``k.legal.contracts`` (a ``Contract``, which is the tuple
        ``(GameType, Announcement)``)."""
        return k.legal.contracts[0]

    def play(self, k: Knowledge) -> Card:
        """Your card, one of ``k.legal.cards``."""
        return k.legal.cards[0]

    def comment(self, k: Knowledge) -> Optional[str]:
        """A comment on the decision just made (at most 280 characters), sent with it and
        shown to everybody once the deal has ended (the replay, the records): why the bot
        did what it did. None (the default): no comment."""
        return None


def decide(bot: Bot, k: Knowledge):
    """Asks the bot the decision ``k.legal`` calls for; returns the request to send as
    ``(rpc name, request fields)``, or None when it is not the seat's turn."""
    legal = k.legal
    if legal.cards:
        return ("PlayCard", {"card": _card(bot.play(k)).number})
    if legal.discard_from:
        return ("Discard", {"cards": [_card(c).number for c in bot.discard(k)]})
    if legal.contracts:
        game, announcement = bot.declare(k)
        return ("Declare", {"game": game, "announcement": announcement})
    if legal.pick_up_skat or legal.play_hand:
        pick_up = bot.take_skat(k) if (legal.pick_up_skat and legal.play_hand) else bool(legal.pick_up_skat)
        return ("TakeSkat", {"pick_up": pick_up})
    if legal.hold:
        held = bot.answer(k, k.bid or 0)
        return ("Bid", {"call": pb.BID_CALL_HOLD if held else pb.BID_CALL_PASS})
    if legal.bid_from:
        value = bot.bid(k)
        if value is None:
            return ("Bid", {"call": pb.BID_CALL_PASS})
        return ("Bid", {"call": pb.BID_CALL_SAY, "value": value})
    if legal.pass_:
        return ("Bid", {"call": pb.BID_CALL_PASS})
    return None


def _card(c) -> Card:
    """A bot may answer with a Card or a proto card number."""
    return c if isinstance(c, Card) else Card(int(c))
