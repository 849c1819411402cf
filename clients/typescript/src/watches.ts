// The seats on one shared connection (a lobby's, up to 32 on one) watch their tables on
// one WatchTables stream, not a WatchTable stream each: the server keeps state for every
// open HTTP/2 stream (about 2 KiB), so thirty seats on one stream cost it less than
// thirty streams (docs/server.md, "Many tables on one stream"). The Rust and Python
// SDKs' lobbies do the same.
//
// A watch yields exactly what a WatchTable stream would, and ends as it would: with the
// same ConnectError (its code, message, ErrorInfo and `skat-owner`), so `reason()` and
// `play()` treat both alike. When the shared stream breaks (the server restarted), every
// open watch throws UNAVAILABLE and its seat resumes as after any break. A server without
// WatchTables (UNIMPLEMENTED) is remembered, and its seats watch on WatchTable.
//
// Each watch has its own queue, filled as responses arrive, so a bot that thinks never
// holds the other seats' events back; what a queue holds is what its table did meanwhile,
// which the seat's own turn bounds (the table waits for it).
//
// A stream is closed when its last watch goes (the next watch opens a new one): an open
// HTTP/2 stream keeps Node's process alive, and a bot whose seats are done must exit.

import { type MessageInitShape, create, fromBinary } from "@bufbuild/protobuf";
import { type Client, Code, ConnectError } from "@connectrpc/connect";
import { StatusSchema } from "./gen/google/rpc/status_pb";
import {
  type SkatService,
  type WatchEnded,
  type WatchTableResponse,
  WatchTableResponseSchema,
  type WatchTablesRequestSchema,
  type WatchTablesResponse,
} from "./gen/skat/v1/skat_pb";

/** A typed client of the service (as `client.ts`'s `SkatClient`). */
type SkatClient = Client<typeof SkatService>;

/** The metadata key with which a replica that does not own a table names the one that does. */
const OWNER_METADATA = "skat-owner";

type Request = MessageInitShape<typeof WatchTablesRequestSchema>;

