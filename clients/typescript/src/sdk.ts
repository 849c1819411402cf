// The TypeScript SDK: write a `Bot` (six decisions), hand it to `joinAndPlay` or
// `playWithToken`, and the SDK does the rest: the stream, the seat's `Knowledge`,
// `expectedSeq`, reconnecting and resuming with `afterSeq`.

import * as grpc from "@grpc/grpc-js";
import { bearer, call, connect } from "./proto";
import { reason } from "./errors";
import { CardName, Contract, Knowledge } from "./knowledge";

/** A Skat bot: the same six decisions as the Rust and Python SDKs' `Bot`. Extend it and
 * override what you want; the defaults take the first legal choice. */
export class Bot {
  /** Your turn to call: a value of at least `k.legal.minBid` on the bid ladder, or null to pass. */
  bid(_k: Knowledge): number | null {
    return null;
  }
  /** Somebody bid `bid` to you: true to hold. */
  answer(_k: Knowledge, _bid: number): boolean {
    return false;
  }
  /** You won the auction: true to pick up the skat, false to play hand. */
  takeSkat(_k: Knowledge): boolean {
    return true;
  }
  /** You picked up the skat (it is in `k.hand`): the two cards to put away. */
  discard(k: Knowledge): CardName[] {
    return k.legal.discardFrom.slice(0, 2);
  }
  /** Your declaration, one of `k.legal.contracts`. */
  declare(k: Knowledge): Contract {
    const c = k.legal.contracts[0];
    return { game: c.game, announcement: c.announcement };
  }
  /** Your card, one of `k.legal.cards`. */
  play(k: Knowledge): CardName {
    return k.legal.cards[0];
  }
}

/** One request to send: the RPC and its fields. */
export type Choice =
  | { rpc: "Bid"; call: "BID_CALL_SAY" | "BID_CALL_HOLD" | "BID_CALL_PASS"; value?: number }
  | { rpc: "TakeSkat"; pickUp: boolean }
  | { rpc: "Discard"; cards: CardName[] }
  | { rpc: "Declare"; game: string; announcement: string }
  | { rpc: "PlayCard"; card: CardName };

/** Asks the bot the decision `k.legal` calls for (null: not the seat's turn). */
export function decide(bot: Bot, k: Knowledge): Choice | null {
  const legal = k.legal;
  if (legal.cards.length > 0) return { rpc: "PlayCard", card: bot.play(k) };
  if (legal.discardFrom.length > 0) return { rpc: "Discard", cards: bot.discard(k) };
  if (legal.contracts.length > 0) {
    const c = bot.declare(k);
    return { rpc: "Declare", game: c.game, announcement: c.announcement };
  }
  if (legal.pickUpSkat || legal.playHand) {
    const pickUp = legal.pickUpSkat && legal.playHand ? bot.takeSkat(k) : Boolean(legal.pickUpSkat);
    return { rpc: "TakeSkat", pickUp };
  }
  if (legal.hold) return { rpc: "Bid", call: bot.answer(k, k.bid) ? "BID_CALL_HOLD" : "BID_CALL_PASS" };
  if (Number(legal.minBid) > 0) {
    const value = bot.bid(k);
    return value === null ? { rpc: "Bid", call: "BID_CALL_PASS" } : { rpc: "Bid", call: "BID_CALL_SAY", value };
  }
  if (legal.mayPass) return { rpc: "Bid", call: "BID_CALL_PASS" };
  return null;
}

/** Refusals that only mean the table moved on while the bot was thinking. */
export const MOVED_ON = new Set(["STALE_SEQ", "NOT_YOUR_TURN", "WRONG_PHASE", "DEAL_OVER", "TABLE_FINISHED"]);

export interface Standing {
  seat: number;
  name: string;
  plain: number;
  seegerFabian: number;
  declared: number;
  won: number;
}

export interface Finished {
  seat: number;
  standings: Standing[];
  reconnects: number;
  decisions: number;
}

/** A seat at a table: its server, table, token and number. */
export class Seat {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  client: any;
  constructor(
    readonly server: string,
    readonly tableId: string,
    readonly token: string,
    readonly seat: number,
  ) {
    this.client = connect(server);
  }

  reconnect(): void {
    this.client.close?.();
    this.client = connect(this.server);
  }

  /** Takes a seat (the first open one unless `seat` is given). */
  static async join(server: string, tableId: string, name = "ts-bot", seat?: number, joinCode = ""): Promise<Seat> {
    const client = connect(server);
    const r = await call<{ token: string; seat: number }>(client, "JoinTable", { tableId, name, seat, joinCode });
    client.close?.();
    return new Seat(server, tableId, r.token, r.seat);
  }

