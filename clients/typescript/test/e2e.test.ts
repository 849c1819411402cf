// End to end: the real `skat serve`, the TypeScript bot and two Rust bots play a whole list.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as path from "path";
import * as net from "net";
import { spawn, ChildProcess } from "child_process";
import { play } from "../src/bot";
import { call, connect } from "../src/proto";

const REPO = path.resolve(__dirname, "..", "..", "..", "..");
const SKAT = process.env.SKAT_BIN ?? path.join(REPO, "target", "debug", "skat");

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function exited(p: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => p.on("exit", (code) => resolve(code)));
}

async function waitReady(address: string) {
  for (let i = 0; i < 300; i++) {
    try {
      await call(connect(address), "ListTables", {});
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error("server did not start");
}

test("the TypeScript bot plays a whole list with two Rust bots", { timeout: 300_000 }, async () => {
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const server = spawn(SKAT, ["serve", "--addr", address, "--metrics-addr", "off", "--action-timeout", "20s"], { stdio: "ignore" });
  try {
    await waitReady(address);
    const client = connect(address);
    const created = await call<{ tableId: string }>(client, "CreateTable", { name: "ts e2e", seats: 3, deals: 36, seed: "9" });
    const ours = play({ server: address, tableId: created.tableId, name: "typescript", seat: 0 });
    await new Promise((r) => setTimeout(r, 300));
    const rust = [
      ["1", "heuristic"],
      ["2", "random"],
    ].map(([seat, strategy]) =>
      spawn(SKAT, ["bot", "--strategy", strategy, "--server", `http://${address}`, "--table", created.tableId, "--seat", seat], { stdio: "ignore" }),
    );
    const standings = await ours;
    for (const p of rust) assert.equal(await exited(p), 0);
    assert.deepEqual(standings.map((s) => s.name), ["typescript", "heuristic", "random"]);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const view = (await call<any>(client, "GetTable", { tableId: created.tableId })).table;
    assert.equal(view.status, "TABLE_STATUS_FINISHED");
    assert.equal(view.dealsPlayed, 36);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const records = (await call<any>(client, "GetRecords", { tableId: created.tableId, format: "RECORD_FORMAT_JSON" })).records;
    assert.equal(records.length, 36);
    for (const r of records) {
      const outcome = JSON.parse(r).outcome;
      assert.notEqual(outcome.kind, "penalty", "the TypeScript seat never timed out");
      assert.notEqual(outcome.end?.end, "forfeit");
    }
    client.close();
  } finally {
    server.kill("SIGTERM");
    await exited(server);
  }
});
