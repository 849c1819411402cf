// A bot built from an object is typed without annotations (`k` is a Knowledge, `k.legal`
// its LegalActions: a strict build fails otherwise), and the words the SDK logs for an
// illegal action are the Rust and Python SDKs'; a broken connection is told from a
// refusal.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import { Code, ConnectError } from "@connectrpc/connect";
import { Card, Knowledge, NO_LEGAL, bot, brokenConnection, describe, describeLegal, firstLegal, pb, pointsOf, reason } from "../src/index";
import { DOMAIN } from "../src/errors";
import { ErrorInfoSchema } from "../src/gen/google/rpc/error_info_pb";

const { BidCall } = pb;

test("bot({...}) types its decisions", () => {
  const lowest = bot({ play: (k) => [...k.legal.cards].sort((a, b) => pointsOf(a) - pointsOf(b))[0] });
  const k = new Knowledge(0);
  k.legal = { ...NO_LEGAL, cards: [Card.SA, Card.D7, Card.HT] };
  assert.equal(lowest.play(k), Card.D7);
  // Decisions left out take the first legal choice, and say nothing.
  assert.equal(lowest.bid(k), null);
  assert.equal(lowest.comment(k), null);
  assert.equal(bot({ comment: () => "because" }).comment(k), "because");
});

test("the fallback and the log words", () => {
  const k = new Knowledge(0);
  k.legal = { ...NO_LEGAL, bidFrom: 20, pass: true };
  assert.deepEqual(firstLegal(k), { rpc: "bid", call: BidCall.PASS });
  assert.equal(describeLegal(k.legal), "bid 20..264 | pass");
  assert.equal(describe({ rpc: "bid", call: BidCall.SAY, value: 19 }), "bid 19");
  assert.equal(describe({ rpc: "playCard", card: Card.CJ }), "play CJ");
  k.legal = { ...NO_LEGAL, cards: [Card.D7, Card.CJ] };
  assert.deepEqual(firstLegal(k), { rpc: "playCard", card: Card.D7 });
});

test("a broken connection is retried; the server's ABORTED is a refusal", () => {
  // Node reports a stream whose server was killed as ABORTED "read ECONNRESET": without
  // the server's ErrorInfo it is the connection, not the table, and the seat reconnects.
  assert.equal(brokenConnection(new ConnectError("read ECONNRESET", Code.Aborted)), true);
  assert.equal(brokenConnection(new ConnectError("connect ECONNREFUSED", Code.Unavailable)), true);
  const stale = new ConnectError("the table moved on", Code.Aborted, undefined, [
    { desc: ErrorInfoSchema, value: { reason: "STALE_SEQ", domain: DOMAIN, metadata: {} } },
  ]);
  assert.equal(reason(stale), "STALE_SEQ");
  assert.equal(brokenConnection(stale), false);
  assert.equal(brokenConnection(new ConnectError("no", Code.InvalidArgument)), false);
  assert.equal(brokenConnection(new Error("not a call")), false);
});
