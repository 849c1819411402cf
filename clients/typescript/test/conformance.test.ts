// The knowledge corpus (conformance/knowledge.jsonl: streams exactly as the server sends
// them, with the engine's knowledge after every message): this SDK's fold gives the same
// knowledge after every event, as the Rust and Python SDKs' do.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "fs";
import * as path from "path";
import { fromBinary } from "@bufbuild/protobuf";
import { EventSchema, TableViewSchema } from "../src/gen/skat/v1/skat_pb";
import { Knowledge } from "../src/knowledge";
import type { Json } from "../src/knowledge";

const CORPUS = path.resolve(__dirname, "..", "..", "..", "..", "conformance", "knowledge.jsonl");

function firstDifference(at: string, got: Json | undefined, want: Json | undefined): string | undefined {
  const isObject = (v: Json | undefined): v is { [key: string]: Json } => typeof v === "object" && v !== null && !Array.isArray(v);
  if (isObject(got) && isObject(want)) {
    for (const key of [...new Set([...Object.keys(got), ...Object.keys(want)])].sort()) {
      const d = firstDifference(`${at}.${key}`, got[key], want[key]);
      if (d) return d;
    }
    return undefined;
  }
  if (Array.isArray(got) && Array.isArray(want) && got.length === want.length) {
    for (let i = 0; i < got.length; i++) {
      const d = firstDifference(`${at}[${i}]`, got[i], want[i]);
      if (d) return d;
    }
    return undefined;
  }
  return JSON.stringify(got) === JSON.stringify(want) ? undefined : `${at}: ${JSON.stringify(got)} (SDK) != ${JSON.stringify(want)} (expected)`;
}

interface Case {
  name: string;
  seat: number | null;
  messages: { event?: string; snapshot?: string }[];
  expected: Json[];
}

test("the SDK knows what the engine knows after every event of the corpus", () => {
  let checked = 0;
  for (const line of fs.readFileSync(CORPUS, "utf8").split("\n")) {
    if (!line) continue;
    const c = JSON.parse(line) as Case;
    let k = new Knowledge(c.seat ?? undefined);
    c.messages.forEach((m, i) => {
      if (m.event) k.apply(fromBinary(EventSchema, Buffer.from(m.event, "base64")));
      else k = Knowledge.fromView(fromBinary(TableViewSchema, Buffer.from(m.snapshot ?? "", "base64")));
      const d = firstDifference("", JSON.parse(JSON.stringify(k)) as Json, c.expected[i]);
      assert.equal(d, undefined, `${c.name}, message ${i}: ${d}`);
      checked++;
    });
  }
  assert.ok(checked > 1000, `the corpus holds the streams (${checked} messages)`);
});
