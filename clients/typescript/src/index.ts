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

export {
  Bot,
  type Choice,
  type Decisions,
  Finished,
  IllegalAction,
  MOVED_ON,
  OWNER_METADATA,
  type OnIllegal,
  type PlayOptions,
  Seat,
  type Standing,
  bot,
  decide,
  describe,
  describeLegal,
  firstLegal,
  joinAndPlay,
  play,
  playWithToken,
  redirect,
} from "./play";
export { type LogLevel, type Logger, consoleLogger, logger, setLogger } from "./log";
export {
  Announcement,
  type AuctionCall,
  type Contract,
  type Dealt,
  type Frame,
  GameType,
  Knowledge,
  type LegalActions,
  NO_LEGAL,
  Phase,
  Position,
  TRUMP,
  type Trick,
  followClass,
  followSet,
  hasTurn,
  indexOf,
  legalFrom,
} from "./knowledge";
export { Card, DECK, type Suit, codeOf, isJack, parseCard, pointsOf, rankOf, sorted, suitOf } from "./cards";
export { type ErrorInfo, brokenConnection, errorInfo, reason } from "./errors";
export {
  type Connection,
  Connections,
  type Lease,
  PlainTextRefused,
  SEATS_PER_CONNECTION,
  type Server,
  ServerAddress,
  type SkatClient,
  SkatService,
  type TlsOptions,
  bearer,
  connect,
  serverAddress,
  serverUrl,
} from "./client";
export { type Json, type KnowledgeJson, knowledgeJson } from "./knowledge";
export { type LobbyOptions, accepts, answerChallenge, lobby } from "./lobby";
export * as pb from "./gen/skat/v1/skat_pb";
