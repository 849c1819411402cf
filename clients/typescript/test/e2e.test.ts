// End to end: the real `skat serve`, the TypeScript bot and two Rust bots play a whole list.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as path from "path";
import * as net from "net";
import { spawn, ChildProcess } from "child_process";
import { play } from "../src/bot";
import { bearer, call, connect } from "../src/proto";
import { errorInfo, reason } from "../src/errors";

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
  // A process that has exited already emits no more "exit": answer from its state.
  if (p.exitCode !== null || p.signalCode !== null) return Promise.resolve(p.exitCode);
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
  const server = spawn(SKAT, ["serve", "--addr", address, "--metrics-addr", "off", "--action-timeout", "20s", "--database", "memory"], { stdio: "ignore" });
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

test("refusals carry reasons the client exposes", { timeout: 60_000 }, async () => {
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const server = spawn(SKAT, ["serve", "--addr", address, "--metrics-addr", "off", "--database", "memory"], { stdio: "ignore" });
  try {
    await waitReady(address);
    const client = connect(address);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const created = await call<any>(client, "CreateTable", { seats: 3, deals: 1, seed: "9" });
    const tokens: string[] = [];
    for (const name of ["a", "b", "c"]) {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const r = await call<any>(client, "JoinTable", { tableId: created.tableId, name });
      tokens[r.seat] = r.token;
    }
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const view = (await call<any>(client, "GetTable", { tableId: created.tableId })).table;
    const mover = view.deal.seatToMove;
    const md = (seat: number) => bearer(tokens[seat]);
    const refused = async (method: string, request: object, metadata: unknown, expected: string) => {
      await assert.rejects(call(client, method, request, metadata as never), (e: unknown) => {
        assert.equal(reason(e), expected);
        return true;
      });
    };
    await refused("Bid", { tableId: created.tableId, call: "BID_CALL_PASS" }, md((mover + 1) % 3), "NOT_YOUR_TURN");
    await refused("Bid", { tableId: created.tableId, call: "BID_CALL_SAY", value: 19 }, md(mover), "INVALID_BID");
    await refused(
      "Bid",
      { tableId: created.tableId, call: "BID_CALL_PASS", expectedSeq: String(Number(view.seq) - 1) },
      md(mover),
      "STALE_SEQ",
    );
    await refused("GetTable", { tableId: "nope" }, undefined, "TABLE_NOT_FOUND");
    await assert.rejects(call(client, "Bid", { tableId: created.tableId, call: "BID_CALL_PASS" }, md((mover + 1) % 3)), (e: unknown) => {
      assert.equal(errorInfo(e)?.metadata.to_move, "middlehand");
      return true;
    });
  } finally {
    server.kill();
    await exited(server);
  }
});
