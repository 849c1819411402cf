// Talking to a server: a typed client of skat.v1.SkatService over gRPC (HTTP/2), and a
// bearer token on a call.
//
//   const conn = connect("127.0.0.1:50051");
//   const r = await conn.client.createTable({ seats: 3 });
//   conn.close();

import { createClient, type CallOptions, type Client } from "@connectrpc/connect";
import { Http2SessionManager, createGrpcTransport } from "@connectrpc/connect-node";
import { SkatService } from "./gen/skat/v1/skat_pb";

export { SkatService };

/** A typed client: one method per RPC, in camelCase (`createTable`, `watchTable`...). */
export type SkatClient = Client<typeof SkatService>;

/** A client and the HTTP/2 connection under it. */
export interface Connection {
  readonly client: SkatClient;
  /** The server's URL (`http://host:port`). */
  readonly url: string;
  /** Closes the connection (streams on it end). */
  close(): void;
}

/** The URL of a server address: `127.0.0.1:50051` and `http://127.0.0.1:50051` name the
 * same server. */
export function serverUrl(address: string): string {
  const a = address.trim().replace(/\/+$/, "");
  return a.includes("://") ? a : `http://${a}`;
}

/** Connects to a server (`host:port` or `http://host:port`). */
export function connect(address: string): Connection {
  const url = serverUrl(address);
  const sessions = new Http2SessionManager(url, { idleConnectionTimeoutMs: 60_000 });
  const transport = createGrpcTransport({ baseUrl: url, sessionManager: sessions });
  return { client: createClient(SkatService, transport), url, close: () => sessions.abort() };
}

/** Call options carrying `authorization: Bearer <token>` (a seat, bot or admin token). */
export function bearer(token: string, options: CallOptions = {}): CallOptions {
  return { ...options, headers: { ...(options.headers as Record<string, string> | undefined), authorization: `Bearer ${token}` } };
}
