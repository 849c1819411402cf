// The TypeScript SDK: write a `Bot` (six decisions), hand it to `joinAndPlay` or
// `playWithToken`, and the SDK does the rest: the stream, the seat's `Knowledge`,
// `expectedSeq`, reconnecting and resuming with `afterSeq`.

import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { BidCall, type Standing, type TableView, type WatchTableResponse } from "./gen/skat/v1/skat_pb";
import { type Connection, type Connections, type Lease, type Server, ServerAddress, bearer, connect, serverAddress } from "./client";
import { brokenConnection, reason } from "./errors";
import { Card, codeOf, sorted } from "./cards";
import { type Contract, Knowledge, type LegalActions } from "./knowledge";
import { logger } from "./log";

/** A Skat bot: the same six decisions as the Rust and Python SDKs' `Bot`. Extend it and
 * override what you want; the defaults take the first legal choice. */
export class Bot {
  /** Your turn to call: a value of at least `k.legal.bidFrom` on the bid ladder, or null to pass. */
  bid(_k: Knowledge): number | null {
    return null;
  }
  /** Somebody bid `bid` to you: true to hold. */
  answer(_k: Knowledge, _bid: number): boolean {
    return false;
  }
  /** You won the auction: true to pick up the skat, false to play hand. */
  takeSkat(_k: Knowledge): boolean {
    return true;
  }
  /** You picked up the skat (it is in `k.hand`): the two cards to put away. */
  discard(k: Knowledge): [Card, Card] {
    const [a, b] = sorted(k.legal.discardFrom);
    return [a, b];
  }
  /** Your declaration, one of `k.legal.contracts`. */
  declare(k: Knowledge): Contract {
    return k.legal.contracts[0];
  }
  /** Your card, one of `k.legal.cards`. */
  play(k: Knowledge): Card {
    return sorted(k.legal.cards)[0];
  }
  /** A comment on the decision just made (at most 280 characters), sent with it and shown
   * to everybody once the deal has ended (the replay, the records). null: none. */
  comment(_k: Knowledge): string | null {
    return null;
  }
}

/** The six decisions as an object: `bot({ play(k) { ... } })` types `k` as
 * {@link Knowledge} without annotations (a subclass's override does not infer its
 * parameter types). Decisions left out take the first legal choice. */
export type Decisions = {
  [D in "bid" | "answer" | "takeSkat" | "discard" | "declare" | "play" | "comment"]: Bot[D];
};

/** A {@link Bot} from some of its decisions (see {@link Decisions}). */
export function bot(decisions: Partial<Decisions>): Bot {
  return Object.assign(new Bot(), decisions);
}

/** One request to send: the RPC and its fields. */
export type Choice =
  | { rpc: "bid"; call: BidCall; value?: number }
  | { rpc: "takeSkat"; pickUp: boolean }
  | { rpc: "discard"; cards: Card[] }
  | { rpc: "declare"; contract: Contract }
  | { rpc: "playCard"; card: Card }
  | { rpc: "resign" };

/** What the SDK does when the server refuses the bot's action as illegal, always after
 * a warning (`illegal action refused` with the decision, the legal set and the reason):
 * `fallback` plays the first legal action (the lowest card, the first two to discard, the
 * first contract, picking up, pass; the default: the seat keeps playing); `resign` gives
 * the deal up (resign when allowed, pass while bidding, else the fallback); `stop` throws
 * {@link IllegalAction} (the seat is left to forfeit on time). As in the Rust and Python
 * SDKs. */
export type OnIllegal = "fallback" | "resign" | "stop";

/** The server refused the bot's action as illegal and `onIllegal` is `stop`. */
export class IllegalAction extends Error {}

