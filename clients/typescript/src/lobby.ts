// Lobby mode: connect once with an account's bot token and play every seat the server
// gives it (tournament tables), each with a bot from `makeBot`, as many at once as they
// come. After a broken stream or a server restart it reconnects; the server then hands
// out again every seat the account holds (after a restart with a new seat token).

import { Code, ConnectError } from "@connectrpc/connect";
import { type Connection, Connections, type Server, type ServerAddress, bearer, connect, serverAddress } from "./client";
import type { LobbyResponse } from "./gen/skat/v1/skat_pb";
import { brokenConnection, reason } from "./errors";
import { logger } from "./log";
import { Bot, Finished, type OnIllegal, Seat, play } from "./play";

/** What a bot asks of its lobby. */
export interface LobbyOptions {
  /** Most tables at once (0 or absent: the account's quota). */
  maxTables?: number;
  /** Also be matched with other bots as they arrive, at tables of 3 or 4 seats. */
  casualSeats?: number;
  /** When the server refuses the bot's action as illegal (default `fallback`). */
  onIllegal?: OnIllegal;
  /** Challenges (Challenge): accept those from these account names (`*`: anybody) and
   * decline the others. Absent or empty: the lobby is not shown challenges (answer them
   * with `answerChallenge`). */
  acceptChallenges?: string[];
  /** Offer the account to people's tables: a CreateTable naming it in `bots` seats it
   * (within its quota), and the seat comes through this lobby. */
  openTables?: boolean;
}

/** Whether an `acceptChallenges` list accepts a challenge from `challenger`. */
export function accepts(policy: readonly string[], challenger: string): boolean {
  return policy.some((n) => n === "*" || n === challenger);
}

/** Accepts or declines a challenge offered to the account of `botToken`; resolves with
 * the challenge after the answer. */
export async function answerChallenge(server: Server, botToken: string, challengeId: string, accept: boolean) {
  const address = serverAddress(server);
  address.checkSecret("bot token");
  const conn = connect(address);
  try {
    return (await conn.client.answerChallenge({ challengeId, accept }, bearer(botToken))).challenge;
  } finally {
    conn.close();
  }
}

/** Plays every seat the lobby hands out until `lists` tables have ended (forever
 * without it), whatever happened at them (a seat that stopped on an error counts);
 * resolves with how each finished table ended. It logs (see `setLogger`) `lobby
 * connected`, `seated`, `table finished` (with the result) and `lobby reconnecting` at
 * info, `seat stopped` as a warning: the Rust and Python SDKs' words. A seat on another replica comes without
 * its token; the bot then keeps a lobby open at that replica too, which hands the seat
 * out with its token. */
export async function lobby(
  server: Server,
  botToken: string,
  makeBot: () => Bot,
  lists?: number,
  options: LobbyOptions = {},
): Promise<Finished[]> {
  const home = serverAddress(server);
  // The bot token must not cross a network in plain text (PlainTextRefused says how to fix).
  home.checkSecret("bot token");
  const run = new LobbyRun(home, botToken, makeBot, lists, options);
  await run.keep(home, options.casualSeats ?? 0, true);
  // Enough tables ended and the rest were stopped: their connections go too.
  run.connections.close();
  return run.finished;
}

type SeatAssigned = Extract<LobbyResponse["kind"], { case: "seatAssigned" }>["value"];
type ChallengeOffered = Extract<LobbyResponse["kind"], { case: "challengeOffered" }>["value"];

/** One lobby's life: its streams (home, and replicas that hold its seats), the seats it
 * plays and the tables that ended. */
class LobbyRun {
  readonly finished: Finished[] = [];
  private readonly playing = new Map<string, string>(); // table id -> seat token
  private readonly aborts = new Set<AbortController>();
  private readonly followed: Set<string>;
  private ended = 0; // tables played to their end or stopped on an error
  /** The seats' connections: up to 64 seats share one (`Connections`). */
  readonly connections = new Connections();

  constructor(
    private readonly home: ServerAddress,
    private readonly botToken: string,
    private readonly makeBot: () => Bot,
    private readonly lists: number | undefined,
    private readonly options: LobbyOptions,
  ) {
    this.followed = new Set<string>([home.url]);
  }

  private enough(): boolean {
    return this.lists !== undefined && this.ended >= this.lists;
  }

  private countOne(): void {
    this.ended++;
    if (this.enough()) for (const a of this.aborts) a.abort();
  }

