// What a game is worth (ISkO 4): a suit or grand game is its base value (diamonds 9,
// hearts 10, spades 11, clubs 12, grand 24) times its multiplier: matadors "with" or
// "without", plus one for the game, one for hand, and one for each level made or
// announced; a null game has a fixed value (23, hand 35, ouvert 46, hand ouvert 59). The
// contract chooser shows each legal game's value at the least it is sure to be worth if
// won as announced, from the cards the declarer knows, so that an overbid shows before it
// is made.
import { Announcement, GameType } from "./gen/skat/v1/skat_pb";

const BASE: Partial<Record<GameType, number>> = {
  [GameType.DIAMONDS]: 9, [GameType.HEARTS]: 10, [GameType.SPADES]: 11, [GameType.CLUBS]: 12, [GameType.GRAND]: 24,
};

/** The proto's card number of `rank` (7 8 9 Q K 10 A J: 0..7) in `suit` (♦ ♥ ♠ ♣: 0..3). */
const card = (suit: number, rank: number) => 1 + suit * 8 + rank;

/** The trumps of `game`, highest first (jacks, then the trump suit's A 10 K Q 9 8 7). */
function trumps(game: GameType): number[] {
  const jacks = [card(3, 7), card(2, 7), card(1, 7), card(0, 7)];
  const suit = game - GameType.DIAMONDS;
  if (game === GameType.GRAND || suit < 0 || suit > 3) return jacks;
  return [...jacks, ...[6, 5, 4, 3, 2, 1, 0].map((r) => card(suit, r))];
}

/** Matadors "with" or "without" in `cards` for `game`: how many top trumps in an
 * unbroken run are held (or missing, from the club jack down). */
export function matadors(cards: number[], game: GameType): number {
  const order = trumps(game);
  const first = cards.includes(order[0]);
  let n = 0;
  while (n < order.length && cards.includes(order[n]) === first) n++;
  return n;
}

/** The least value of `game` won as announced, from `cards` (the declarer's ten, and the
 * skat when it knows it). Matadors may grow with a skat it has not seen. */
export function gameValue(game: GameType, hand: boolean, announcement: Announcement, cards: number[]): number {
  if (game === GameType.NULL) {
    const ouvert = announcement === Announcement.OUVERT;
    return hand ? (ouvert ? 59 : 35) : (ouvert ? 46 : 23);
  }
  const base = BASE[game] ?? 0;
  // Levels: schneider announced implies schneider made (+2); schwarz announced implies
  // schneider, its announcement and schwarz (+4); ouvert implies schwarz announced (+5).
  const levels = { [Announcement.SCHNEIDER]: 2, [Announcement.SCHWARZ]: 4, [Announcement.OUVERT]: 5 }[announcement as number] ?? 0;
  return base * (matadors(cards, game) + 1 + (hand ? 1 : 0) + levels);
}

/** Card points by rank (7 8 9 Q K 10 A J). */
export const POINTS = [0, 0, 0, 3, 4, 10, 11, 2];

/** The points of `cards`. */
export function points(cards: number[]): number {
  return cards.reduce((sum, c) => sum + POINTS[(c - 1) % 8], 0);
}

/** Which of a trick's cards (in the order played) takes it in `game` (ISkO 2.2): the
 * highest trump, else the highest card of the suit led; in null games there are no
 * trumps and the order is 7 8 9 10 J Q K A. */
export function trickWinner(cards: number[], game: GameType): number {
  const suit = (c: number) => Math.floor((c - 1) / 8);
  const rank = (c: number) => (c - 1) % 8; // 7 8 9 Q K 10 A J
  const trumpSuit = game - GameType.DIAMONDS;
  const isTrump = (c: number) => game !== GameType.NULL && (rank(c) === 7 || (trumpSuit >= 0 && trumpSuit <= 3 && suit(c) === trumpSuit));
  // Strength within a suit: 7 8 9 Q K 10 A for suit and grand games; null adds the jack
  // and the ten in their natural places.
  const inSuit = (c: number) => (game === GameType.NULL ? [0, 1, 2, 5, 6, 3, 7, 4] : [0, 1, 2, 3, 4, 5, 6, 0])[rank(c)];
  const led = cards[0];
  const strength = (c: number) => {
    if (isTrump(c)) return 1000 + (rank(c) === 7 ? 100 + suit(c) : inSuit(c));
    if (!isTrump(led) && suit(c) === suit(led)) return 100 + inSuit(c);
    return 0;
  };
  let best = 0;
  cards.forEach((c, i) => { if (strength(c) > strength(cards[best])) best = i; });
  return best;
}
