// Cards drawn as SVG, named for screen readers. Card numbers are the proto's: 1 + suit * 8
// + rank, suits diamonds, hearts, spades, clubs; ranks 7 8 9 Q K T A J.
import { Card, GameType } from "./gen/skat/v1/skat_pb";
import { t } from "./i18n";

const SUITS = ["♦", "♥", "♠", "♣"];
const RANKS = ["7", "8", "9", "Q", "K", "10", "A", "J"];
const SVG = "http://www.w3.org/2000/svg";

/** A card's spoken name in the page's language: "jack of clubs", "Kreuz Bube". */
export function cardName(card: number): string {
  const i = card - 1;
  return t("card", { rank: t(`rank.${i % 8}` as "rank.0"), suit: t(`suit.${Math.floor(i / 8)}` as "suit.0") });
}

/** The ISS code (e.g. `HQ`), from the record's text or the enum. */
export function cardFromCode(code: string): number {
  const value = (Card as unknown as Record<string, number>)[code];
  return typeof value === "number" ? value : 0;
}

/** One card; `where` and `deal` say why it may be shown (the DOM test reads them). */
export function cardSvg(card: number, where: string, deal: number): SVGSVGElement {
  const i = card - 1;
  const suit = Math.floor(i / 8);
  const red = suit < 2;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 48 70");
  svg.setAttribute("class", "card");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", cardName(card));
  svg.setAttribute("data-card", Card[card] ?? String(card));
  svg.setAttribute("data-where", where);
  svg.setAttribute("data-deal", String(deal));
  const rect = document.createElementNS(SVG, "rect");
  for (const [k, v] of Object.entries({ x: "1", y: "1", width: "46", height: "68", rx: "5", fill: "#fffdf8", stroke: "#7a8580" })) rect.setAttribute(k, v);
  svg.append(rect);
  const color = red ? "#c0182b" : "#1d2321";
  const text = (x: string, y: string, size: string, content: string) => {
    const t = document.createElementNS(SVG, "text");
    for (const [k, v] of Object.entries({ x, y, "font-size": size, fill: color, "text-anchor": "middle", "font-family": "system-ui, sans-serif", "font-weight": "700" })) t.setAttribute(k, v);
    t.textContent = content;
    t.setAttribute("aria-hidden", "true");
    svg.append(t);
  };
  // Rank and suit in the corner (what a fan of overlapping cards shows), the suit large.
  text("11", "17", "14", RANKS[i % 8]);
  text("11", "31", "12", SUITS[suit]);
  text("28", "54", "24", SUITS[suit]);
  return svg;
}

/** Where a card stands in a hand sorted for `game` (smaller first). */
function place(card: number, game: GameType, suitOrder: number[]): number {
  const i = card - 1;
  const suit = Math.floor(i / 8);
  const rank = i % 8; // 7 8 9 Q K T A J
  const bySuit = suitOrder.indexOf(suit) * 10;
  if (game === GameType.NULL) {
    // No trumps; each suit A K Q J 10 9 8 7.
    return bySuit + [7, 6, 5, 2, 1, 4, 0, 3][rank];
  }
  // Jacks first (clubs, spades, hearts, diamonds): they are trumps in suit and grand games.
  if (rank === 7) return -10 + (3 - suit);
  // Then each suit A 10 K Q 9 8 7, the trump suit first.
  return bySuit + [6, 5, 4, 3, 2, 1, 0][rank];
}

/** The suits in the order a hand shows them: the trump suit first, then the others in
 * alternating colours where the hand allows (clubs, hearts, spades, diamonds). */
function suitOrder(game: GameType): number[] {
  const trump = { [GameType.DIAMONDS]: 0, [GameType.HEARTS]: 1, [GameType.SPADES]: 2, [GameType.CLUBS]: 3 }[game as number];
  const rest = [3, 1, 2, 0].filter((s) => s !== trump);
  return trump === undefined ? [3, 1, 2, 0] : [trump, ...rest];
}

/** A hand sorted for the game being played (before the declaration: as a grand, jacks
 * first): jacks, then the trump suit, then the other suits, each high to low; in null
 * games no trumps and the null order (A K Q J 10 9 8 7). */
export function sortHand(cards: number[], game: GameType = GameType.GRAND): number[] {
  const order = suitOrder(game);
  return [...cards].sort((a, b) => place(a, game, order) - place(b, game, order));
}

/** A card's back: no face, no name (a hidden card is no card in the DOM). */
export function cardBack(): SVGSVGElement {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 48 70");
  svg.setAttribute("class", "card back");
  svg.setAttribute("aria-hidden", "true");
  const rect = document.createElementNS(SVG, "rect");
  for (const [k, v] of Object.entries({ x: "1", y: "1", width: "46", height: "68", rx: "5", fill: "#2d4f8a", stroke: "#e8ecf4", "stroke-width": "2" })) rect.setAttribute(k, v);
  const inner = document.createElementNS(SVG, "rect");
  for (const [k, v] of Object.entries({ x: "6", y: "6", width: "36", height: "58", rx: "3", fill: "none", stroke: "#9fb3d9", "stroke-dasharray": "3 2" })) inner.setAttribute(k, v);
  svg.append(rect, inner);
  return svg;
}
