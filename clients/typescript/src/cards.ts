// Cards as the proto numbers them (the generated `Card` enum): 1 + suit * 8 + rank, suits
// D H S C, ranks 7 8 9 Q K T A J. Text is the ISS code (`CJ`, `HT`, `D7`), which is also
// the enum's own name: `Card[Card.CJ] === "CJ"`.

import { Card } from "./gen/skat/v1/skat_pb";

export { Card };

const SUITS = "DHSC";
const RANKS = "789QKTAJ";
const POINTS = [0, 0, 0, 3, 4, 10, 11, 2];

/** A suit letter: D, H, S or C. */
export type Suit = "D" | "H" | "S" | "C";

/** All 32 cards in the proto's order. */
export const DECK: readonly Card[] = Array.from({ length: 32 }, (_, i) => (i + 1) as Card);

/** The card's ISS code, e.g. "CJ". */
export const codeOf = (c: Card): string => SUITS[(c - 1) >> 3] + RANKS[(c - 1) & 7];
/** The card's suit letter (a jack's printed suit). */
export const suitOf = (c: Card): Suit => SUITS[(c - 1) >> 3] as Suit;
/** The card's rank letter: 7 8 9 Q K T A J. */
export const rankOf = (c: Card): string => RANKS[(c - 1) & 7];
/** Card points: A 11, T 10, K 4, Q 3, J 2, else 0. */
export const pointsOf = (c: Card): number => POINTS[(c - 1) & 7];
/** Whether the card is a jack. */
export const isJack = (c: Card): boolean => rankOf(c) === "J";

/** The card with this ISS code; throws on anything else. */
export function parseCard(code: string): Card {
  const s = SUITS.indexOf(code.charAt(0));
  const r = RANKS.indexOf(code.charAt(1));
  if (code.length !== 2 || s < 0 || r < 0) throw new Error(`not a card: ${JSON.stringify(code)} (like CJ, HT, D7)`);
  return (1 + s * 8 + r) as Card;
}

/** Cards in the proto's order. */
export const sorted = (cards: Iterable<Card>): Card[] => [...cards].sort((a, b) => a - b);
