// Decisions, a little smarter than random: bid only with jacks, keep trumps, bank points.

/** A card as the proto names it, e.g. "CARD_CJ". */
export type CardName = string;

const POINTS: Record<string, number> = { A: 11, T: 10, K: 4, Q: 3, J: 2 };

export const suitOf = (c: CardName) => c.charAt(5);
export const rankOf = (c: CardName) => c.charAt(6);
export const pointsOf = (c: CardName) => POINTS[rankOf(c)] ?? 0;

/** One decision, in the shape the RPCs take. */
export type Choice =
  | { rpc: "Bid"; call: "BID_CALL_SAY" | "BID_CALL_HOLD" | "BID_CALL_PASS"; value?: number }
  | { rpc: "TakeSkat"; pickUp: boolean }
  | { rpc: "Discard"; cards: CardName[] }
  | { rpc: "Declare"; game: string; announcement: string }
  | { rpc: "PlayCard"; card: CardName };

function bidLimit(hand: CardName[]): number {
  const jacks = hand.filter((c) => rankOf(c) === "J").length;
  const aces = hand.filter((c) => rankOf(c) === "A").length;
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

/** Chooses among the view's legal actions (`view` is a skat.v1.TableView). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function decide(view: any): Choice | null {
  const deal = view.deal;
  const legal = deal.legal;
  const hand: CardName[] = deal.hand;
  if (legal.cards.length > 0) {
    const cards: CardName[] = legal.cards;
    if (deal.currentTrick == null || deal.currentTrick.cards.length === 0) {
      const ace = cards.find((c) => rankOf(c) === "A");
      return { rpc: "PlayCard", card: ace ?? cards.reduce((a, b) => (pointsOf(b) < pointsOf(a) ? b : a)) };
    }
    return { rpc: "PlayCard", card: cards.reduce((a, b) => (pointsOf(b) < pointsOf(a) ? b : a)) };
  }
  if (legal.discardFrom.length > 0) {
    const keep = (c: CardName) => (rankOf(c) === "J" ? 100 : 0) + (rankOf(c) === "A" ? 50 : 0) - pointsOf(c);
    const sorted = [...legal.discardFrom].sort((a: CardName, b: CardName) => keep(a) - keep(b));
    return { rpc: "Discard", cards: sorted.slice(0, 2) };
  }
  if (legal.contracts.length > 0) {
    const plain = legal.contracts.filter((c: { announcement: string }) => c.announcement === "ANNOUNCEMENT_UNSPECIFIED");
    const counts: Record<string, number> = { D: 0, H: 0, S: 0, C: 0 };
    for (const c of hand) if (rankOf(c) !== "J") counts[suitOf(c)]++;
    const best = Object.keys(counts).sort((a, b) => counts[b] - counts[a]);
    for (const s of best) {
      const game = GAME_OF_SUIT[s];
      if (plain.some((c: { game: string }) => c.game === game)) {
        return { rpc: "Declare", game, announcement: "ANNOUNCEMENT_UNSPECIFIED" };
      }
    }
    const c = legal.contracts[0];
    return { rpc: "Declare", game: c.game, announcement: c.announcement };
  }
  if (legal.pickUpSkat || legal.playHand) return { rpc: "TakeSkat", pickUp: true };
  if (legal.hold) return { rpc: "Bid", call: deal.bid <= bidLimit(hand) ? "BID_CALL_HOLD" : "BID_CALL_PASS" };
  if (legal.minBid > 0 && legal.minBid <= bidLimit(hand)) return { rpc: "Bid", call: "BID_CALL_SAY", value: legal.minBid };
  if (legal.mayPass) return { rpc: "Bid", call: "BID_CALL_PASS" };
  return null;
}