/** The first legal action, in the order every SDK uses. */
export function firstLegal(k: Knowledge): Choice | null {
  const l = k.legal;
  if (l.cards.size > 0) return { rpc: "playCard", card: sorted(l.cards)[0] };
  if (l.discardFrom.size >= 2) {
    const [a, b] = sorted(l.discardFrom);
    return { rpc: "discard", cards: [a, b] };
  }
  if (l.contracts.length > 0) return { rpc: "declare", contract: l.contracts[0] };
  if (l.pickUpSkat) return { rpc: "takeSkat", pickUp: true };
  if (l.pass) return { rpc: "bid", call: BidCall.PASS };
  return null;
}

/** A choice in words, for logs (`bid 19`, `play CJ`): the Rust SDK's words. */
export function describe(c: Choice | null): string {
  if (!c) return "nothing";
  switch (c.rpc) {
    case "bid":
      return c.call === BidCall.SAY ? `bid ${c.value}` : c.call === BidCall.HOLD ? "hold" : "pass";
    case "takeSkat":
      return c.pickUp ? "pick up the skat" : "play hand";
    case "discard":
      return `discard ${c.cards.map(codeOf).join(" ")}`;
    case "declare":
      return `declare ${c.contract.game} ${c.contract.announcement}`;
    case "playCard":
      return `play ${codeOf(c.card)}`;
    case "resign":
      return "resign";
  }
}

/** The legal set in words, for logs (`bid 20..264 | pass`): the Rust SDK's words. */
export function describeLegal(l: LegalActions): string {
  const parts: string[] = [];
  if (l.bidFrom !== undefined) parts.push(`bid ${l.bidFrom}..264`);
  if (l.hold) parts.push("hold");
  if (l.pass) parts.push("pass");
  if (l.pickUpSkat) parts.push("pick up the skat");
  if (l.playHand) parts.push("play hand");
  if (l.discardFrom.size > 0) parts.push(`discard 2 of ${sorted(l.discardFrom).map(codeOf).join(" ")}`);
  if (l.contracts.length > 0) parts.push(`declare one of ${l.contracts.length} contracts`);
  if (l.cards.size > 0) parts.push(`play ${sorted(l.cards).map(codeOf).join(" ")}`);
  if (l.resign) parts.push("resign");
  return parts.join(" | ") || "nothing";
}

/** The choice to send instead of a refused one, after the warning; throws for `stop`. */
function instead(k: Knowledge, refused: Choice, why: string, onIllegal: OnIllegal): Choice {
  const l = k.legal;
  let other: Choice | null;
  if (onIllegal === "stop") other = null;
  else if (onIllegal === "resign" && l.resign) other = { rpc: "resign" };
  else if (onIllegal === "resign" && l.pass) other = { rpc: "bid", call: BidCall.PASS };
  else other = firstLegal(k);
  const then = other ? `playing ${describe(other)} (${onIllegal})` : "stopping this seat";
  logger().warn(`illegal action refused: decision=${describe(refused)} legal=${describeLegal(l)} reason=${why} then=${then}`);
  if (!other) throw new IllegalAction(`illegal action ${describe(refused)} refused (${why}); stopped (onIllegal: stop)`);
  return other;
}

/** Asks the bot the decision `k.legal` calls for (null: not the seat's turn). */
export function decide(bot: Bot, k: Knowledge): Choice | null {
  const legal = k.legal;
  if (legal.cards.size > 0) return { rpc: "playCard", card: bot.play(k) };
  if (legal.discardFrom.size > 0) return { rpc: "discard", cards: [...bot.discard(k)] };
  if (legal.contracts.length > 0) return { rpc: "declare", contract: bot.declare(k) };
  if (legal.pickUpSkat || legal.playHand) {
    const pickUp = legal.pickUpSkat && legal.playHand ? bot.takeSkat(k) : legal.pickUpSkat;
    return { rpc: "takeSkat", pickUp };
  }
  if (legal.hold) return { rpc: "bid", call: bot.answer(k, k.bid ?? 0) ? BidCall.HOLD : BidCall.PASS };
  if (legal.bidFrom !== undefined) {
    const value = bot.bid(k);
    return value === null ? { rpc: "bid", call: BidCall.PASS } : { rpc: "bid", call: BidCall.SAY, value };
  }
  if (legal.pass) return { rpc: "bid", call: BidCall.PASS };
  return null;
}

