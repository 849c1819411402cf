"""A first bot in about 30 lines: bids with two jacks, plays its highest card when it
leads and its cheapest otherwise.

    pip install ./clients/python
    python clients/python/examples/first_bot.py 127.0.0.1:50051 TABLE_ID
"""

import sys

from skat_sdk import Bot, join_and_play


class FirstBot(Bot):
    def bid(self, k):
        jacks = sum(1 for c in k.hand if c.is_jack)
        return k.legal.bid_from if jacks >= 2 and k.legal.bid_from <= 23 else None

    def answer(self, k, bid):
        return sum(1 for c in k.hand if c.is_jack) >= 2 and bid <= 23

    def play(self, k):
        cards = k.legal.cards
        leading = k.current_trick is None
        return max(cards, key=lambda c: c.points) if leading else min(cards, key=lambda c: c.points)


if __name__ == "__main__":
    server, table = sys.argv[1], sys.argv[2]
    finished = join_and_play(server, table, FirstBot(), name="first-bot")
    print(finished)  # a table of the seats, their points and places
