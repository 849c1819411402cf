// The turn loop: join, follow the stream, act on events that carry this seat's legal
// actions, resume with afterSeq when the stream breaks.

import * as grpc from "@grpc/grpc-js";
import { bearer, call, connect } from "./proto";
import { Choice, decide } from "./strategy";
import { reason } from "./errors";

/** Whether legal actions give a turn (not only resign or claim out of turn). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function hasTurn(legal: any): boolean {
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

/** Refusals that only mean the table moved on while the bot was thinking. */
const MOVED_ON = new Set(["STALE_SEQ", "NOT_YOUR_TURN", "WRONG_PHASE", "DEAL_OVER", "TABLE_FINISHED"]);

export interface Standing {
  seat: number;
  name: string;
  plain: number;
  seegerFabian: number;
  declared: number;
  won: number;
}

export interface PlayOptions {
  server: string;
  tableId: string;
  token?: string;
  name?: string;
  seat?: number;
}

function request(choice: Choice, tableId: string, expectedSeq: string) {
  const common = { tableId, expectedSeq };
  switch (choice.rpc) {
    case "Bid":
      return { ...common, call: choice.call, value: choice.value ?? 0 };
    case "TakeSkat":
      return { ...common, pickUp: choice.pickUp };
    case "Discard":
      return { ...common, cards: choice.cards };
    case "Declare":
      return { ...common, game: choice.game, announcement: choice.announcement };
    case "PlayCard":
      return { ...common, card: choice.card };
  }
}

/** Plays one seat until the list is over; resolves with the final standings. */
export async function play(opts: PlayOptions): Promise<Standing[]> {
  let client = connect(opts.server);
  let token = opts.token;
  if (!token) {
    const joined = await call<{ token: string }>(client, "JoinTable", {
      tableId: opts.tableId,
      name: opts.name ?? "ts-bot",
      seat: opts.seat,
    });
    token = joined.token;
  }
  const md = bearer(token);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const getView = async () => (await call<any>(client, "GetTable", { tableId: opts.tableId }, md)).table;

  async function actIfTurn(seq?: string) {
    const view = await getView();
    if (view.status !== "TABLE_STATUS_PLAYING" || (seq !== undefined && view.seq !== seq)) return;
    const choice = decide(view);
    if (!choice) return;
    try {
      await call(client, choice.rpc, request(choice, opts.tableId, view.seq), md);
    } catch (e) {
      // The table moved on while we thought (a time-out, a resignation): a later event
      // brings the next turn.
      if (!MOVED_ON.has(reason(e) ?? "")) throw e;
    }
  }

  let last: string = (await getView()).seq;
  let failures = 0;
  for (;;) {
    try {
      const standings = await new Promise<Standing[] | null>((resolve, reject) => {
        const stream = client.WatchTable({ tableId: opts.tableId, afterSeq: last }, md);
        let chain: Promise<void> = actIfTurn();
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        stream.on("data", (msg: any) => {
          if (!msg.event) return;
          const event = msg.event;
          last = event.seq;
          failures = 0;
          if (event.matchEnded) {
            chain.then(() => resolve(event.matchEnded.standings)).catch(reject);
            stream.cancel();
            return;
          }
          // Events carry `legal` for out-of-turn options too (resign, claim): act on turns.
          if (event.legal && hasTurn(event.legal)) chain = chain.then(() => actIfTurn(event.seq)).catch(reject);
        });
        stream.on("error", (e: grpc.ServiceError) => {
          if (e.code === grpc.status.CANCELLED) return;
          reject(e);
        });
        stream.on("end", () => chain.then(() => resolve(null)).catch(reject));
      });
      if (standings) return standings;
    } catch (e) {
      const err = e as grpc.ServiceError;
      // UNAVAILABLE: the server is going away; STREAM_BEHIND: the stream was ended
      // because we read too slowly. Either way, resume with after_seq.
      const fellBehind = reason(e) === "STREAM_BEHIND";
      if ((err.code !== grpc.status.UNAVAILABLE && !fellBehind) || ++failures > 50) throw e;
      await new Promise((r) => setTimeout(r, Math.min(2000, 50 * 2 ** failures)));
      client = connect(opts.server);
    }
  }
}
