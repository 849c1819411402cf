// Cards drawn as SVG, named for screen readers. Card numbers are the proto's: 1 + suit * 8
// + rank, suits diamonds, hearts, spades, clubs; ranks 7 8 9 Q K T A J.
import { Card } from "./gen/skat/v1/skat_pb";
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
  text("13", "18", "14", RANKS[i % 8]);
  text("24", "50", "26", SUITS[suit]);
  return svg;
}

/** A hand in reading order: clubs, spades, hearts, diamonds; jack, ace, ten, king, ... */
export function sortHand(cards: number[]): number[] {
  return [...cards].sort((a, b) => b - a);
}
