// What one seat knows, folded from its table's stream: the same shape, names and meaning
// as the Rust SDK's `Knowledge` (the engine's `SeatView`) and the Python SDK's, in
// TypeScript's camelCase.
//
// Every event of the seat's own WatchTable stream goes through `Knowledge.apply` (a client
// that starts watching mid-deal begins with `Knowledge.fromView`); afterwards the object
// says what the seat may know at that point and nothing more:
//
//   seat, frame (number, dealer, seats), position, phase, toMove, hand, handSizes,
//   auction, bid, declarer, skatPickedUp, skat, discards, contract, handGame, openHand,
//   currentTrick, tricks, claimed, resigned, dealt, outcome, legal, finalStandings;
//   derived: game, isDeclarer, played, cardsOut, cannotHold, sameSide().
//
// `toJSON()` writes it in the form the three SDKs share; the conformance corpus
// (conformance/knowledge.jsonl) holds that form after every event of real streams, and
// this SDK's tests replay it. `legal` is the server's word: the legal actions attached to
// the event (a request that causes several events is answered only in its final state, so
// only the last of them carries any).

import {
  type ActionTaken,
  ActionKind,
  Announcement,
  BidCall,
  type DealEnded,
  type DealFacts,
  type DealResult,
  type DealStarted,
  type Event,
  ForfeitReason,
  GameType,
  type LegalActions as PbLegal,
  Phase,
  Position,
  type Standing,
  type TableView,
} from "./gen/skat/v1/skat_pb";
import { Card, DECK, codeOf, isJack, sorted, suitOf } from "./cards";

export { Announcement, GameType, Phase, Position };
export type { DealResult, Standing };

/** The current deal's frame: which deal (from 0), who deals, who sits where. */
export interface Frame {
  number: number;
  dealer: number;
  /** The seats at forehand, middlehand, rearhand. */
  seats: [number, number, number];
}

/** A call in the auction. */
export interface AuctionCall {
  position: Position;
  call: "bid" | "hold" | "pass";
  /** The value, for "bid". */
  value?: number;
}

/** A declaration: the game and its announcement (`Announcement.UNSPECIFIED`: none). */
export interface Contract {
  game: GameType;
  announcement: Announcement;
}

/** A trick: who led, the cards in play order, and who won it (absent while open). */
export interface Trick {
  leader: Position;
  cards: Card[];
  winner?: Position;
}

/** Every card as dealt, once the deal is over. */
export interface Dealt {
  hands: [Set<Card>, Set<Card>, Set<Card>];
  skat: Set<Card>;
}

/** What the seat may do now (the Rust SDK's fields). Cards are sets, as everywhere in the
 * SDK (`ReadonlySet<Card>`: `has`, `size`, `[...set]`); `sorted(set)` lists them by card
 * number. */
export interface LegalActions {
  /** May say any ladder value from this one up. */
  bidFrom?: number;
  hold: boolean;
  pass: boolean;
  pickUpSkat: boolean;
  playHand: boolean;
  /** Must discard exactly two of these (non-empty only while discarding). */
  discardFrom: ReadonlySet<Card>;
  contracts: Contract[];
  /** The cards it may play now. */
  cards: ReadonlySet<Card>;
  claim: boolean;
  resign: boolean;
}

/** Nothing to do. */
export const NO_LEGAL: LegalActions = Object.freeze({
  hold: false,
  pass: false,
  pickUpSkat: false,
  playHand: false,
  discardFrom: new Set<Card>(),
  contracts: [],
  cards: new Set<Card>(),
  claim: false,
  resign: false,
});

/** The SDK's legal actions from the proto's. */
export function legalFrom(l: PbLegal | undefined): LegalActions {
  if (!l) return NO_LEGAL;
  return {
    bidFrom: l.minBid > 0 ? l.minBid : undefined,
    hold: l.hold,
    pass: l.mayPass,
    pickUpSkat: l.pickUpSkat,
    playHand: l.playHand,
    discardFrom: new Set([...l.discardFrom].sort((a, b) => a - b)),
    contracts: l.contracts.map((c) => ({ game: c.game, announcement: c.announcement })),
    cards: new Set([...l.cards].sort((a, b) => a - b)),
    claim: l.claim,
    resign: l.resign,
  };
}

