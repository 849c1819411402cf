// End to end: the real `skat serve`, the TypeScript bot and two Rust bots play a whole list.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as path from "path";
import * as net from "net";
import { spawn, ChildProcess } from "child_process";
import { Seat, play } from "../src/play";
import { Knowledge as K, Position, GameType, Announcement } from "../src/knowledge";
import { JackBot } from "../src/strategy";
import * as fs from "fs";
import * as os from "os";
import { execFileSync } from "child_process";
import { type Connection, Connections, ServerAddress, bearer, connect } from "../src/client";
import { errorInfo, reason } from "../src/errors";
import { lobby } from "../src/lobby";
import { ActionKind, BidCall, Card, Phase, RecordFormat, TableStatus } from "../src/gen/skat/v1/skat_pb";
import { create } from "@bufbuild/protobuf";
import { EventSchema } from "../src/gen/skat/v1/skat_pb";

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

/** A TCP proxy to `target` on loopback that counts the connections it accepts, and can
 * freeze the open ones: nothing passes either way, nothing is closed (as when a server's
 * machine vanishes from the network). */
function countingProxy(target: number): Promise<{ port: number; count: () => number; freeze: () => void; close: () => void }> {
  let accepted = 0;
  const sockets = new Set<net.Socket>();
  const proxy = net.createServer((inbound) => {
    accepted++;
    const outbound = net.connect(target, "127.0.0.1");
    const end = () => {
      inbound.destroy();
      outbound.destroy();
    };
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on("error", end);
      s.on("close", end);
    }
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  });
  const freeze = () => {
    for (const s of sockets) {
      if (s.destroyed) continue;
      s.unpipe();
      s.pause();
    }
  };
  return new Promise((resolve) =>
    proxy.listen(0, "127.0.0.1", () =>
      resolve({
        port: (proxy.address() as net.AddressInfo).port,
        count: () => accepted,
        freeze,
        close: () => {
          for (const s of sockets) s.destroy();
          proxy.close();
        },
      }),
    ),
  );
}

/** The table's `deals` records, none of them a seat's time-out (a penalty or a forfeit). */
async function assertPlayedOutInTime(client: Connection["client"], tableId: string, deals: number) {
  const records = (await client.getRecords({ tableId, format: RecordFormat.JSON })).records;
  assert.equal(records.length, deals);
  for (const r of records) {
    const outcome = JSON.parse(r).outcome;
    assert.notEqual(outcome.kind, "penalty", "no seat timed out");
    assert.notEqual(outcome.end?.end, "forfeit");
  }
}

