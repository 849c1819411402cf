// A first bot in about 30 lines: bids with two jacks, plays its highest card when it
// leads and its cheapest otherwise.
//
//   npm install ./clients/typescript && npx tsc ... (or: node dist/examples/first-bot.js HOST:PORT TABLE)

import { Bot, Knowledge, isJack, joinAndPlay, pointsOf } from "../src/index";

class FirstBot extends Bot {
  bid(k: Knowledge): number | null {
    const jacks = [...k.hand].filter(isJack).length;
    return jacks >= 2 && Number(k.legal.minBid) <= 23 ? Number(k.legal.minBid) : null;
  }
  answer(k: Knowledge, bid: number): boolean {
    return [...k.hand].filter(isJack).length >= 2 && bid <= 23;
  }
  play(k: Knowledge): string {
    const byPoints = [...k.legal.cards].sort((a: string, b: string) => pointsOf(a) - pointsOf(b));
    return k.trick ? byPoints[0] : byPoints[byPoints.length - 1];
  }
}

async function main() {
  const [server, table] = process.argv.slice(2);
  const finished = await joinAndPlay(server, table, new FirstBot(), { name: "first-bot" });
  for (const s of finished.standings) console.log(s.name, s.seegerFabian);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
