"""The Python SDK of the open Skat server: write a :class:`Bot` (six decisions), hand it
to :func:`join_and_play` or :func:`play_with_token`, and the SDK does the rest: the
stream, the seat's :class:`Knowledge`, ``expected_seq``, reconnecting and resuming.

    from skat_sdk import Bot, Card, join_and_play

    class LowestCard(Bot):
        def play(self, k):
            return min(k.legal.cards, key=lambda c: c.points)

    join_and_play("127.0.0.1:50051", "t1a2b3c4d5e6", LowestCard(), name="lowest")
"""

from . import errors  # noqa: F401
from .address import PlainTextRefused, ServerAddress, target  # noqa: F401
from .bot import Bot, decide  # noqa: F401
from .cards import DECK, Card  # noqa: F401
from .knowledge import (  # noqa: F401
    TRUMP,
    AuctionCall,
    Contract,
    Dealt,
    Frame,
    Knowledge,
    LegalActions,
    Phase,
    Position,
    Trick,
    follow_class,
    follow_set,
    has_turn,
)
from .play import ON_ILLEGAL, Finished, IllegalAction, Seat, join_and_play, play, play_with_token  # noqa: F401
from .lobby import lobby  # noqa: F401