/** Whether the legal actions give a turn (anything but resign or claim out of turn). */
export function hasTurn(l: LegalActions): boolean {
  return (
    l.bidFrom !== undefined ||
    l.hold ||
    l.pass ||
    l.pickUpSkat ||
    l.playHand ||
    l.discardFrom.size > 0 ||
    l.contracts.length > 0 ||
    l.cards.size > 0
  );
}

/** A position's index (0, 1, 2) into `frame.seats`, `handSizes`, `resigned`. */
export const indexOf = (p: Position): number => p - 1;
const positionOr = (v: number): Position | undefined => (v >= 1 && v <= 3 ? (v as Position) : undefined);
const nextOf = (p: Position): Position => ((p % 3) + 1) as Position;

/** The follow class of a trump card. */
export const TRUMP = "trump";

const SUIT_GAMES: Partial<Record<GameType, string>> = {
  [GameType.DIAMONDS]: "D",
  [GameType.HEARTS]: "H",
  [GameType.SPADES]: "S",
  [GameType.CLUBS]: "C",
};

/** The suit a card belongs to for following suit: "trump", or D H S C. In null every
 * card is its own suit; in grand the jacks are trumps; in a suit game the jacks and the
 * trump suit's cards. */
export function followClass(card: Card, game: GameType): string {
  if (game === GameType.NULL) return suitOf(card);
  if (isJack(card)) return TRUMP;
  if (SUIT_GAMES[game] === suitOf(card)) return TRUMP;
  return suitOf(card);
}

/** Every card of the same follow class as `card` in `game`. */
export function followSet(card: Card, game: GameType): Set<Card> {
  const wanted = followClass(card, game);
  return new Set(DECK.filter((c) => followClass(c, game) === wanted));
}

const CALLS: Partial<Record<BidCall, AuctionCall["call"]>> = {
  [BidCall.SAY]: "bid",
  [BidCall.HOLD]: "hold",
  [BidCall.PASS]: "pass",
};

/** One seat's knowledge (see the file's header). */
export class Knowledge {
  frame?: Frame;
  position?: Position;
  phase: Phase = Phase.BIDDING;
  // The auction opens with middlehand saying to forehand.
  toMove?: Position = Position.MIDDLEHAND;
  hand = new Set<Card>();
  handSizes: [number, number, number] = [10, 10, 10];
  auction: AuctionCall[] = [];
  bid?: number;
  declarer?: Position;
  skatPickedUp?: boolean;
  skat = new Set<Card>();
  discards = new Set<Card>();
  contract?: Contract;
  handGame = false;
  openHand?: Set<Card>;
  currentTrick?: Trick;
  tricks: Trick[] = [];
  claimed = false;
  resigned: [boolean, boolean, boolean] = [false, false, false];
  dealt?: Dealt;
  outcome?: DealResult;
  legal: LegalActions = NO_LEGAL;
  finalStandings?: Standing[];

  /** Knowledge before any event, for `seat` (undefined: a spectator). */
  constructor(readonly seat?: number) {}

  // ----- derived -------------------------------------------------------------

  /** The declared game, undefined before the declaration. */
  get game(): GameType | undefined {
    return this.contract?.game;
  }

  get isDeclarer(): boolean {
    return this.position !== undefined && this.position === this.declarer;
  }

  /** Every card played so far (completed tricks and the current one). */
  get played(): Set<Card> {
    const out = new Set<Card>(this.currentTrick?.cards ?? []);
    for (const t of this.tricks) for (const c of t.cards) out.add(c);
    return out;
  }

  /** The cards this seat has not seen: still in other hands (or the unseen skat). */
  get cardsOut(): Set<Card> {
    const seen = new Set<Card>([...this.hand, ...this.played, ...this.skat, ...this.discards, ...(this.openHand ?? [])]);
    return new Set(DECK.filter((c) => !seen.has(c)));
  }