  /** A seat from a token handed out elsewhere (`skat arena`, `skat table create --take-seats`). */
  static async withToken(server: string, tableId: string, token: string): Promise<Seat> {
    const client = connect(server);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const view = (await call<any>(client, "GetTable", { tableId }, bearer(token))).table;
    client.close?.();
    return new Seat(server, tableId, token, view.yourSeat);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async view(): Promise<any> {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return (await call<any>(this.client, "GetTable", { tableId: this.tableId }, bearer(this.token))).table;
  }

  async send(choice: Choice, expectedSeq: string): Promise<void> {
    const { rpc, ...fields } = choice;
    await call(this.client, rpc, { ...fields, tableId: this.tableId, expectedSeq }, bearer(this.token));
  }
}

export interface PlayOptions {
  /** Give up after this many reconnection attempts in a row (default 50). */
  maxReconnects?: number;
  /** Called before every decision with the seat's knowledge (tests compare it with
   * `seat.view()`, as the Rust SDK's `verify_knowledge` does). */
  beforeDecision?: (k: Knowledge, seat: Seat) => Promise<void>;
}

/** Plays the seat until the list is over; resolves with the final standings. */
export async function play(seat: Seat, bot: Bot, options: PlayOptions = {}): Promise<Finished> {
  const maxReconnects = options.maxReconnects ?? 50;
  const k = new Knowledge(seat.seat);
  let last: string | null = null;
  let actFrom = 0;
  let reconnects = 0;
  let decisions = 0;
  let failures = 0;

  const act = async () => {
    if (options.beforeDecision) await options.beforeDecision(k, seat);
    const choice = decide(bot, k);
    if (!choice) return;
    try {
      await seat.send(choice, k.seq);
      decisions++;
    } catch (e) {
      if (!MOVED_ON.has(reason(e) ?? "")) throw e;
    }
  };

  for (;;) {
    try {
      let after = "0";
      if (last === null) {
        // Fold the table's log from its start; act only on what happens from now on.
        actFrom = Number((await seat.view()).seq);
      } else {
        after = last;
        if (k.hasTurn()) await act();
      }
      const done = await new Promise<Standing[] | null>((resolve, reject) => {
        const stream = seat.client.WatchTable({ tableId: seat.tableId, afterSeq: after }, bearer(seat.token));
        let chain: Promise<void> = Promise.resolve();
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        stream.on("data", (msg: any) => {
          if (!msg.event) return;
          const event = msg.event;
          chain = chain
            .then(async () => {
              k.apply(event);
              last = String(event.seq);
              failures = 0;
              if (event.matchEnded) {
                resolve(event.matchEnded.standings);
                stream.cancel();
                return;
              }
              if (Number(event.seq) >= actFrom && k.hasTurn()) await act();
            })
            .catch((e) => {
              stream.cancel();
              reject(e);
            });
        });
        stream.on("error", (e: grpc.ServiceError) => {
          if (e.code === grpc.status.CANCELLED) return;
          chain.then(() => reject(e));
        });
        stream.on("end", () => chain.then(() => resolve(null)));
      });
      if (done) return { seat: seat.seat, standings: done, reconnects, decisions };
      if (last === null) last = "0";
    } catch (e) {
      const err = e as grpc.ServiceError;
      // UNAVAILABLE: the server went away (a restart, a drain); STREAM_BEHIND: we read
      // too slowly. Either way, resume with afterSeq.
      if ((err.code !== grpc.status.UNAVAILABLE && reason(e) !== "STREAM_BEHIND") || ++failures > maxReconnects) throw e;
      await new Promise((r) => setTimeout(r, Math.min(2000, 50 * 2 ** failures)));
      seat.reconnect();
      reconnects++;
    }
  }
}

/** Joins a table and plays the list with `bot`. */
export async function joinAndPlay(
  server: string,
  tableId: string,
  bot: Bot,
  opts: { name?: string; seat?: number; joinCode?: string } = {},
): Promise<Finished> {
  return play(await Seat.join(server, tableId, opts.name, opts.seat, opts.joinCode), bot);
}

/** Plays a seat whose token was handed out elsewhere. */
export async function playWithToken(server: string, tableId: string, token: string, bot: Bot): Promise<Finished> {
  return play(await Seat.withToken(server, tableId, token), bot);
}
