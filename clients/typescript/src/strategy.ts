// The example bot's decisions, a little smarter than random: bid only with jacks, keep
// trumps, bank points, cash aces. Built on the SDK's Bot and Knowledge.

import { Bot } from "./play";
import { Card, isJack, pointsOf, rankOf, suitOf } from "./cards";
import { Announcement, type Contract, GameType, Knowledge } from "./knowledge";

function bidLimit(hand: Set<Card>): number {
  const cards = [...hand];
  const jacks = cards.filter(isJack).length;
  const aces = cards.filter((c) => rankOf(c) === "A").length;
  if (jacks >= 3) return 36;
  if (jacks >= 2 || (jacks === 1 && aces >= 2)) return 24;
  return 0;
}

const GAME_OF_SUIT: Record<string, GameType> = {
  D: GameType.DIAMONDS,
  H: GameType.HEARTS,
  S: GameType.SPADES,
  C: GameType.CLUBS,
};

const cheapest = (cards: Iterable<Card>) => [...cards].reduce((a, b) => (pointsOf(b) < pointsOf(a) ? b : a));

export class JackBot extends Bot {
  bid(k: Knowledge): number | null {
    const from = k.legal.bidFrom ?? 0;
    return from > 0 && from <= bidLimit(k.hand) ? from : null;
  }
  answer(k: Knowledge, bid: number): boolean {
    return bid <= bidLimit(k.hand);
  }
  discard(k: Knowledge): [Card, Card] {
    const keep = (c: Card) => (isJack(c) ? 100 : 0) + (rankOf(c) === "A" ? 50 : 0) - pointsOf(c);
    const [a, b] = [...k.legal.discardFrom].sort((x, y) => keep(x) - keep(y));
    return [a, b];
  }
  declare(k: Knowledge): Contract {
    const plain = k.legal.contracts.filter((c) => c.announcement === Announcement.UNSPECIFIED);
    const counts: Record<string, number> = { D: 0, H: 0, S: 0, C: 0 };
    for (const c of k.hand) if (!isJack(c)) counts[suitOf(c)]++;
    for (const s of Object.keys(counts).sort((a, b) => counts[b] - counts[a])) {
      const game = GAME_OF_SUIT[s];
      if (plain.some((c) => c.game === game)) return { game, announcement: Announcement.UNSPECIFIED };
    }
    return k.legal.contracts[0];
  }
  play(k: Knowledge): Card {
    const cards = k.legal.cards;
    if (!k.currentTrick) return [...cards].find((c) => rankOf(c) === "A") ?? cheapest(cards);
    return cheapest(cards);
  }
}
