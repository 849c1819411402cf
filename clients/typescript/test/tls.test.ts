// TLS from the TypeScript SDK, with a CA made at run time by `skat certs`: three
// TypeScript seats play a list over https:// against `skat serve --tls-cert`; a server
// whose CA is not trusted and plain text to a TLS port fail; no token goes in plain text
// to another machine.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "fs";
import * as net from "net";
import * as os from "os";
import * as path from "path";
import { execFileSync, spawn } from "child_process";
import { PlainTextRefused, ServerAddress, connect } from "../src/client";
import { Seat, play } from "../src/play";
import { lobby } from "../src/lobby";
import { JackBot } from "../src/strategy";

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

async function waitReady(address: ServerAddress) {
  for (let i = 0; i < 150; i++) {
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
  throw new Error("the TLS server did not start");
}

test("three TypeScript seats play over TLS with a private CA", { timeout: 120_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "skat-ts-tls-"));
  execFileSync(SKAT, ["certs", "--out", dir]);
  const port = await freePort();
  const server = spawn(
    SKAT,
    ["serve", "--addr", `127.0.0.1:${port}`, "--web-addr", "off", "--metrics-addr", "off", "--database", "memory",
      "--tls-cert", path.join(dir, "server.pem"), "--tls-key", path.join(dir, "server-key.pem")],
    { stdio: "ignore" },
  );
  try {
    const address = new ServerAddress(`https://localhost:${port}`, { caFile: path.join(dir, "ca.pem") });
    assert.ok(address.isTls && address.isLoopback);
    await waitReady(address);
    const conn = connect(address);
    const { tableId } = await conn.client.createTable({ seats: 3, deals: 2, seed: 9n });
    conn.close();
    const seats = [];
    for (let i = 0; i < 3; i++) seats.push(await Seat.join(address, tableId, `ts${i}`));
    const finished = await Promise.all(seats.map((s) => play(s, new JackBot())));
    for (const f of finished) assert.equal(f.standings.length, 3);

    // The CA not trusted: the handshake fails, never plain text instead.
    await assert.rejects(Seat.join(new ServerAddress(`https://localhost:${port}`, { caFile: undefined }), tableId, "x"), /certificate/);
    // Plain text to a TLS port gets no answer.
    await assert.rejects(Seat.join(`127.0.0.1:${port}`, tableId, "x"));
  } finally {
    server.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("no token goes in plain text to another machine", async () => {
  const saved = process.env.SKAT_INSECURE;
  delete process.env.SKAT_INSECURE;
  try {
    // 192.0.2.1 is TEST-NET-1: never this machine. Refused before any connection.
    const calls: [() => Promise<unknown>, string][] = [
      [() => Seat.join("192.0.2.1:50051", "t1"), "seat token"],
      [() => Seat.join("192.0.2.1:50051", "t1", "x", undefined, "code"), "join code"],
      [() => Seat.withToken("http://192.0.2.1:50051", "t1", "seat-token"), "seat token"],
      [() => lobby("192.0.2.1:50051", "bot-token", () => new JackBot()), "bot token"],
    ];
    for (const [call, what] of calls) {
      const start = Date.now();
      await assert.rejects(call(), (e: unknown) => {
        assert.ok(e instanceof PlainTextRefused);
        assert.match(e.message, new RegExp(`the ${what} in plain text`));
        assert.match(e.message, /https:\/\/.*insecure/);
        return true;
      });
      assert.ok(Date.now() - start < 2000, "refused before connecting");
    }
    assert.throws(() => new Seat("192.0.2.1:1", "t1", "tok", 0), PlainTextRefused);
    // Loopback, TLS, or plain text allowed explicitly: no refusal.
    for (const ok of ["127.0.0.1:1", "localhost:1", "[::1]:1", "https://skat.example.org"]) new ServerAddress(ok).checkSecret("seat token");
    new ServerAddress("192.0.2.1:1", { insecure: true }).checkSecret("seat token");
    process.env.SKAT_INSECURE = "1";
    new ServerAddress("192.0.2.1:1").checkSecret("seat token");
    // A redirect keeps the scheme and the CA.
    const moved = new ServerAddress("https://a.example", { caFile: "/ca.pem" }).at("b.example:8443");
    assert.deepEqual([moved.url, moved.caFile], ["https://b.example:8443", "/ca.pem"]);
  } finally {
    if (saved === undefined) delete process.env.SKAT_INSECURE;
    else process.env.SKAT_INSECURE = saved;
  }
});

test("three TypeScript seats play over a Unix socket (a hosted bot's way to the server)", { timeout: 120_000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "skat-ts-unix-"));
  const socket = path.join(dir, "grpc.sock");
  const port = await freePort();
  const server = spawn(
    SKAT,
    ["serve", "--addr", `127.0.0.1:${port}`, "--web-addr", "off", "--metrics-addr", "off", "--database", "memory",
      "--unix-socket", socket],
    { stdio: "ignore" },
  );
  try {
    const address = new ServerAddress(`unix://${socket}`);
    assert.ok(address.isLoopback && !address.isTls);
    assert.equal(address.unixPath, socket);
    address.checkSecret("seat token");
    await waitReady(address);
    const conn = connect(address);
    const { tableId } = await conn.client.createTable({ seats: 3, deals: 2, seed: 11n });
    conn.close();
    // Seats joined over TCP, played over the socket with their tokens (as a sandbox does).
    const joined = [];
    for (let i = 0; i < 3; i++) joined.push(await Seat.join(`127.0.0.1:${port}`, tableId, `ts${i}`));
    const seats = await Promise.all(joined.map((s) => Seat.withToken(address, tableId, s.token)));
    const finished = await Promise.all(seats.map((s) => play(s, new JackBot())));
    for (const f of finished) assert.equal(f.standings.length, 3);
    // A socket that is not there fails; it does not hang.
    await assert.rejects(Seat.withToken(`unix://${dir}/nothing.sock`, tableId, "x"));
  } finally {
    server.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
