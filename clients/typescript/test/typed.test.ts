// A bot built from an object is typed without annotations (`k` is a Knowledge, `k.legal`
// its LegalActions: a strict build fails otherwise), and the words the SDK logs for an
// illegal action are the Rust and Python SDKs'; a broken connection is told from a
// refusal.

import { test } from "node:test";
import { inspect } from "node:util";
import { create } from "@bufbuild/protobuf";
import * as assert from "node:assert/strict";
import { Code, ConnectError } from "@connectrpc/connect";
import { Card, Finished, Knowledge, NO_LEGAL, bot, brokenConnection, describe, describeLegal, firstLegal, pb, pointsOf, reason } from "../src/index";
import { DOMAIN } from "../src/errors";
import { ErrorInfoSchema } from "../src/gen/google/rpc/error_info_pb";

const { BidCall } = pb;

test("bot({...}) types its decisions", () => {
  const lowest = bot({ play: (k) => [...k.legal.cards].sort((a, b) => pointsOf(a) - pointsOf(b))[0] });
  const k = new Knowledge(0);
  k.legal = { ...NO_LEGAL, cards: new Set([Card.SA, Card.D7, Card.HT]) };
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
  k.legal = { ...NO_LEGAL, cards: new Set([Card.D7, Card.CJ]) };
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

test("every group of cards is a set, and a finished list prints as a table", () => {
  const k = new Knowledge(0);
  k.legal = { ...NO_LEGAL, cards: new Set([Card.HT, Card.D7]), discardFrom: new Set([Card.SA, Card.CJ, Card.D8]) };
  // One collection type: the hand and the legal cards answer the same calls.
  for (const cards of [k.hand, k.legal.cards, k.legal.discardFrom, k.skat, k.discards]) {
    assert.equal(typeof cards.has, "function");
    assert.equal(typeof cards.size, "number");
  }
  // The default decisions take the lowest card number.
  assert.equal(bot({}).play(k), Card.D7);
  assert.deepEqual(bot({}).discard(k), [Card.D8, Card.SA]);

  const standings = [
    { seat: 0, name: "heuristic", plain: 210, seegerFabian: 820, declared: 9, won: 7 },
    { seat: 1, name: "mine", plain: 150, seegerFabian: 410, declared: 8, won: 5 },
    { seat: 2, name: "random", plain: -120, seegerFabian: -300, declared: 6, won: 2 },
  ].map((s) => create(pb.StandingSchema, s));
  const f = new Finished(1, standings, 0, 40, "t1");
  const lines = String(f).split("\n");
  assert.equal(lines[0], "table t1, seat 1: place 2 of 3");
  assert.deepEqual(lines.slice(2).map((l) => l.trim().split(/\s+/)[0]), ["0", ">", "2"]);
  assert.ok(lines[3].startsWith(">") && lines[3].includes("5/8"));
  assert.equal(f.place, 2);
  assert.ok(!String(f).includes("$typeName") && !JSON.stringify(f).includes("$typeName"));
  assert.equal(inspect(f), String(f));
});