/** Refusals that only mean the table moved on while the bot was thinking. */
export const MOVED_ON = new Set(["STALE_SEQ", "NOT_YOUR_TURN", "WRONG_PHASE", "DEAL_OVER", "TABLE_FINISHED", "SITTING_OUT"]);

export type { Standing };

/** How a list ended for this seat. `String(result)` and `console.log(result)` show a
 * table of the seats, their points and places; `place` is this seat's. */
export class Finished {
  constructor(
    readonly seat: number,
    readonly standings: Standing[],
    readonly reconnects: number,
    readonly decisions: number,
    readonly tableId: string = "",
  ) {}

  /** The standings, best Seeger-Fabian first (seat order between equals). */
  ranked(): Standing[] {
    return [...this.standings].sort((a, b) => b.seegerFabian - a.seegerFabian || a.seat - b.seat);
  }

  /** This seat's place by Seeger-Fabian (1: first), 0 when it has no standing. */
  get place(): number {
    return this.ranked().findIndex((s) => s.seat === this.seat) + 1;
  }

  toString(): string {
    const lines = [`table ${this.tableId || "?"}, seat ${this.seat}: place ${this.place} of ${this.standings.length}`,
      `  ${"seat".padStart(4)}  ${"player".padEnd(20)} ${"Seeger-Fabian".padStart(13)} ${"points".padStart(7)} ${"won/declared".padStart(12)}`];
    for (const s of this.ranked()) {
      const mark = s.seat === this.seat ? ">" : " ";
      lines.push(`${mark} ${String(s.seat).padStart(4)}  ${s.name.slice(0, 20).padEnd(20)} ${String(s.seegerFabian).padStart(13)} ` +
        `${String(s.plain).padStart(7)} ${`${s.won}/${s.declared}`.padStart(12)}`);
    }
    return lines.join("\n");
  }

  /** What Node's console.log prints: the table, not the messages' internals. */
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return this.toString();
  }

  /** The plain data (JSON.stringify), without the messages' type names. */
  toJSON() {
    return {
      tableId: this.tableId, seat: this.seat, place: this.place, reconnects: this.reconnects, decisions: this.decisions,
      standings: this.standings.map((s) => ({ seat: s.seat, name: s.name, seegerFabian: s.seegerFabian, plain: s.plain,
        declared: s.declared, won: s.won, lost: s.lost, penalties: s.penalties })),
    };
  }
}

/** The trailer in which a replica that does not own a table names the one that does. */
export const OWNER_METADATA = "skat-owner";

/** The owner's address when a call was answered with the redirect (NOT_FOUND with the
 * `skat-owner` trailer: another replica owns the table), else null. */
export function redirect(e: unknown): string | null {
  if (!(e instanceof ConnectError) || e.code !== Code.NotFound) return null;
  return e.metadata.get(OWNER_METADATA);
}

/** Runs `call` at `address`, following up to three redirects to the replica that owns the
 * table (same TLS settings); resolves with the address that answered and the answer. */
async function follow<T>(
  address: ServerAddress,
  call: (client: Connection["client"]) => Promise<T>,
): Promise<[ServerAddress, T]> {
  for (let i = 0; i < 4; i++) {
    const conn = connect(address);
    try {
      return [address, await call(conn.client)];
    } catch (e) {
      const owner = redirect(e);
      if (owner === null || address.at(owner).url === address.url) throw e;
      logger().debug(`table lives on another replica; following: owner=${owner}`);
      address = address.at(owner);
    } finally {
      conn.close();
    }
  }
  throw new Error("too many redirects");
}

/** A seat at a table: its server, table, token and number. The seat token never travels
 * in plain text beyond this machine unless the {@link ServerAddress} allows it. `home`:
 * where the seat was first asked for (before a redirect; by default `server`), which
 * {@link Seat.reconnect} asks when the seat's server is gone. */
