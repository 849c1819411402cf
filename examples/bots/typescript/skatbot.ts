// A Skat bot in TypeScript from the contract alone: stubs made by protoc-gen-es from
// proto/skat/v1/skat.proto, Connect's gRPC transport for Node (docs/writing-a-bot.md). It
// joins with a join key (and joins again with it, as a client that lost the answer would:
// the same seat), acts on its snapshot and on every event that gives it a turn, drops its
// stream once and resumes with after_seq, reads one refusal's reason, and prints the
// standings.
//
//   node dist/skatbot.js SERVER TABLE NAME [JOIN_KEY]
import { randomUUID } from "node:crypto";
import { ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ErrorInfoSchema } from "./gen/google/rpc/error_details_pb.js";
import { BidCall, type LegalActions, SkatService } from "./gen/skat/v1/skat_pb.js";

/** The ErrorInfo reason of a refusal ("STALE_SEQ"), or "" (not the server's). */
function reason(e: unknown): string {
  return e instanceof ConnectError ? (e.findDetails(ErrorInfoSchema)[0]?.reason ?? "") : "";
}

// Reasons that mean the table moved on while we decided: wait for the next event. Any
// other refusal of an action is a bug in the bot.
const WAITS = new Set(["STALE_SEQ", "NOT_YOUR_TURN", "WRONG_PHASE", "DEAL_OVER", "TABLE_FINISHED", "SITTING_OUT"]);

const isTurn = (l?: LegalActions): l is LegalActions =>
  !!l && (l.cards.length > 0 || l.discardFrom.length > 0 || l.contracts.length > 0 || l.pickUpSkat || l.hold || l.minBid > 0 || l.mayPass);

const [server, tableId, name, givenKey] = process.argv.slice(2);
if (!name) throw new Error("usage: skatbot SERVER TABLE NAME [JOIN_KEY]");
const joinKey = givenKey ?? randomUUID();
// Plain text; TLS: `https://` and the system's roots (or nodeOptions with a CA).
const client = createClient(SkatService, createGrpcTransport({ baseUrl: `http://${server}` }));
let token = "";
for (let attempt = 0; attempt < 2; attempt++) { // the second is a retry, as after a lost answer: the same seat
  const seat = await client.joinTable({ tableId, name, joinKey });
  console.log(`seat ${seat.seat} (rejoined: ${seat.rejoined})`);
  token = seat.token;
}
const auth = () => ({ headers: { authorization: `Bearer ${token}` } });
let tested = false; // one refusal read on purpose

/** The first legal choice (bid 18 or 20, then pass) with expected_seq = seq. */
async function act(l: LegalActions, seq: bigint): Promise<void> {
  let expectedSeq = seq;
  if (!tested) [tested, expectedSeq] = [true, seq + 1000n]; // once, on purpose: refused with STALE_SEQ
  try {
    if (l.cards.length > 0) await client.playCard({ tableId, card: l.cards[0], expectedSeq }, auth());
    else if (l.discardFrom.length >= 2) await client.discard({ tableId, cards: l.discardFrom.slice(0, 2), expectedSeq }, auth());
    else if (l.contracts.length > 0) {
      const { game, announcement } = l.contracts[0];
      await client.declare({ tableId, game, announcement, expectedSeq }, auth());
    } else if (l.pickUpSkat) await client.takeSkat({ tableId, pickUp: true, expectedSeq }, auth());
    else if (l.hold) await client.bid({ tableId, call: BidCall.HOLD, expectedSeq }, auth());
    else if (l.minBid > 0 && l.minBid <= 20) await client.bid({ tableId, call: BidCall.SAY, value: l.minBid, expectedSeq }, auth());
    else await client.bid({ tableId, call: BidCall.PASS, expectedSeq }, auth());
  } catch (e) {
    const why = reason(e); // branch on the reason, never on the message
    console.log(`refused: ${why} (${e instanceof ConnectError ? e.code : "?"})`);
    if (expectedSeq !== seq && why === "STALE_SEQ") return act(l, seq); // now with the right seq
    if (!WAITS.has(why)) throw e; // a bug in the bot
  }
}

/** Reads the stream from `after` (0: a snapshot first); the match ended (true) or not, and the last seq. */
async function watch(after: bigint, dropAfter: number): Promise<[boolean, bigint]> {
  const abort = new AbortController();
  let last = after;
  try {
    let n = 0;
    const stream = client.watchTable({ tableId, afterSeq: after > 0n ? after : undefined }, { ...auth(), signal: abort.signal });
    for await (const msg of stream) {
      n++;
      if (msg.kind.case === "snapshot") { // act on it: it may be our turn already
        last = msg.kind.value.seq;
        if (isTurn(msg.kind.value.deal?.legal)) await act(msg.kind.value.deal!.legal!, last);
        continue;
      }
      if (msg.kind.case !== "event") continue;
      const ev = msg.kind.value;
      last = ev.seq;
      if (ev.kind.case === "matchEnded") {
        for (const s of ev.kind.value.standings) console.log(`seat ${s.seat} ${s.name.padEnd(12)} seeger-fabian ${String(s.seegerFabian).padStart(5)}`);
        return [true, last];
      }
      if (isTurn(ev.legal)) {
        // The server's clock on both sides: no skew.
        if (ev.deadlineUnixMs > 0n) console.log(`turn at seq ${ev.seq}, ${ev.deadlineUnixMs - ev.timeUnixMs} ms to act`);
        await act(ev.legal, ev.seq);
      }
      if (n === dropAfter) {
        console.log(`dropping the stream at seq ${ev.seq}`);
        abort.abort();
        return [false, last];
      }
    }
  } catch {
    // a broken stream: resume
  }
  return [false, last];
}

let [ended, last] = await watch(0n, 5);
while (!ended) {
  await new Promise((r) => setTimeout(r, 100));
  console.log(`resuming after seq ${last}`);
  const v = (await client.getTable({ tableId }, auth())).table; // a turn from before the drop
  if (v && isTurn(v.deal?.legal)) await act(v.deal!.legal!, v.seq);
  [ended, last] = await watch(last, 0);
}
