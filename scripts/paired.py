#!/usr/bin/env python3
"""Paired comparison of two bots from an arena's records: per duplicate list, the
difference of their Seeger-Fabian totals, and its mean with a 95% interval (t). The
arena prints the same below its standings; this reads a directory of records, e.g. of a
run whose output was not kept.

    skat arena --in-process --bots pimc,pimc-plain,heuristic --lists 40 --records DIR
    python3 scripts/paired.py DIR pimc pimc-plain

Figures are per list and seat as the arena prints them (a list's total over its seat
rotations, divided by their number). In a duplicate list both bots play the same deals from every seat, so the luck of the
cards cancels in the difference, and a list counts once however many rotations it has.
Scoring as the arena's (ISkO Seeger-Fabian, three players): a won game +value+50, a lost
one value-50 (the record's value is already doubled), each defender +40 when it is lost.
"""

import glob
import math
import re
import statistics
import sys
from collections import defaultdict

# Two-sided 95% t quantiles by degrees of freedom (more than 30: the normal's).
T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26,
       10: 2.23, 12: 2.18, 15: 2.13, 20: 2.09, 25: 2.06, 30: 2.04}


def t95(df):
    if df > 30:
        return 1.96
    return T95[max(k for k in T95 if k <= df)]


def main():
    folder, a, b = sys.argv[1], sys.argv[2], sys.argv[3]
    totals = defaultdict(lambda: defaultdict(int))  # list -> bot -> SF
    rotations = defaultdict(set)
    for path in glob.glob(f"{folder}/list*-rotation*.sgf"):
        lst = re.search(r"list(\d+)", path).group(1)
        rotations[lst].add(path)
        for game in open(path).read().split("(;")[1:]:
            players = [re.search(rf"P{i}\[([^\]]*)\]", game).group(1) for i in range(3)]
            r = re.search(r"R\[([^\]]*)\]", game).group(1)
            if r.startswith("passed"):
                continue
            d = int(re.search(r"d:(\d)", r).group(1))
            v = int(re.search(r"v:(-?\d+)", r).group(1))
            won = " win " in f" {r} "
            totals[lst][players[d]] += v + 50 if won else v - 50
            if not won:
                for i in range(3):
                    if i != d:
                        totals[lst][players[i]] += 40
    # Per 36-deal list and seat, as the arena prints it: a list's total over its rotations.
    for lst, t in totals.items():
        for bot in t:
            t[bot] /= len(rotations[lst])
    diffs = [t[a] - t[b] for t in totals.values()]
    n = len(diffs)
    mean = statistics.mean(diffs)
    half = t95(n - 1) * statistics.stdev(diffs) / math.sqrt(n) if n > 1 else float("inf")
    for bot in (a, b):
        print(f"{bot}: {statistics.mean(t[bot] for t in totals.values()):.1f} per list")
    print(f"{a} - {b}: {mean:+.1f} per list over {n} lists, 95% interval [{mean - half:+.1f}, {mean + half:+.1f}]")


if __name__ == "__main__":
    main()