  /** Per position (by index), the cards it cannot hold: those of every suit (trumps
   * counted as one suit) it failed to follow. */
  get cannotHold(): [Set<Card>, Set<Card>, Set<Card>] {
    const out: [Set<Card>, Set<Card>, Set<Card>] = [new Set(), new Set(), new Set()];
    const game = this.game;
    if (game === undefined) return out;
    const tricks: { leader: Position; cards: Card[] }[] = [...this.tricks];
    if (this.currentTrick) tricks.push(this.currentTrick);
    for (const t of tricks) {
      if (t.cards.length === 0) continue;
      const follow = followSet(t.cards[0], game);
      let p = t.leader;
      for (const c of t.cards) {
        if (!follow.has(c)) for (const f of follow) out[indexOf(p)].add(f);
        p = nextOf(p);
      }
    }
    return out;
  }

  /** Whether `a` and `b` play on the same side (both the declarer, or both defenders). */
  sameSide(a: Position, b: Position): boolean {
    return (a === this.declarer) === (b === this.declarer);
  }

  /** Whether the seat must act now (not only resign or claim out of turn). */
  hasTurn(): boolean {
    return hasTurn(this.legal);
  }

  // ----- the fold ------------------------------------------------------------

  /** Folds one event of the seat's stream into the knowledge. */
  apply(event: Event): void {
    const k = event.kind;
    if (k.case === "dealStarted") this.start(k.value);
    else if (k.case === "actionTaken") this.moved(k.value);
    else if (k.case === "dealEnded") this.ended(k.value);
    else if (k.case === "matchEnded") this.finalStandings = k.value.standings;
    this.legal = legalFrom(event.legal);
  }

  private start(d: DealStarted): void {
    const fresh = new Knowledge(this.seat);
    fresh.finalStandings = this.finalStandings;
    Object.assign(this, fresh);
    const seats = [...d.positionSeats] as [number, number, number];
    this.frame = { number: d.number, dealer: d.dealerSeat, seats };
    const index = this.seat === undefined ? -1 : seats.indexOf(this.seat);
    if (index >= 0) {
      this.position = (index + 1) as Position;
      this.hand = new Set(d.hand);
    }
  }

  private moved(a: ActionTaken): void {
    const act = a.action;
    const who = a.position;
    const facts = a.facts;
    const mine = this.position === who;
    if (act) {
      switch (act.kind) {
        case ActionKind.BID:
          this.auction.push({ position: who, call: "bid", value: act.bid });
          break;
        case ActionKind.HOLD:
          this.auction.push({ position: who, call: "hold" });
          break;
        case ActionKind.PASS:
          this.auction.push({ position: who, call: "pass" });
          break;
        case ActionKind.PICK_UP_SKAT:
          this.skatPickedUp = true;
          this.handSizes[indexOf(who)] += 2;
          if (mine) {
            this.skat = new Set(act.cards);
            for (const c of act.cards) this.hand.add(c);
          }
          break;
        case ActionKind.PLAY_HAND:
          this.skatPickedUp = false;
          break;
        case ActionKind.DISCARD:
          this.handSizes[indexOf(who)] = Math.max(0, this.handSizes[indexOf(who)] - 2);
          if (mine) {
            this.discards = new Set(act.cards);
            for (const c of act.cards) this.hand.delete(c);
          }
          break;
        case ActionKind.PLAY_CARD:
          this.play(who, act.card, facts);
          break;
        case ActionKind.CLAIM:
          this.claimed = true;
          break;
        case ActionKind.RESIGN:
          this.resigned[indexOf(who)] = true;
          break;
      }
    }
    if (a.openHand.length > 0) this.openHand = new Set(a.openHand);
    this.phase = facts?.phase ?? this.phase;
    this.toMove = positionOr(facts?.toMove ?? 0);
    this.declarer = positionOr(facts?.declarer ?? 0);
    this.bid = facts && facts.bid > 0 ? facts.bid : undefined;
    const d = facts?.declaration;
    this.contract = d ? { game: d.game, announcement: d.announcement } : undefined;
    this.handGame = (d?.hand ?? false) || this.skatPickedUp === false;
  }

