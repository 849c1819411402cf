// The TypeScript SDK of the open Skat server.
//
//   import { Bot, Knowledge, joinAndPlay, pointsOf } from "skat-sdk";
//
//   class Lowest extends Bot {
//     play(k: Knowledge) {
//       return [...k.legal.cards].sort((a, b) => pointsOf(a) - pointsOf(b))[0];
//     }
//   }
//   await joinAndPlay("127.0.0.1:50051", tableId, new Lowest(), { name: "lowest" });

export { Bot, Choice, Finished, MOVED_ON, PlayOptions, Seat, Standing, decide, joinAndPlay, play, playWithToken } from "./sdk";
export { CardName, Contract, Knowledge, Position, TRUMP, Trick, followClass, hasTurn, isJack, pointsOf, rankOf, suitOf } from "./knowledge";
export { errorInfo, reason } from "./errors";
export { lobby } from "./lobby";
export { connect, call, bearer } from "./proto";
