// The knowledge in the form the Rust, Python and TypeScript SDKs share: the same keys and
// values as the Rust SDK's `skat_sdk::knowledge::to_json` and the Python SDK's
// `Knowledge.to_dict()` (snake_case keys, as the shared corpus has them). Cards are ISS
// codes ("CJ"), a set sorted by card number and a trick in play order; positions, phases,
// games and announcements are the proto's enum names without their prefix, in lower
// case; absent values are null.

import { Announcement, type DealResult, ForfeitReason, GameType, Phase, Position, type Standing } from "./gen/skat/v1/skat_pb";
import { Card, codeOf, sorted } from "./cards";
import type { Contract, Knowledge } from "./knowledge";

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
