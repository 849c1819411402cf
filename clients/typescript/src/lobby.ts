// Lobby mode: connect once with an account's bot token and play every seat the server
// gives it (tournament tables), each with a bot from `makeBot`, as many at once as they
// come. After a broken stream or a server restart it reconnects; the server then hands
// out again every seat the account holds (after a restart with a new seat token).

import * as grpc from "@grpc/grpc-js";
import { bearer, connect } from "./proto";
import { Bot, Finished, Seat, play } from "./sdk";

/** Plays every seat the lobby hands out until `lists` tables have finished (forever
 * without it); resolves with how each finished. */
export async function lobby(server: string, botToken: string, makeBot: () => Bot, lists?: number): Promise<Finished[]> {
  const finished: Finished[] = [];
  const playing = new Map<string, string>(); // table id -> seat token
  let failures = 0;
  for (;;) {
    const client = connect(server);
    const outcome = await new Promise<"done" | "retry">((resolve, reject) => {
      const stream = client.Lobby({}, bearer(botToken));
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      stream.on("data", (event: any) => {
        failures = 0;
        const s = event.seatAssigned;
        if (!s || playing.get(s.tableId) === s.seatToken) return;
        playing.set(s.tableId, s.seatToken);
        const seat = new Seat(s.ownerAddress || server, s.tableId, s.seatToken, s.seat);
        play(seat, makeBot())
          .then((f) => {
            finished.push(f);
            if (lists !== undefined && finished.length >= lists) {
              stream.cancel();
              resolve("done");
            }
          })
          // A newer token for this seat replaced this one (after a restart): its own
          // game goes on.
          .catch(() => undefined);
      });
      stream.on("error", (e: grpc.ServiceError) => {
        if (lists !== undefined && finished.length >= lists) return resolve("done");
        if ([grpc.status.UNAVAILABLE, grpc.status.UNKNOWN, grpc.status.CANCELLED].includes(e.code)) return resolve("retry");
        reject(e);
      });
      stream.on("end", () => resolve(lists !== undefined && finished.length >= lists ? "done" : "retry"));
    });
    client.close();
    if (outcome === "done") return finished;
    if (++failures > 60) throw new Error("the lobby could not reconnect");
    await new Promise((r) => setTimeout(r, Math.min(2000, 100 * failures)));
  }
}