export class Seat {
  private conn: Connection;
  private lease: Lease | undefined;
  private where: ServerAddress;
  /** Where the seat was first asked for. */
  readonly home: ServerAddress;
  /** `shared`: connections this seat shares with others (a lobby's seats); without it
   * the seat has a connection of its own. */
  constructor(
    server: Server,
    readonly tableId: string,
    readonly token: string,
    readonly seat: number,
    home?: Server,
    private readonly shared?: Connections,
  ) {
    this.where = serverAddress(server);
    this.where.checkSecret("seat token");
    this.home = home === undefined ? this.where : serverAddress(home);
    this.conn = this.open();
  }

  /** A connection to the seat's server: a place on a shared one, or its own. */
  private open(): Connection {
    if (this.shared === undefined) return connect(this.where);
    this.lease = this.shared.take(this.where);
    return this.lease.conn;
  }

  /** Lets go of the connection: closes its own, leaves a shared one (to the other seats,
   * however often this is called). */
  private let(): void {
    if (this.shared === undefined) this.conn.close();
    else this.lease?.release();
    this.lease = undefined;
  }

  /** The server with its TLS settings (the table's owner). */
  get address(): ServerAddress {
    return this.where;
  }

  /** The server's URL. */
  get server(): string {
    return this.where.url;
  }

  /** The connection's client. */
  get client(): Connection["client"] {
    return this.conn.client;
  }

  /** A fresh connection after the old one broke: to the seat's server if it still holds
   * the table, else to the table's owner now, found through `home` (a replica that took
   * the table over from a dead one). If neither answers, the next attempt tries again. */
  async reconnect(): Promise<void> {
    this.let();
    const tries = this.home.url === this.where.url ? [this.where] : [this.where, this.home];
    for (const address of tries) {
      try {
        const [found] = await follow(address, (c) =>
          c.getTable({ tableId: this.tableId }, bearer(this.token, { timeoutMs: 10_000 })),
        );
        this.where = found;
        break;
      } catch (e) {
        // The next address, or the next attempt.
        logger().debug(`reconnect: ${address.url} did not answer for table ${this.tableId}: ${errorWords(e)}`);
      }
    }
    this.conn = this.open();
  }

  /** The table's stream for this seat after `afterSeq` (a snapshot first without it),
   * until `signal`. A seat on a shared connection (a lobby's) watches on the connection's
   * one WatchTables stream (`watches.ts`), any other on a WatchTable stream of its own;
   * both yield WatchTable's messages and throw the same errors. */
  watch(afterSeq: bigint | undefined, signal: AbortSignal): AsyncIterable<WatchTableResponse> {
    const own = () =>
      this.conn.client.watchTable({ tableId: this.tableId, afterSeq }, bearer(this.token, { signal }));
    if (this.lease === undefined) return own();
    return this.lease.hub.watch(this.tableId, this.token, afterSeq, signal, own);
  }

  /** Closes the connection (a shared one: leaves it to the other seats). */
  close(): void {
    this.let();
  }

  /** Takes a seat (the first open one unless `seat` is given), following a redirect to
   * the replica that owns the table. */
  /** Takes a seat (the first open one unless `seat` is given). `joinKey`: keep one (16 to
   * 128 printable characters) to get the same seat back after a crash (JoinTable with it
   * again returns the seat, with a new token); by default a random one, with which a
   * JoinTable whose answer was lost is retried. */
  static async join(server: Server, tableId: string, name = "ts-bot", seat?: number, joinCode = "", joinKey?: string): Promise<Seat> {
    const home = serverAddress(server);
    // The answer is the seat token: it must not come back in plain text either.
    home.checkSecret(joinCode ? "join code" : "seat token");
    const key = joinKey ?? randomUUID();
    for (let attempt = 0; ; attempt++) {
      try {
        const [address, r] = await follow(home, (c) => c.joinTable({ tableId, name, seat, joinCode, joinKey: key }));
        return new Seat(address, tableId, r.token, r.seat, home);
      } catch (e) {
        // The answer may be lost after the server seated us: the same key again gets that
        // seat, never a second one.
        const lost = e instanceof ConnectError && (e.code === Code.Unavailable || brokenConnection(e));
        if (!lost || attempt === 2) throw e;
        await new Promise((r) => setTimeout(r, 200 * (attempt + 1)));
      }
    }
  }

