// What one seat knows, folded from its table's stream: the same meaning as the Rust
// SDK's `Knowledge` (the engine's `SeatView`) and the Python SDK's.
//
// Every event of the seat's own WatchTable stream goes through `Knowledge.apply`;
// afterwards the object says what the seat may know at that point and nothing more: its
// hand, the auction, the skat if it picked it up, its discards, the declaration, an
// open hand, the current trick, every trick, every card played, and which suits each
// position has shown it lacks (`voids`). `legal` is what the seat may do now.

/** A card as the proto names it, e.g. "CARD_CJ". */
export type CardName = string;
/** A position as the proto names it, e.g. "POSITION_FOREHAND". */
export type Position = string;

const POINTS: Record<string, number> = { A: 11, T: 10, K: 4, Q: 3, J: 2 };
export const suitOf = (c: CardName) => c.charAt(5);
export const rankOf = (c: CardName) => c.charAt(6);
export const pointsOf = (c: CardName) => POINTS[rankOf(c)] ?? 0;
export const isJack = (c: CardName) => rankOf(c) === "J";

const SUIT_GAMES: Record<string, string> = {
  GAME_TYPE_DIAMONDS: "D",
  GAME_TYPE_HEARTS: "H",
  GAME_TYPE_SPADES: "S",
  GAME_TYPE_CLUBS: "C",
};

/** The follow class of a trump card. */
export const TRUMP = "trump";

/** The suit a card belongs to for following suit: "trump", or D H S C. */
export function followClass(card: CardName, game: string): string {
  if (game === "GAME_TYPE_NULL") return suitOf(card);
  if (isJack(card)) return TRUMP;
  if (SUIT_GAMES[game] === suitOf(card)) return TRUMP;
  return suitOf(card);
}

/** Whether legal actions give a turn (not only resign or claim out of turn). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function hasTurn(legal: any): boolean {
  if (!legal) return false;
  return (
    legal.cards.length > 0 ||
    legal.discardFrom.length > 0 ||
    legal.contracts.length > 0 ||
    legal.pickUpSkat ||
    legal.playHand ||
    legal.hold ||
    legal.mayPass ||
    Number(legal.minBid) > 0
  );
}

export interface Trick {
  leader: Position;
  cards: { position: Position; card: CardName }[];
  winner?: Position;
}

export interface Contract {
  game: string;
  announcement: string;
  hand?: boolean;
}

const EMPTY_LEGAL = {
  cards: [],
  discardFrom: [],
  contracts: [],
  pickUpSkat: false,
  playHand: false,
  hold: false,
  mayPass: false,
  minBid: 0,
  resign: false,
  claim: false,
};

export class Knowledge {
  deal = 0;
  position?: Position;
  positionSeats: number[] = [];
  hand = new Set<CardName>();
  auction: { position: Position; kind: string; value: number }[] = [];
  bid = 0;
  declarer?: Position;
  phase = "PHASE_UNSPECIFIED";
  toMove?: Position;
  skat: CardName[] = [];
  discards: CardName[] = [];
  contract?: Contract;
  openHand = new Set<CardName>();
  claimed = false;
  trick?: Trick;
  tricks: Trick[] = [];
  played = new Set<CardName>();
  voids = new Map<Position, Set<string>>();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  legal: any = EMPTY_LEGAL;
  seq = "0";
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  result?: any;

  constructor(readonly seat?: number) {}

  get game(): string {
    return this.contract?.game ?? "GAME_TYPE_UNSPECIFIED";
  }

  get isDeclarer(): boolean {
    return this.position !== undefined && this.position === this.declarer;
  }

  hasTurn(): boolean {
    return hasTurn(this.legal);
  }

  /** Folds one event (a skat.v1.Event as @grpc/proto-loader gives it) into the knowledge. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  apply(event: any): void {
    if (event.dealStarted) this.start(event.dealStarted);
    else if (event.actionTaken) this.action(event.actionTaken);
    else if (event.dealEnded) this.result = event.dealEnded.result;
    // After the fold: a new deal resets everything else.
    this.seq = String(event.seq);
    this.legal = event.legal ?? EMPTY_LEGAL;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private start(d: any): void {
    const fresh = new Knowledge(this.seat);
    Object.assign(this, fresh);
    this.deal = Number(d.number);
    this.positionSeats = d.positionSeats.map(Number);
    const index = this.seat === undefined ? -1 : this.positionSeats.indexOf(this.seat);
    this.position = index >= 0 ? ["POSITION_FOREHAND", "POSITION_MIDDLEHAND", "POSITION_REARHAND"][index] : undefined;
    this.hand = new Set(d.hand);
    this.phase = "PHASE_BIDDING";
    for (const p of ["POSITION_FOREHAND", "POSITION_MIDDLEHAND", "POSITION_REARHAND"]) this.voids.set(p, new Set());
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private action(a: any): void {
    const facts = a.facts ?? {};
    this.phase = facts.phase ?? this.phase;
    this.toMove = facts.toMove && facts.toMove !== "POSITION_UNSPECIFIED" ? facts.toMove : undefined;
    this.declarer = facts.declarer && facts.declarer !== "POSITION_UNSPECIFIED" ? facts.declarer : undefined;
    this.bid = Number(facts.bid ?? 0);
    if (facts.declaration) this.contract = facts.declaration;
    if (a.openHand && a.openHand.length > 0) this.openHand = new Set(a.openHand);
    const act = a.action;
    const who: Position = a.position;
    const mine = this.position !== undefined && who === this.position;
    switch (act.kind) {
      case "ACTION_KIND_BID":
      case "ACTION_KIND_HOLD":
      case "ACTION_KIND_PASS":
        this.auction.push({ position: who, kind: act.kind, value: Number(act.bid) });
        break;
      case "ACTION_KIND_PICK_UP_SKAT":
        if (mine && act.cards.length > 0) {
          this.skat = [...act.cards];
          for (const c of act.cards) this.hand.add(c);
        }
        break;
      case "ACTION_KIND_DISCARD":
        if (mine && act.cards.length > 0) {
          this.discards = [...act.cards];
          for (const c of act.cards) this.hand.delete(c);
        }
        break;
      case "ACTION_KIND_DECLARE":
        this.contract = act.contract;
        break;
      case "ACTION_KIND_CLAIM":
        this.claimed = true;
        break;
      case "ACTION_KIND_PLAY_CARD":
        this.playCard(who, act.card, facts.trickWinner);
        break;
    }
  }

  private playCard(who: Position, card: CardName, winner?: Position): void {
    if (!this.trick) this.trick = { leader: who, cards: [] };
    if (this.trick.cards.length > 0) {
      const led = followClass(this.trick.cards[0].card, this.game);
      if (followClass(card, this.game) !== led) {
        if (!this.voids.has(who)) this.voids.set(who, new Set());
        this.voids.get(who)!.add(led);
      }
    }
    this.trick.cards.push({ position: who, card });
    this.played.add(card);
    this.hand.delete(card);
    this.openHand.delete(card);
    if (winner && winner !== "POSITION_UNSPECIFIED") {
      this.trick.winner = winner;
      this.tricks.push(this.trick);
      this.trick = undefined;
    }
  }
}
