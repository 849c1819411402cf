"""Cards as the proto numbers them: 1 + suit * 8 + rank.

Suits D H S C (0-3), ranks 7 8 9 Q K T A J (0-7). Text uses the ISS codes (CJ, HT, D7).
Cards compare by number, so sorting a hand puts it in the proto's order.
"""

from dataclasses import dataclass
from typing import Iterable, List

SUITS = "DHSC"
RANKS = "789QKTAJ"
POINTS = [0, 0, 0, 3, 4, 10, 11, 2]


@dataclass(frozen=True, order=True)
class Card:
    """One card, from its proto number."""

    number: int

    @classmethod
    def parse(cls, code: str) -> "Card":
        """A card from its ISS code (``CJ``, ``HT``, ``D7``)."""
        if len(code) != 2 or code[0] not in SUITS or code[1] not in RANKS:
            raise ValueError(f"not a card: {code!r} (like CJ, HT, D7)")
        return cls(1 + SUITS.index(code[0]) * 8 + RANKS.index(code[1]))

    @property
    def index(self) -> int:
        return self.number - 1

    @property
    def suit(self) -> str:
        return SUITS[self.index // 8]

    @property
    def rank(self) -> str:
        return RANKS[self.index % 8]

    @property
    def points(self) -> int:
        return POINTS[self.index % 8]

    @property
    def is_jack(self) -> bool:
        return self.rank == "J"

    def __str__(self) -> str:
        return self.suit + self.rank


#: All 32 cards in the proto's order.
DECK = tuple(Card(n) for n in range(1, 33))


def cards_sorted(cards: Iterable[Card]) -> List[Card]:
    """Cards in the proto's order."""
    return sorted(cards)