  /** A seat from a token handed out elsewhere (`skat arena`, `skat table create --take-seats`). */
  static async withToken(server: Server, tableId: string, token: string): Promise<Seat> {
    const home = serverAddress(server);
    home.checkSecret("seat token");
    const [address, answer] = await follow(home, (c) => c.getTable({ tableId }, bearer(token)));
    const view = answer.table;
    if (view?.yourSeat === undefined) throw new Error(`this token holds no seat at table ${tableId}`);
    return new Seat(address, tableId, token, view.yourSeat, home);
  }

  /** The table as this seat sees it. */
  async view(): Promise<TableView> {
    const view = (await this.client.getTable({ tableId: this.tableId }, bearer(this.token))).table;
    if (!view) throw new Error("the server sent no table view");
    return view;
  }

  /** Sends a choice, decided on the table at `expectedSeq`, with an optional comment. */
  async send(choice: Choice, expectedSeq: bigint, comment = ""): Promise<void> {
    const base = { tableId: this.tableId, expectedSeq, comment };
    const auth = bearer(this.token);
    switch (choice.rpc) {
      case "bid":
        await this.client.bid({ ...base, call: choice.call, value: choice.value ?? 0 }, auth);
        return;
      case "takeSkat":
        await this.client.takeSkat({ ...base, pickUp: choice.pickUp }, auth);
        return;
      case "discard":
        await this.client.discard({ ...base, cards: choice.cards }, auth);
        return;
      case "declare":
        await this.client.declare({ ...base, game: choice.contract.game, announcement: choice.contract.announcement }, auth);
        return;
      case "playCard":
        await this.client.playCard({ ...base, card: choice.card }, auth);
        return;
      case "resign":
        await this.client.resign(base, auth);
        return;
    }
  }
}

export interface PlayOptions {
  /** When the server refuses the bot's action as illegal (default `fallback`). */
  onIllegal?: OnIllegal;
  /** Give up after this many reconnection attempts in a row (default 50). */
  maxReconnects?: number;
  /** Called before every decision with the seat's knowledge and the seq it was folded
   * to (tests compare it with `seat.view()`, as the Rust SDK's `verify_knowledge` does). */
  beforeDecision?: (k: Knowledge, seat: Seat, seq: bigint) => Promise<void>;
}

/** An error in a log line's words: its code and reason when the server sent one. */
function errorWords(e: unknown): string {
  if (e instanceof ConnectError) return `${Code[e.code]}${reason(e) ? ` ${reason(e)}` : ""}: ${e.rawMessage}`;
  return String(e);
}

/** Whether an error means "the server is away for now" (reconnect and resume). */
function retryable(e: unknown): boolean {
  return reason(e) === "STREAM_BEHIND" || brokenConnection(e);
}

/** Whether a refused action only means the table moved on while the bot was thinking
 * (a broken connection is not that: it is retried with the stream). */
function movedOn(e: unknown): boolean {
  return MOVED_ON.has(reason(e) ?? "") || (e instanceof ConnectError && e.code === Code.Aborted && !brokenConnection(e));
}

/** One decision at `seq`: the bot's choice sent; when the server refuses it as illegal,
 * the fallback `options.onIllegal` names (or the action again without a refused comment).
 * Resolves whether an action was taken; a refusal because the table moved on takes none. */