async function waitReady(address: string) {
  for (let i = 0; i < 300; i++) {
    const conn = connect(address);
    try {
      await conn.client.listTables({});
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      conn.close();
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
    const conn = connect(address);
    const client = conn.client;
    const created = await client.createTable({ name: "ts e2e", seats: 3, deals: 36, seed: 9n });
    // At every decision the knowledge folded from the stream must equal the view.
    let checked = 0;
    const check = async (k: K, seat: Seat, seq: bigint) => {
      const view = await seat.view();
      if (view.seq !== seq) return;
      const want = K.fromView(view).toJSON();
      const got = k.toJSON();
      got.final_standings = want.final_standings = null;
      assert.deepEqual(got, want, `knowledge at seq ${seq}`);
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
    const view = (await client.getTable({ tableId: created.tableId })).table;
    assert.equal(view?.status, TableStatus.FINISHED);
    assert.equal(view?.dealsPlayed, 36);
    await assertPlayedOutInTime(client, created.tableId, 36);
    conn.close();
  } finally {
    server.kill("SIGTERM");
    await exited(server);
  }
});

test("a seat whose connection goes silent notices by its pings, reconnects and misses no turn", { timeout: 120_000 }, async () => {
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  const server = spawn(SKAT, ["serve", "--addr", address, "--metrics-addr", "off", "--action-timeout", "10s", "--database", "memory"], { stdio: "ignore" });
  const proxy = await countingProxy(port);
  try {
    await waitReady(address);
    const conn = connect(address);
    const created = await conn.client.createTable({ name: "silent", seats: 3, deals: 4, seed: 3n });
    // Pings every second through the proxy; the eighth decision is sent into the frozen
    // connection. Without pings the seat would wait there until its 10 s clock ran out.
    const through = new ServerAddress(`127.0.0.1:${proxy.port}`, { keepaliveMs: 1000, keepaliveTimeoutMs: 1000 });
    let decisions = 0;
    const freezeOnce = async () => {
      if (++decisions === 8) proxy.freeze();
    };
    const ours = play(await Seat.join(through, created.tableId, "typescript", 0), new JackBot(), { beforeDecision: freezeOnce });
    const rust = ["1", "2"].map((seat) =>
      spawn(SKAT, ["bot", "--strategy", "random", "--server", `http://${address}`, "--table", created.tableId, "--seat", seat], { stdio: "ignore" }),
    );
    const finished = await ours;
    for (const p of rust) assert.equal(await exited(p), 0);
    assert.ok(decisions > 8, `the seat went on deciding after the freeze (${decisions})`);
    assert.ok(finished.reconnects >= 1, `the seat reconnected (${finished.reconnects})`);
    assert.ok(proxy.count() >= 2, "a new connection after the frozen one");
    await assertPlayedOutInTime(conn.client, created.tableId, 4);
    conn.close();
  } finally {
    proxy.close();
    server.kill("SIGTERM");
    await exited(server);
  }
});

test("a lobby's seats watch on their connection's one WatchTables stream", { timeout: 120_000 }, async () => {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const address = `127.0.0.1:${port}`;
  const server = spawn(
    SKAT,
    ["serve", "--addr", address, "--metrics-addr", `127.0.0.1:${metricsPort}`, "--action-timeout", "20s", "--database", "memory"],
    { stdio: "ignore" },
  );
  const shared = new Connections();
  try {
    await waitReady(address);
    const conn = connect(address);
    const created = await conn.client.createTable({ name: "shared", seats: 3, deals: 3, seed: 4n });
    const seats: Seat[] = [];
    for (const n of [0, 1, 2]) {
      const joined = await conn.client.joinTable({ tableId: created.tableId, name: `ts${n}`, seat: n });
      seats.push(new Seat(address, created.tableId, joined.token, joined.seat, undefined, shared));
    }
    const finished = await Promise.all(seats.map((seat) => play(seat, new JackBot())));
    for (const f of finished) assert.deepEqual(f.standings, finished[0].standings);
    await assertPlayedOutInTime(conn.client, created.tableId, 3);
    assert.equal(shared.open(new ServerAddress(address)), 1, "the three seats on one connection");
    // A token that holds no seat: the watch throws what WatchTable throws.
    const stranger = new Seat(address, created.tableId, "no-such-token-anywhere", 0, undefined, shared);
    await assert.rejects(
      (async () => {
        for await (const _ of stranger.watch(0n, new AbortController().signal)) void _;
      })(),
      (e: unknown) => {
        assert.equal(reason(e), "NOT_SEATED");
        return true;
      },
    );
    stranger.close();
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const calls = metrics.split("\n").filter((l) => l.startsWith("skat_rpcs_total"));
    assert.ok(calls.some((l) => l.includes('method="WatchTables"')), "the seats watched on WatchTables");
    assert.ok(!calls.some((l) => l.includes('method="WatchTable"')), "and never on a stream each");
    conn.close();
  } finally {
    shared.close();
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
    const conn = connect(address);
    const client = conn.client;
    const created = await client.createTable({ seats: 3, deals: 1, seed: 9n });
    const tokens: string[] = [];
    for (const name of ["a", "b", "c"]) {
      const r = await client.joinTable({ tableId: created.tableId, name });
      tokens[r.seat] = r.token;
    }
    const view = (await client.getTable({ tableId: created.tableId })).table;
    const mover = view?.deal?.seatToMove ?? 0;
    const other = (mover + 1) % 3;
    const refused = async (call: () => Promise<unknown>, expected: string) => {
      await assert.rejects(call(), (e: unknown) => {
        assert.equal(reason(e), expected);
        return true;
      });
    };
    const tableId = created.tableId;
    await refused(() => client.bid({ tableId, call: BidCall.PASS }, bearer(tokens[other])), "NOT_YOUR_TURN");
    await refused(() => client.bid({ tableId, call: BidCall.SAY, value: 19 }, bearer(tokens[mover])), "INVALID_BID");
    await refused(
      () => client.bid({ tableId, call: BidCall.PASS, expectedSeq: (view?.seq ?? 1n) - 1n }, bearer(tokens[mover])),
      "STALE_SEQ",
    );
    await refused(() => client.getTable({ tableId: "nope" }), "TABLE_NOT_FOUND");
    await assert.rejects(client.bid({ tableId, call: BidCall.PASS }, bearer(tokens[other])), (e: unknown) => {
      assert.equal(errorInfo(e)?.metadata.to_move, "middlehand");
      return true;
    });
    conn.close();
  } finally {
    server.kill();
    await exited(server);
  }
});

test("knowledge: what a position cannot hold follows the declared game", () => {
  const k = new K(0);
  k.apply(create(EventSchema, { seq: 1n, kind: { case: "dealStarted", value: { number: 0, positionSeats: [0, 1, 2], hand: [Card.CJ, Card.SJ] } } }));
  assert.equal(k.position, Position.FOREHAND);
  const played = (seq: number, position: Position, card: Card, winner = Position.UNSPECIFIED) =>
    k.apply(
      create(EventSchema, {
        seq: BigInt(seq),
        kind: {
          case: "actionTaken",
          value: {
            position,
            action: { kind: ActionKind.PLAY_CARD, card },
            facts: { phase: Phase.PLAYING, declaration: { game: GameType.GRAND, announcement: Announcement.UNSPECIFIED }, trickWinner: winner },
          },
        },
      }),
    );
  played(2, Position.FOREHAND, Card.CJ);
  played(3, Position.MIDDLEHAND, Card.HA);
  played(4, Position.REARHAND, Card.DJ, Position.FOREHAND);
  assert.deepEqual([...k.cannotHold[1]].sort(), [Card.DJ, Card.HJ, Card.SJ, Card.CJ].sort(), "no jack on a jack lead in grand: no trumps");
  assert.equal(k.cannotHold[2].size, 0);
  assert.deepEqual([...k.hand], [Card.SJ]);
  assert.equal(k.tricks.length, 1);
  assert.equal(k.tricks[0].winner, Position.FOREHAND);
  assert.equal(k.currentTrick, undefined);
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
  bid(k) { const from = k.legal.bidFrom ?? 0; return [...k.hand].filter(isJack).length >= 2 && from <= 23 ? from : null; }
  play(k) {
    const byPoints = [...k.legal.cards].sort((a, b) => pointsOf(a) - pointsOf(b));
    return k.currentTrick ? byPoints[0] : byPoints[byPoints.length - 1];
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
  let proxy: Awaited<ReturnType<typeof countingProxy>> | undefined;
  try {
    await waitReady(address);
    const conn = connect(address);
    const client = conn.client;
    const tokens: Record<string, string> = {};
    for (const name of ["ts", "h", "r"]) tokens[name] = (await client.registerBot({ name })).botToken;
    for (const [name, strategy] of [["h", "heuristic"], ["r", "random"]])
      rust.push(spawn(SKAT, ["bot", "--strategy", strategy, "--server", address, "--bot-token", tokens[name]], { stdio: "ignore" }));
    // The TypeScript bot talks through a proxy that counts its connections.
    proxy = await countingProxy(port);
    const played = lobby(`127.0.0.1:${proxy.port}`, tokens.ts, () => new JackBot(), 3);
    const created = await client.createTournament(
      { name: "ts cup", entrants: ["ts", "h", "r"], deals: 4, timeControl: { actionMs: 20000n, dealMs: 0n }, seed: 5n },
      bearer("op"),
    );
    assert.equal(created.tables, 3);
    assert.equal((await played).length, 3);
    // Its lobby's connection and one its three seats share (Connections), not one a seat.
    assert.ok(proxy.count() <= 2, `the lobby opened ${proxy.count()} connections`);
    let t;
    for (let i = 0; i < 300; i++) {
      t = (await client.getTournament({ tournamentId: created.tournamentId })).tournament;
      if (t?.finished) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(t?.finished);
    const ts = t?.standings.find((s) => s.name === "ts");
    assert.equal(ts?.lists, 3);
    assert.equal(ts?.penalties, 0);
    conn.close();
  } finally {
    proxy?.close();
    for (const p of rust) p.kill();
    server.kill("SIGTERM");
    await exited(server);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