  /** Keeps a lobby open at `address` (reconnecting) until enough tables ended. */
  async keep(address: ServerAddress, casualSeats: number, primary: boolean): Promise<void> {
    let failures = 0;
    for (;;) {
      const conn = connect(address);
      const abort = new AbortController();
      this.aborts.add(abort);
      try {
        await this.follow(conn, address, abort, casualSeats, primary, () => (failures = 0));
      } catch (e) {
        const retry = brokenConnection(e);
        if (!this.enough() && !retry) throw e;
        if (!this.enough()) logger().info(`lobby reconnecting: server=${address.url} error=${reason(e) ?? (e as ConnectError).code}`);
      } finally {
        this.aborts.delete(abort);
        conn.close();
      }
      if (this.enough()) return;
      if (++failures > 60) {
        if (primary) throw new Error("the lobby could not reconnect");
        return;
      }
      await new Promise((r) => setTimeout(r, Math.min(2000, 100 * failures)));
    }
  }

  /** One lobby stream, read to its end. */
  private async follow(
    conn: Connection,
    address: ServerAddress,
    abort: AbortController,
    casualSeats: number,
    primary: boolean,
    heard: () => void,
  ): Promise<void> {
    const policy = this.options.acceptChallenges ?? [];
    const stream = conn.client.lobby(
      // Challenges only at home: a followed replica's lobby is for its seats.
      { maxTables: this.options.maxTables ?? 0, casualSeats, challenges: primary && policy.length > 0, openTables: primary && (this.options.openTables ?? false) },
      // The server answers a lobby with its headers at once: connected.
      bearer(this.botToken, { signal: abort.signal, onHeader: () => logger().info(`lobby connected: server=${address.url}`) }),
    );
    for await (const event of stream) {
      heard();
      if (event.kind.case === "challengeOffered") this.answer(address, event.kind.value, policy);
      else if (event.kind.case === "seatAssigned") this.seat(address, event.kind.value);
    }
  }

  /** Answers a challenge beside the stream: a slow answer holds no seat back. */
  private answer(address: ServerAddress, c: ChallengeOffered, policy: string[]): void {
    const accept = accepts(policy, c.challenger);
    answerChallenge(address, this.botToken, c.challengeId, accept)
      .then(() => logger().info(`challenge ${accept ? "accepted" : "declined"}: challenge=${c.challengeId} challenger=${c.challenger}`))
      .catch((e: unknown) => logger().warn(`challenge not answered: challenge=${c.challengeId} error=${reason(e) ?? String(e)}`));
  }

  /** A seat handed out: played here, or (without its token) followed at its replica. */
  private seat(address: ServerAddress, s: SeatAssigned): void {
    const seatServer = s.ownerAddress ? address.at(s.ownerAddress) : address;
    if (!s.seatToken) {
      if (!this.followed.has(seatServer.url)) {
        this.followed.add(seatServer.url);
        this.keep(seatServer, 0, false).catch(() => undefined);
      }
      return;
    }
    if (this.playing.get(s.tableId) === s.seatToken) return;
    this.playing.set(s.tableId, s.seatToken);
    logger().info(`seated: table=${s.tableId} seat=${s.seat} tournament=${s.tournamentId}`);
    const token = s.seatToken;
    play(new Seat(seatServer, s.tableId, s.seatToken, s.seat, this.home, this.connections), this.makeBot(), { onIllegal: this.options.onIllegal })
      .then((f) => {
        const ranked = [...f.standings].sort((a, b) => b.seegerFabian - a.seegerFabian);
        const mine = f.standings.find((x) => x.seat === s.seat);
        const place = ranked.findIndex((x) => x.seat === s.seat) + 1;
        logger().info(
          `table finished: table=${s.tableId} seat=${s.seat} seeger_fabian=${mine?.seegerFabian ?? 0} plain=${mine?.plain ?? 0} place=${place}/${ranked.length}`,
        );
        this.finished.push(f);
        this.countOne();
      })
      .catch((e: unknown) => {
        if (this.playing.get(s.tableId) !== token) {
          // A newer token for this seat replaced this one (after a restart): the newer
          // game goes on.
          logger().info(`seat replaced: table=${s.tableId} seat=${s.seat}`);
          return;
        }
        logger().warn(`seat stopped: table=${s.tableId} seat=${s.seat} error=${reason(e) ?? (e instanceof Error ? e.message : String(e))}`);
        this.countOne();
      });
  }
}