/** Items in order, taken by one reader: `push` never waits, the reader waits for the next. */
class Queue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private waiting: ((item: IteratorResult<T>) => void) | undefined;
  private done = false;

  push(item: T): void {
    if (this.done) return;
    const wake = this.waiting;
    this.waiting = undefined;
    if (wake !== undefined) wake({ value: item, done: false });
    else this.items.push(item);
  }

  end(): void {
    this.done = true;
    const wake = this.waiting;
    this.waiting = undefined;
    wake?.({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<T>> {
    const item = this.items.shift();
    if (item !== undefined) return Promise.resolve({ value: item, done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return { next: () => this.next() };
  }
}

/** What a watch's queue holds: a message, its end (clean, or a status), or "the server has
 * no WatchTables". */
type Item = WatchTableResponse | ConnectError | "end" | "unsupported";

/** The status a WatchTable stream would have ended with; undefined for a clean end. */
function statusOf(end: WatchEnded): ConnectError | undefined {
  const code = end.code as Code;
  if (end.code === 0 || code === Code.Canceled) return undefined;
  const metadata = new Headers();
  if (end.owner !== "") metadata.set(OWNER_METADATA, end.owner);
  const error = new ConnectError(end.message, code, metadata);
  if (end.details.length > 0) {
    for (const any of fromBinary(StatusSchema, end.details).details) {
      error.details.push({ type: any.typeUrl.slice(any.typeUrl.lastIndexOf("/") + 1), value: any.value });
    }
  }
  return error;
}

/** One open WatchTables stream: its requests, each watch's queue, its reader. */
class Stream {
  readonly requests = new Queue<Request>();
  readonly routes = new Map<bigint, Queue<Item>>();
  private nextId = 1n;
  ended = false;
  /** Its last watch went and its side is closed: no more watches on it. */
  closing = false;
  unsupported = false;

  constructor(client: SkatClient) {
    // An async generator over the queue: the transport needs an iterator it can end.
    const requests = async function* (queue: Queue<Request>): AsyncGenerator<Request> {
      yield* queue;
    };
    void this.read(client.watchTables(requests(this.requests)));
  }

  add(tableId: string, token: string, afterSeq: bigint | undefined): [bigint, Queue<Item>] {
    const id = this.nextId++;
    const route = new Queue<Item>();
    if (this.ended) {
      route.push(this.unsupported ? "unsupported" : new ConnectError("the shared watch stream ended", Code.Unavailable));
      return [id, route];
    }
    this.routes.set(id, route);
    this.requests.push({ kind: { case: "add", value: { watchId: id, tableId, seatToken: token, afterSeq } } });
    return [id, route];
  }

  remove(id: bigint): void {
    if (!this.routes.delete(id)) return;
    this.requests.push({ kind: { case: "remove", value: { watchId: id } } });
    this.closeIfIdle();
  }

  /** With no watch left, closes our side, and the server ends the stream: an open stream
   * keeps Node's process alive (the session is ref'd while a stream is open). The next
   * watch opens a new one. */
  private closeIfIdle(): void {
    if (this.routes.size > 0) return;
    this.closing = true;
    this.requests.end();
  }

  private async read(responses: AsyncIterable<WatchTablesResponse>): Promise<void> {
    let end: Item = new ConnectError("the server ended the shared watch stream", Code.Unavailable);
    try {
      for await (const said of responses) {
        const route = this.routes.get(said.watchId);
        if (route === undefined) continue; // a removed watch's late message
        switch (said.kind.case) {
          case "ended":
            this.routes.delete(said.watchId);
            route.push(statusOf(said.kind.value) ?? "end");
            this.closeIfIdle();
            break;
          case "snapshot":
            route.push(create(WatchTableResponseSchema, { kind: { case: "snapshot", value: said.kind.value } }));
            break;
          case "event":
            route.push(create(WatchTableResponseSchema, { kind: { case: "event", value: said.kind.value } }));
            break;
        }
      }
    } catch (e) {
      const error = ConnectError.from(e);
      this.unsupported = error.code === Code.Unimplemented;
      end = this.unsupported
        ? "unsupported"
        : new ConnectError(`the shared watch stream ended: ${error.rawMessage}`, Code.Unavailable);
    }
    this.ended = true;
    this.requests.end();
    for (const route of this.routes.values()) route.push(end);
    this.routes.clear();
  }
}

/** The WatchTables stream of one connection, shared by the seats on it. */
export class WatchHub {
  private stream: Stream | undefined;
  private unsupported = false;

  constructor(private readonly client: SkatClient) {}

  /** A watch of `tableId` as `token`'s seat: WatchTable's messages, or `fallback()`'s (a
   * WatchTable stream) on a server without WatchTables. Stops at `signal`. */
  watch(
    tableId: string,
    token: string,
    afterSeq: bigint | undefined,
    signal: AbortSignal,
    fallback: () => AsyncIterable<WatchTableResponse>,
  ): AsyncIterable<WatchTableResponse> {
    if (this.unsupported) return fallback();
    if (this.stream === undefined || this.stream.ended || this.stream.closing) this.stream = new Stream(this.client);
    const stream = this.stream;
    const [id, route] = stream.add(tableId, token, afterSeq);
    const stop = () => route.push(new ConnectError("the watch was stopped", Code.Canceled));
    signal.addEventListener("abort", stop, { once: true });
    const follow = async function* (hub: WatchHub): AsyncGenerator<WatchTableResponse> {
      try {
        for await (const item of route) {
          if (item === "unsupported") {
            hub.unsupported = true;
            yield* fallback();
            return;
          }
          if (item === "end") return;
          if (item instanceof ConnectError) throw item;
          yield item;
        }
      } finally {
        signal.removeEventListener("abort", stop);
        stream.remove(id);
      }
    };
    return follow(this);
  }
}
