#!/usr/bin/env node
// skat-ts-bot --server HOST:PORT --table ID [--token T | --name N] [--seat S]
// skat-ts-bot --server HOST:PORT --bot-token T [--lists N] [--max-tables N] [--casual 3|4]
// The SDK's example bot (JackBot in strategy.ts).

import { Code, ConnectError } from "@connectrpc/connect";
import { Seat, play } from "./sdk";
import { lobby } from "./lobby";
import { JackBot } from "./strategy";
import { reason } from "./errors";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main() {
  const tableId = arg("table");
  const server = arg("server") ?? "127.0.0.1:50051";
  const botToken = arg("bot-token");
  if (!tableId && botToken) {
    const lists = arg("lists");
    const options = { maxTables: Number(arg("max-tables") ?? 0), casualSeats: Number(arg("casual") ?? 0) };
    const played = await lobby(server, botToken, () => new JackBot(), lists === undefined ? undefined : Number(lists), options);
    console.log(`lobby: ${played.length} tables played`);
    return;
  }
  if (!tableId) {
    console.error("usage: skat-ts-bot --server HOST:PORT (--table ID [--token T | --name N] [--seat S] | --bot-token T [--lists N] [--max-tables N] [--casual 3|4])");
    process.exit(2);
  }
  const token = arg("token");
  const seatArg = arg("seat");
  const seat = token
    ? await Seat.withToken(server, tableId, token)
    : await Seat.join(server, tableId, arg("name") ?? "ts-bot", seatArg === undefined ? undefined : Number(seatArg));
  const finished = await play(seat, new JackBot());
  for (const s of finished.standings) {
    console.log(`seat ${s.seat} ${s.name.padEnd(16)} plain ${s.plain}  Seeger-Fabian ${s.seegerFabian}  declared ${s.declared} won ${s.won}`);
  }
}

main().catch((e: unknown) => {
  const why = reason(e);
  if (e instanceof ConnectError && e.code === Code.Unavailable && !why) {
    console.error(`nothing is listening at ${arg("server") ?? "127.0.0.1:50051"}: is \`skat serve\` running?`);
  } else {
    console.error(`the server refused: ${e instanceof ConnectError ? e.rawMessage : String(e)}${why ? ` (${why})` : ""}`);
  }
  process.exit(1);
});
