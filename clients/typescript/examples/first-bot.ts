// A first bot in about 30 lines: bids with two jacks, plays its highest card when it
// leads and its cheapest otherwise.
//
//   npm install ./clients/typescript && npx tsc ... (or: node dist/examples/first-bot.js HOST:PORT TABLE)

import { Bot, Card, Knowledge, isJack, joinAndPlay, pointsOf } from "../src/index";

class FirstBot extends Bot {
  bid(k: Knowledge): number | null {
    const jacks = [...k.hand].filter(isJack).length;
    const from = k.legal.bidFrom ?? 0;
    return jacks >= 2 && from <= 23 ? from : null;
  }
  answer(k: Knowledge, bid: number): boolean {
    return [...k.hand].filter(isJack).length >= 2 && bid <= 23;
  }
  play(k: Knowledge): Card {
    const byPoints = [...k.legal.cards].sort((a, b) => pointsOf(a) - pointsOf(b));
    return k.currentTrick ? byPoints[0] : byPoints[byPoints.length - 1];
  }
}

async function main() {
  const [server, table] = process.argv.slice(2);
  const finished = await joinAndPlay(server, table, new FirstBot(), { name: "first-bot" });
  console.log(String(finished)); // a table of the seats, their points and places
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
