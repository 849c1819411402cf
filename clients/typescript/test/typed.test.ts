// A bot built from an object is typed without annotations (`k` is a Knowledge, `k.legal`
// its LegalActions: a strict build fails otherwise), and the words the SDK logs for an
// illegal action are the Rust and Python SDKs'.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import { Card, Knowledge, NO_LEGAL, bot, describe, describeLegal, firstLegal, pb, pointsOf } from "../src/index";

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
