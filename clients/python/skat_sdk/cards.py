"""Cards as the proto numbers them: 1 + suit * 8 + rank.

Suits D H S C (0-3), ranks 7 8 9 Q K T A J (0-7). Text uses the ISS codes (CJ, HT, D7).
"""

from dataclasses import dataclass

SUITS = "DHSC"
RANKS = "789QKTAJ"
POINTS = [0, 0, 0, 3, 4, 10, 11, 2]


@dataclass(frozen=True)
class Card:
    """One card, from its proto number."""

    number: int

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