  private play(who: Position, card: Card, facts: DealFacts | undefined): void {
    this.handSizes[indexOf(who)] = Math.max(0, this.handSizes[indexOf(who)] - 1);
    if (who === this.position) this.hand.delete(card);
    if (positionOr(facts?.declarer ?? 0) === who && this.openHand) {
      this.openHand.delete(card);
      if (this.openHand.size === 0) this.openHand = undefined;
    }
    const trick: Trick = { leader: this.currentTrick?.leader ?? who, cards: [...(this.currentTrick?.cards ?? []), card] };
    const winner = positionOr(facts?.trickWinner ?? 0);
    if (winner !== undefined && trick.cards.length === 3) {
      trick.winner = winner;
      this.tricks.push(trick);
      this.currentTrick = undefined;
    } else {
      this.currentTrick = trick;
    }
  }

  private ended(e: DealEnded): void {
    this.phase = Phase.FINISHED;
    this.toMove = undefined;
    const d = e.dealt;
    this.dealt = {
      hands: [new Set(d?.forehand ?? []), new Set(d?.middlehand ?? []), new Set(d?.rearhand ?? [])],
      skat: new Set(d?.skat ?? []),
    };
    this.outcome = e.result;
    this.skat = new Set(this.dealt.skat);
    this.discards = new Set(d?.discards ?? []);
    this.openHand = undefined;
  }

  // ----- a snapshot ----------------------------------------------------------

  /** The knowledge a table view shows: for a client that starts following mid-deal
   * (WatchTable without `afterSeq` sends this view first). */
  static fromView(view: TableView): Knowledge {
    const k = new Knowledge(view.yourSeat);
    const d = view.deal;
    if (!d) return k;
    k.frame = { number: d.number, dealer: d.dealerSeat, seats: [...d.positionSeats] as [number, number, number] };
    k.position = positionOr(d.yourPosition);
    k.phase = d.phase;
    k.toMove = positionOr(d.toMove);
    k.hand = new Set(d.hand);
    k.handSizes = [...d.handSizes] as [number, number, number];
    k.auction = d.auction.map((a) => {
      const call = CALLS[a.call] ?? "pass";
      return call === "bid" ? { position: a.position, call, value: a.value } : { position: a.position, call };
    });
    k.bid = d.bid > 0 ? d.bid : undefined;
    k.declarer = positionOr(d.declarer);
    k.skatPickedUp = d.skatDecided ? d.skatPickedUp : undefined;
    k.skat = new Set(d.skat);
    k.discards = new Set(d.discards);
    k.contract = d.contract ? { game: d.contract.game, announcement: d.contract.announcement } : undefined;
    k.handGame = d.contract ? d.contract.hand : d.skatDecided && !d.skatPickedUp;
    k.openHand = d.openHand.length > 0 ? new Set(d.openHand) : undefined;
    if (d.currentTrick && d.currentTrick.cards.length > 0) {
      k.currentTrick = { leader: d.currentTrick.leader, cards: [...d.currentTrick.cards] };
    }
    k.tricks = d.tricks.map((t) => ({ leader: t.leader, cards: [...t.cards], winner: t.winner }));
    k.claimed = d.claimed;
    k.resigned = [1, 2, 3].map((p) => d.resigned.includes(p as Position)) as [boolean, boolean, boolean];
    if (d.dealt) {
      k.dealt = {
        hands: [new Set(d.dealt.forehand), new Set(d.dealt.middlehand), new Set(d.dealt.rearhand)],
        skat: new Set(d.dealt.skat),
      };
    }
    k.outcome = d.result;
    k.legal = legalFrom(d.legal);
    return k;
  }

  // ----- the shared form -----------------------------------------------------

  /** The knowledge in the form the three SDKs share (`JSON.stringify(k)` writes it). */
  toJSON(): KnowledgeJson {
    return knowledgeJson(this);
  }
}

// ----- the shared form ---------------------------------------------------------
//
// The knowledge in the form the Rust, Python and TypeScript SDKs share: the same keys and
// values as the Rust SDK's `skat_sdk::knowledge::to_json` and the Python SDK's
// `Knowledge.to_dict()` (snake_case keys, as the shared corpus has them). Cards are ISS
// codes ("CJ"), a set sorted by card number and a trick in play order; positions, phases,
// games and announcements are the proto's enum names without their prefix, in lower
// case; absent values are null.

/** A value of the shared form. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** The knowledge in the shared form. */
export type KnowledgeJson = { [key: string]: Json };

