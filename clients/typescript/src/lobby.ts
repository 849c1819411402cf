// Lobby mode: connect once with an account's bot token and play every seat the server
// gives it (tournament tables), each with a bot from `makeBot`, as many at once as they
// come. After a broken stream or a server restart it reconnects; the server then hands
// out again every seat the account holds (after a restart with a new seat token).

import * as grpc from "@grpc/grpc-js";
import { bearer, connect } from "./proto";
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
  server: string,
  botToken: string,
  makeBot: () => Bot,
  lists?: number,
  options: LobbyOptions = {},
): Promise<Finished[]> {
  const finished: Finished[] = [];
  const playing = new Map<string, string>(); // table id -> seat token
  const streams = new Set<grpc.ClientReadableStream<unknown>>();
  const followed = new Set<string>([server]);
  const enough = () => lists !== undefined && finished.length >= lists;

  const keep = async (address: string, casualSeats: number, primary: boolean): Promise<void> => {
    let failures = 0;
    for (;;) {
      const client = connect(address);
      const outcome = await new Promise<"done" | "retry">((resolve, reject) => {
        const stream = client.Lobby({ maxTables: options.maxTables ?? 0, casualSeats }, bearer(botToken));
        streams.add(stream);
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        stream.on("data", (event: any) => {
          failures = 0;
          const s = event.seatAssigned;
          if (!s) return;
          const seatServer = s.ownerAddress || address;
          if (!s.seatToken) {
            if (!followed.has(seatServer)) {
              followed.add(seatServer);
              keep(seatServer, 0, false).catch(() => undefined);
            }
            return;
          }
          if (playing.get(s.tableId) === s.seatToken) return;
          playing.set(s.tableId, s.seatToken);
          const seat = new Seat(seatServer, s.tableId, s.seatToken, s.seat);
          play(seat, makeBot())
            .then((f) => {
              finished.push(f);
              if (enough()) {
                for (const open of streams) open.cancel();
                resolve("done");
              }
            })
            // A newer token for this seat replaced this one (after a restart): its own
            // game goes on.
            .catch(() => undefined);
        });
        stream.on("error", (e: grpc.ServiceError) => {
          if (enough()) return resolve("done");
          if ([grpc.status.UNAVAILABLE, grpc.status.UNKNOWN, grpc.status.CANCELLED].includes(e.code)) return resolve("retry");
          reject(e);
        });
        stream.on("end", () => resolve(enough() ? "done" : "retry"));
      }).finally(() => client.close());
      if (outcome === "done" || enough()) return;
      if (++failures > 60) {
        if (primary) throw new Error("the lobby could not reconnect");
        return;
      }
      await new Promise((r) => setTimeout(r, Math.min(2000, 100 * failures)));
    }
  };

  await keep(server, options.casualSeats ?? 0, true);
  return finished;
}
