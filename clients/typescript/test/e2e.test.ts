// End to end: the real `skat serve`, the TypeScript bot and two Rust bots play a whole list.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as path from "path";
import * as net from "net";
import { spawn, ChildProcess } from "child_process";
import { Seat, play } from "../src/sdk";
import { Knowledge as K } from "../src/knowledge";
import { JackBot } from "../src/strategy";
import * as fs from "fs";
import * as os from "os";
import { execFileSync } from "child_process";
import { bearer, call, connect } from "../src/proto";
import { errorInfo, reason } from "../src/errors";
import { lobby } from "../src/lobby";

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
    // At every decision the knowledge folded from the stream must agree with the view.
    let checked = 0;
    const check = async (k: K, seat: Seat) => {
      const view = await seat.view();
      if (String(view.seq) !== k.seq || !view.deal) return;
      const d = view.deal;
      assert.deepEqual([...k.hand].sort(), [...d.hand].sort(), `hand at seq ${k.seq}`);
      assert.deepEqual(k.trick?.cards.map((c) => c.card) ?? [], d.currentTrick?.cards ?? [], `trick at seq ${k.seq}`);
      assert.equal(k.tricks.length, d.tricks.length, `tricks at seq ${k.seq}`);
      assert.equal(k.bid, Number(d.bid));
      if (k.skat.length > 0) assert.deepEqual([...k.skat].sort(), [...d.skat].sort());
      if (d.contract && d.contract.game !== "GAME_TYPE_UNSPECIFIED") assert.equal(k.game, d.contract.game);
      checked++;
    };
    const ours = play(await Seat.join(address, created.tableId, "typescript", 0), new JackBot(), { beforeDecision: check }).then(
      (f) => f.standings,
    );
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
    assert.ok(checked > 100, `the knowledge was compared with the view at ${checked} decisions`);
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

test("knowledge: voids follow the declared game", () => {
  const k = new K(0);
  k.apply({ seq: "1", dealStarted: { number: 0, positionSeats: [0, 1, 2], hand: ["CARD_CJ", "CARD_SJ"] } });
  assert.equal(k.position, "POSITION_FOREHAND");
  const played = (seq: number, position: string, card: string, winner?: string) =>
    k.apply({
      seq: String(seq),
      actionTaken: {
        position,
        action: { kind: "ACTION_KIND_PLAY_CARD", card, cards: [] },
        facts: { phase: "PHASE_PLAYING", declaration: { game: "GAME_TYPE_GRAND", announcement: "ANNOUNCEMENT_UNSPECIFIED" }, trickWinner: winner },
        openHand: [],
      },
    });
  played(2, "POSITION_FOREHAND", "CARD_CJ");
  played(3, "POSITION_MIDDLEHAND", "CARD_HA");
  played(4, "POSITION_REARHAND", "CARD_DJ", "POSITION_FOREHAND");
  assert.deepEqual([...k.voids.get("POSITION_MIDDLEHAND")!], ["trump"], "no jack on a jack lead in grand: no trumps");
  assert.equal(k.voids.get("POSITION_REARHAND")!.size, 0);
  assert.deepEqual([...k.hand], ["CARD_SJ"]);
  assert.equal(k.tricks.length, 1);
  assert.equal(k.tricks[0].winner, "POSITION_FOREHAND");
  assert.equal(k.trick, undefined);
  assert.equal(k.played.size, 3);
});