const cards = (c: Iterable<Card>): Json => sorted(c).map(codeOf);
const inOrder = (c: Card[]): Json => c.map(codeOf);
const lower = (name: string | undefined): string | null => (name === undefined ? null : name.toLowerCase());
const position = (p: Position | undefined): Json => (p === undefined || p === Position.UNSPECIFIED ? null : lower(Position[p]));
const game = (g: GameType): string => lower(GameType[g]) ?? "";
const contract = (c: Contract): Json => ({
  game: game(c.game),
  announcement: c.announcement === Announcement.UNSPECIFIED ? "none" : lower(Announcement[c.announcement]),
});
const reason = (r: ForfeitReason): Json => lower(ForfeitReason[r]);

function outcome(r: DealResult): Json {
  if (r.passedIn) return { kind: "passed_in" };
  if (r.penalty) return { kind: "penalty", offender: position(r.declarer), reason: reason(r.forfeitReason), value: r.value };
  const out: { [key: string]: Json } = {
    kind: "game",
    declarer: position(r.declarer),
    contract: r.contract ? contract(r.contract) : null,
    hand: r.contract?.hand ?? false,
    bid: r.bid,
    matadors: r.matadors,
    multiplier: r.multiplier,
    value: r.value,
    declarer_points: r.declarerPoints,
    declarer_tricks: r.declarerTricks,
    schneider: r.schneider,
    schwarz: r.schwarz,
    overbid: r.overbid,
    won: r.won,
    end: r.end,
  };
  if (r.end === "forfeit") {
    out.forfeited_by = position(r.forfeitedBy);
    out.forfeit_reason = reason(r.forfeitReason);
  }
  return out;
}

const standing = (s: Standing): Json => ({
  seat: s.seat,
  plain: s.plain,
  seeger_fabian: s.seegerFabian,
  declared: s.declared,
  won: s.won,
  lost: s.lost,
  declared_value: s.declaredValue,
  defended_won: s.defendedWon,
  penalties: s.penalties,
});

/** `k` in the shared form. */
export function knowledgeJson(k: Knowledge): KnowledgeJson {
  const l = k.legal;
  return {
    seat: k.seat ?? null,
    frame: k.frame ? { number: k.frame.number, dealer: k.frame.dealer, seats: [...k.frame.seats] } : null,
    position: position(k.position),
    phase: lower(Phase[k.phase]),
    to_move: position(k.toMove),
    hand: cards(k.hand),
    hand_sizes: [...k.handSizes],
    auction: k.auction.map((a): Json =>
      a.call === "bid" ? { position: position(a.position), call: a.call, value: a.value ?? 0 } : { position: position(a.position), call: a.call },
    ),
    bid: k.bid ?? null,
    declarer: position(k.declarer),
    skat_picked_up: k.skatPickedUp ?? null,
    skat: cards(k.skat),
    discards: cards(k.discards),
    contract: k.contract ? contract(k.contract) : null,
    hand_game: k.handGame,
    open_hand: k.openHand ? cards(k.openHand) : null,
    current_trick: k.currentTrick ? { leader: position(k.currentTrick.leader), cards: inOrder(k.currentTrick.cards) } : null,
    tricks: k.tricks.map((t) => ({ leader: position(t.leader), cards: inOrder(t.cards), winner: position(t.winner) })),
    claimed: k.claimed,
    resigned: [...k.resigned],
    dealt: k.dealt ? { hands: k.dealt.hands.map(cards), skat: cards(k.dealt.skat) } : null,
    outcome: k.outcome ? outcome(k.outcome) : null,
    legal: {
      bid_from: l.bidFrom ?? null,
      hold: l.hold,
      pass: l.pass,
      pick_up_skat: l.pickUpSkat,
      play_hand: l.playHand,
      discard_from: cards(l.discardFrom),
      contracts: l.contracts.map(contract),
      cards: cards(l.cards),
      claim: l.claim,
      resign: l.resign,
    },
    final_standings: k.finalStandings ? k.finalStandings.map(standing) : null,
    game: k.game === undefined ? null : game(k.game),
    is_declarer: k.isDeclarer,
    played: cards(k.played),
    cards_out: cards(k.cardsOut),
    cannot_hold: k.cannotHold.map(cards),
  };
}
