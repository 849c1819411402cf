// Lobby mode: connect once with an account's bot token and play every seat the server
// gives it (tournament tables), each with a bot from `makeBot`, as many at once as they
// come. After a broken stream or a server restart it reconnects; the server then hands
// out again every seat the account holds (after a restart with a new seat token).

import { Code, ConnectError } from "@connectrpc/connect";
import { type Server, type ServerAddress, bearer, connect, serverAddress } from "./client";
import { Bot, Finished, Seat, play } from "./sdk";

/** What a bot asks of its lobby. */
export interface LobbyOptions {
  /** Most tables at once (0 or absent: the account's quota). */
  maxTables?: number;
  /** Also be matched with other bots as they arrive, at tables of 3 or 4 seats. */
  casualSeats?: number;
}

/** Plays every seat the lobby hands out until `lists` tables have finished (forever
 * without it); resolves with how each finished. A seat on another replica comes without
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
  const finished: Finished[] = [];
  const playing = new Map<string, string>(); // table id -> seat token
  const aborts = new Set<AbortController>();
  const followed = new Set<string>([home.url]);
  const enough = () => lists !== undefined && finished.length >= lists;

  const keep = async (address: ServerAddress, casualSeats: number, primary: boolean): Promise<void> => {
    let failures = 0;
    for (;;) {
      const conn = connect(address);
      const abort = new AbortController();
      aborts.add(abort);
      let outcome: "done" | "retry" = "retry";
      try {
        const stream = conn.client.lobby(
          { maxTables: options.maxTables ?? 0, casualSeats },
          bearer(botToken, { signal: abort.signal }),
        );
        for await (const event of stream) {
          failures = 0;
          if (event.kind.case !== "seatAssigned") continue;
          const s = event.kind.value;
          const seatServer = s.ownerAddress ? address.at(s.ownerAddress) : address;
          if (!s.seatToken) {
            if (!followed.has(seatServer.url)) {
              followed.add(seatServer.url);
              keep(seatServer, 0, false).catch(() => undefined);
            }
            continue;
          }
          if (playing.get(s.tableId) === s.seatToken) continue;
          playing.set(s.tableId, s.seatToken);
          play(new Seat(seatServer, s.tableId, s.seatToken, s.seat), makeBot())
            .then((f) => {
              finished.push(f);
              if (enough()) for (const a of aborts) a.abort();
            })
            // A newer token for this seat replaced this one (after a restart): its own
            // game goes on.
            .catch(() => undefined);
        }
      } catch (e) {
        const retry = e instanceof ConnectError && [Code.Unavailable, Code.Unknown, Code.Canceled].includes(e.code);
        if (!enough() && !retry) throw e;
      } finally {
        aborts.delete(abort);
        conn.close();
      }
      if (enough()) outcome = "done";
      if (outcome === "done") return;
      if (++failures > 60) {
        if (primary) throw new Error("the lobby could not reconnect");
        return;
      }
      await new Promise((r) => setTimeout(r, Math.min(2000, 100 * failures)));
    }
  };

  await keep(home, options.casualSeats ?? 0, true);
  return finished;
}
