// The example bot's decisions, a little smarter than random: bid only with jacks, keep
// trumps, bank points, cash aces. Built on the SDK's Bot and Knowledge.

import { Bot } from "./sdk";
import { CardName, Contract, Knowledge, isJack, pointsOf, rankOf, suitOf } from "./knowledge";

function bidLimit(hand: Set<CardName>): number {
  const cards = [...hand];
  const jacks = cards.filter(isJack).length;
  const aces = cards.filter((c) => rankOf(c) === "A").length;
  if (jacks >= 3) return 36;
  if (jacks >= 2 || (jacks === 1 && aces >= 2)) return 24;
  return 0;
}

const GAME_OF_SUIT: Record<string, string> = {
  D: "GAME_TYPE_DIAMONDS",
  H: "GAME_TYPE_HEARTS",
  S: "GAME_TYPE_SPADES",
  C: "GAME_TYPE_CLUBS",
};

const cheapest = (cards: CardName[]) => cards.reduce((a, b) => (pointsOf(b) < pointsOf(a) ? b : a));

export class JackBot extends Bot {
  bid(k: Knowledge): number | null {
    return Number(k.legal.minBid) <= bidLimit(k.hand) ? Number(k.legal.minBid) : null;
  }
  answer(k: Knowledge, bid: number): boolean {
    return bid <= bidLimit(k.hand);
  }
  discard(k: Knowledge): CardName[] {
    const keep = (c: CardName) => (isJack(c) ? 100 : 0) + (rankOf(c) === "A" ? 50 : 0) - pointsOf(c);
    return [...k.legal.discardFrom].sort((a: CardName, b: CardName) => keep(a) - keep(b)).slice(0, 2);
  }
  declare(k: Knowledge): Contract {
    const plain = k.legal.contracts.filter((c: Contract) => c.announcement === "ANNOUNCEMENT_UNSPECIFIED");
    const counts: Record<string, number> = { D: 0, H: 0, S: 0, C: 0 };
    for (const c of k.hand) if (!isJack(c)) counts[suitOf(c)]++;
    for (const s of Object.keys(counts).sort((a, b) => counts[b] - counts[a])) {
      const game = GAME_OF_SUIT[s];
      if (plain.some((c: Contract) => c.game === game)) return { game, announcement: "ANNOUNCEMENT_UNSPECIFIED" };
    }
    const c = k.legal.contracts[0];
    return { game: c.game, announcement: c.announcement };
  }
  play(k: Knowledge): CardName {
    const cards: CardName[] = k.legal.cards;
    if (!k.trick) return cards.find((c) => rankOf(c) === "A") ?? cheapest(cards);
    return cheapest(cards);
  }
}
