#!/usr/bin/env node
// node dist/src/main.js --server HOST:PORT --table ID [--token T | --name N] [--seat S]

import { play } from "./bot";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main() {
  const tableId = arg("table");
  if (!tableId) {
    console.error("usage: main.js --server HOST:PORT --table ID [--token T | --name N] [--seat S]");
    process.exit(2);
  }
  const seat = arg("seat");
  const standings = await play({
    server: arg("server") ?? "127.0.0.1:50051",
    tableId,
    token: arg("token"),
    name: arg("name") ?? "ts-bot",
    seat: seat === undefined ? undefined : Number(seat),
  });
  for (const s of standings) {
    console.log(`seat ${s.seat} ${s.name.padEnd(16)} plain ${s.plain}  Seeger-Fabian ${s.seegerFabian}  declared ${s.declared} won ${s.won}`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
