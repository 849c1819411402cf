#!/usr/bin/env python3
"""The games declared in a folder of ISS records (`skat arena --records DIR`), and how often
each was won: the game mix of docs/BENCHMARKS.md.

    python3 scripts/game_mix.py arena-records
"""

import collections
import glob
import re
import sys

NAMES = {"C": "clubs", "S": "spades", "H": "hearts", "D": "diamonds", "G": "grand", "N": "null"}
RANKS = set("ATKQJ987")


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "arena-records"
    games = collections.Counter()
    wins = collections.Counter()
    deals = 0
    for path in glob.glob(f"{folder}/*.sgf"):
        for line in open(path):
            moves = re.search(r"MV\[([^\]]*)\]", line)
            result = re.search(r"\]R\[([^\]]*)\]", line)
            if not moves or not result:
                continue
            deals += 1
            tokens = moves.group(1).split()
            game = None
            for tok in tokens[1::2]:
                if tok[0] in NAMES and (len(tok) == 1 or tok[1] not in RANKS):
                    game = NAMES[tok[0]]
            if game is None:
                continue
            games[game] += 1
            wins[game] += " win " in f" {result.group(1)} "
    total = sum(games.values())
    print(f"{deals} deals, {total} games declared ({100 * total / max(deals, 1):.1f}%), "
          f"declarer won {100 * sum(wins.values()) / max(total, 1):.1f}%")
    for game, n in games.most_common():
        print(f"  {game:<9} {100 * n / total:5.1f}% of games, won {100 * wins[game] / n:5.1f}%")


if __name__ == "__main__":
    main()