async function decideAndSend(seat: Seat, bot: Bot, k: Knowledge, seq: bigint, options: PlayOptions): Promise<boolean> {
  if (options.beforeDecision) await options.beforeDecision(k, seat, seq);
  const choice = decide(bot, k);
  if (!choice) return false;
  const comment = bot.comment(k) ?? "";
  let other: Choice;
  try {
    await seat.send(choice, seq, comment);
    return true;
  } catch (e) {
    const why = reason(e);
    if (movedOn(e)) return false;
    const illegal = e instanceof ConnectError && [Code.InvalidArgument, Code.FailedPrecondition].includes(e.code);
    if (!illegal) throw e;
    if (why === "INVALID_COMMENT") {
      // The comment, not the action, was refused: the action goes again without it.
      logger().warn(`comment refused (${(e as ConnectError).rawMessage}); sending the action without it`);
      other = choice;
    } else {
      other = instead(k, choice, why ?? Code[(e as ConnectError).code], options.onIllegal ?? "fallback");
      if (describe(other) === describe(choice)) throw e;
    }
  }
  try {
    await seat.send(other, seq);
    return true;
  } catch (e) {
    if (!movedOn(e)) throw e;
    return false;
  }
}

/** Plays the seat until the list is over; resolves with the final standings. */
export async function play(seat: Seat, bot: Bot, options: PlayOptions = {}): Promise<Finished> {
  const maxReconnects = options.maxReconnects ?? 50;
  const k = new Knowledge(seat.seat);
  let last: bigint | null = null;
  let actFrom = 0n;
  let reconnects = 0;
  let decisions = 0;
  let failures = 0;

  const act = async (seq: bigint) => {
    if (await decideAndSend(seat, bot, k, seq, options)) decisions++;
  };

  try {
    for (;;) {
      const abort = new AbortController();
      try {
        let after = 0n;
        if (last === null) {
          // Fold the table's log from its start; act only on what happens from now on.
          actFrom = (await seat.view()).seq;
        } else {
          after = last;
          if (k.hasTurn()) await act(last);
        }
        const stream = seat.watch(after, abort.signal);
        for await (const msg of stream) {
          if (msg.kind.case !== "event") continue;
          const event = msg.kind.value;
          k.apply(event);
          last = event.seq;
          failures = 0;
          if (event.kind.case === "matchEnded") {
            abort.abort();
            return new Finished(seat.seat, event.kind.value.standings, reconnects, decisions, seat.tableId);
          }
          if (event.seq >= actFrom && k.hasTurn()) await act(event.seq);
        }
        if (last === null) last = 0n;
      } catch (e) {
        abort.abort();
        // UNAVAILABLE: the server went away (a restart, a drain); STREAM_BEHIND: we read
        // too slowly. Either way, resume with afterSeq.
        if (!retryable(e) || ++failures > maxReconnects) throw e;
        logger().info(`connection lost (${errorWords(e)}); resuming after seq ${last}`);
        await new Promise((r) => setTimeout(r, Math.min(2000, 50 * 2 ** failures)));
        await seat.reconnect();
        logger().debug(`reconnected: table=${seat.tableId} server=${seat.server}`);
        reconnects++;
      }
    }
  } finally {
    seat.close();
  }
}

/** Joins a table and plays the list with `bot`. */
export async function joinAndPlay(
  server: Server,
  tableId: string,
  bot: Bot,
  opts: { name?: string; seat?: number; joinCode?: string; onIllegal?: OnIllegal } = {},
): Promise<Finished> {
  return play(await Seat.join(server, tableId, opts.name, opts.seat, opts.joinCode), bot, { onIllegal: opts.onIllegal });
}

/** Plays a seat whose token was handed out elsewhere. */
export async function playWithToken(
  server: Server,
  tableId: string,
  token: string,
  bot: Bot,
  opts: { onIllegal?: OnIllegal } = {},
): Promise<Finished> {
  return play(await Seat.withToken(server, tableId, token), bot, { onIllegal: opts.onIllegal });
}