test("a bot author's first hour: install the package, seat a 30-line bot at `skat table create`, watch it with `skat watch`", { timeout: 300_000 }, async () => {
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const server = spawn(SKAT, ["serve", "--addr", address, "--metrics-addr", "off", "--database", "memory"], { stdio: "ignore" });
  const project = fs.mkdtempSync(path.join(os.tmpdir(), "skat-ts-author-"));
  try {
    await waitReady(address);
    // The author's own project: the SDK installed from the repository, a bot of their own.
    execFileSync("npm", ["init", "-y"], { cwd: project, stdio: "ignore" });
    execFileSync("npm", ["install", "--no-audit", "--no-fund", path.resolve(__dirname, "..", "..")], { cwd: project, stdio: "ignore" });
    const example = fs.readFileSync(path.resolve(__dirname, "..", "..", "examples", "first-bot.ts"), "utf8");
    assert.ok(example.split("\n").length <= 40, "the example bot is about 30 lines");
    fs.writeFileSync(
      path.join(project, "bot.js"),
      `const { Bot, joinAndPlay, pointsOf, isJack } = require("skat-sdk");
class FirstBot extends Bot {
  bid(k) { return [...k.hand].filter(isJack).length >= 2 && Number(k.legal.minBid) <= 23 ? Number(k.legal.minBid) : null; }
  play(k) {
    const byPoints = [...k.legal.cards].sort((a, b) => pointsOf(a) - pointsOf(b));
    return k.trick ? byPoints[0] : byPoints[byPoints.length - 1];
  }
}
const [server, table] = process.argv.slice(2);
joinAndPlay(server, table, new FirstBot(), { name: "first-bot" }).then((f) => {
  for (const s of f.standings) console.log(s.name, s.seegerFabian);
});
`,
    );
    const created = execFileSync(SKAT, ["table", "create", "--server", address, "--deals", "36", "--seed", "4", "--action-timeout", "20s"], { encoding: "utf8" });
    const table = /^table (\S+)/m.exec(created)![1];
    assert.match(created, /skat watch/);
    const watcher = spawn(SKAT, ["watch", table, "--server", address], { stdio: ["ignore", "pipe", "ignore"] });
    let watched = "";
    watcher.stdout!.on("data", (b) => (watched += b.toString()));
    const ours = spawn("node", ["bot.js", address, table], { cwd: project, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    ours.stdout!.on("data", (b) => (out += b.toString()));
    const rust = [1, 2].map((seat) => spawn(SKAT, ["bot", "--strategy", "heuristic", "--server", address, "--table", table, "--seat", String(seat)], { stdio: "ignore" }));
    assert.equal(await exited(ours), 0);
    for (const p of rust) assert.equal(await exited(p), 0);
    assert.equal(await exited(watcher), 0, "skat watch ends with the list");
    assert.match(out, /^first-bot -?\d+/m);
    assert.match(watched, /deal 36\/36/);
    assert.match(watched, /the list is complete/);
    const listed = execFileSync(SKAT, ["table", "list", "--server", address], { encoding: "utf8" });
    assert.match(listed, new RegExp(`${table}\\s+finished`));
  } finally {
    server.kill("SIGTERM");
    await exited(server);
    fs.rmSync(project, { recursive: true, force: true });
  }
});

test("lobby mode plays a tournament", { timeout: 300_000 }, async () => {
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "skat-ts-lobby-"));
  const server = spawn(SKAT, ["serve", "--addr", address, "--metrics-addr", "off", "--data-dir", dir, "--admin-token", "op"], { stdio: "ignore" });
  const rust: ChildProcess[] = [];
  try {
    await waitReady(address);
    const client = connect(address);
    const tokens: Record<string, string> = {};
    for (const name of ["ts", "h", "r"]) tokens[name] = (await call<{ botToken: string }>(client, "RegisterBot", { name })).botToken;
    for (const [name, strategy] of [["h", "heuristic"], ["r", "random"]])
      rust.push(spawn(SKAT, ["bot", "--strategy", strategy, "--server", address, "--bot-token", tokens[name]], { stdio: "ignore" }));
    const played = lobby(address, tokens.ts, () => new JackBot(), 3);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const created = await call<any>(
      client,
      "CreateTournament",
      { name: "ts cup", entrants: ["ts", "h", "r"], deals: 4, timeControl: { actionMs: 20000, dealMs: 0 }, seed: "5" },
      bearer("op"),
    );
    assert.equal(created.tables, 3);
    assert.equal((await played).length, 3);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let t: any;
    for (let i = 0; i < 300; i++) {
      t = (await call<any>(client, "GetTournament", { tournamentId: created.tournamentId })).tournament;
      if (t.finished) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(t.finished);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const ts = t.standings.find((s: any) => s.name === "ts");
    assert.equal(ts.lists, 3);
    assert.equal(ts.penalties, 0);
    client.close();
  } finally {
    for (const p of rust) p.kill();
    server.kill("SIGTERM");
    await exited(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
