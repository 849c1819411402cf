#!/usr/bin/env node
// skat-ts-bot --server HOST:PORT|https://HOST|unix:///PATH --table ID [--token T | --name N] [--seat S]
// (a hosted sandbox: SKAT_SERVER, SKAT_TABLE and SKAT_SEAT_TOKEN from the environment)
// skat-ts-bot --server HOST:PORT|https://HOST --bot-token T [--lists N] [--max-tables N] [--casual 3|4] [--accept-challenges A,B|*]
//   [--ca-file CA.pem] [--client-cert C.pem --client-key K.pem] [--insecure] [--on-illegal fallback|resign|stop]
// The SDK's example bot (JackBot in strategy.ts).

import { Code, ConnectError } from "@connectrpc/connect";
import { type OnIllegal, Seat, play } from "./play";
import { PlainTextRefused, ServerAddress } from "./client";
import { lobby } from "./lobby";
import { JackBot } from "./strategy";
import { reason } from "./errors";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function flag(name: string): boolean | undefined {
  return process.argv.includes(`--${name}`) ? true : undefined;
}

async function main() {
  // A hosted sandbox (docs/hosted-bots.md) names its seat in the environment.
  const tableId = arg("table") ?? (process.env.SKAT_TABLE || undefined);
  const server = new ServerAddress(arg("server") ?? process.env.SKAT_SERVER ?? "127.0.0.1:50051", {
    caFile: arg("ca-file"),
    insecure: flag("insecure"),
    clientCert: arg("client-cert"),
    clientKey: arg("client-key"),
  });
  const botToken = arg("bot-token");
  const onIllegal = (arg("on-illegal") ?? "fallback") as OnIllegal;
  if (!["fallback", "resign", "stop"].includes(onIllegal)) {
    console.error("skat-ts-bot: --on-illegal is fallback, resign or stop");
    process.exit(2);
  }
  if (!tableId && botToken) {
    const lists = arg("lists");
    const accept = arg("accept-challenges");
    const options = {
      maxTables: Number(arg("max-tables") ?? 0),
      casualSeats: Number(arg("casual") ?? 0),
      onIllegal,
      acceptChallenges: accept ? accept.split(",").filter((n) => n.length > 0) : [],
    };
    const played = await lobby(server, botToken, () => new JackBot(), lists === undefined ? undefined : Number(lists), options);
    console.log(`lobby: ${played.length} tables played`);
    for (const result of played) console.log(String(result));
    return;
  }
  if (!tableId) {
    console.error(
      "usage: skat-ts-bot --server HOST:PORT|https://HOST|unix:///PATH [--ca-file CA.pem] [--insecure] [--on-illegal fallback|resign|stop] (--table ID [--token T | --name N] [--seat S] | --bot-token T [--lists N] [--max-tables N] [--casual 3|4] [--accept-challenges A,B|*])",
    );
    process.exit(2);
  }
  const token = arg("token") ?? (process.env.SKAT_SEAT_TOKEN || undefined);
  const seatArg = arg("seat");
  const seat = token
    ? await Seat.withToken(server, tableId, token)
    : await Seat.join(server, tableId, arg("name") ?? "ts-bot", seatArg === undefined ? undefined : Number(seatArg));
  const finished = await play(seat, new JackBot(), { onIllegal });
  console.log(String(finished));
}

/** What to do about a call that failed before the server answered it. */
function hint(message: string): string {
  if (/certificate|self.signed/i.test(message)) return " (the server's certificate is not trusted: for a private CA give it with --ca-file or SKAT_CA_FILE)";
  if (/ECONNREFUSED/.test(message)) return " (is `skat serve` running there?)";
  if (/CANCEL|ECONNRESET|closed/i.test(message)) return " (if the server uses TLS, use https://)";
  return "";
}

main().catch((e: unknown) => {
  const why = reason(e);
  const server = arg("server") ?? process.env.SKAT_SERVER ?? "127.0.0.1:50051";
  if (e instanceof PlainTextRefused) {
    console.error(`skat-ts-bot: ${e.message}`);
  } else if (e instanceof ConnectError && !why) {
    console.error(`skat-ts-bot: no answer from ${server}: ${e.rawMessage}${hint(e.rawMessage)}`);
  } else if (e instanceof ConnectError) {
    console.error(`skat-ts-bot: the server refused: ${e.rawMessage} (${why})`);
  } else {
    console.error(`skat-ts-bot: ${e instanceof Error ? e.message : String(e)}`);
  }
  process.exit(1);
});
