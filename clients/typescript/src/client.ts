// Talking to a server: a typed client of skat.v1.SkatService over gRPC (HTTP/2), and a
// bearer token on a call.
//
//   const conn = connect("127.0.0.1:50051");
//   const r = await conn.client.createTable({ seats: 3 });
//   conn.close();

import { readFileSync } from "node:fs";
import { connect as netConnect } from "node:net";
import { createClient, type CallOptions, type Client } from "@connectrpc/connect";
import { Http2SessionManager, createGrpcTransport } from "@connectrpc/connect-node";
import { SkatService } from "./gen/skat/v1/skat_pb";
import { WatchHub } from "./watches";

export { SkatService };

/** A typed client: one method per RPC, in camelCase (`createTable`, `watchTable`...). */
export type SkatClient = Client<typeof SkatService>;

/** A client and the HTTP/2 connection under it. */
export interface Connection {
  readonly client: SkatClient;
  /** The server's URL (`http://host:port` or `https://host[:port]`). */
  readonly url: string;
  /** Closes the connection (streams on it end). */
  close(): void;
}

/** How to reach a server beyond its address. */
export interface TlsOptions {
  /** A PEM file with the CA that signed the server's certificate (a private CA); default
   * `SKAT_CA_FILE`. Without it, `https://` trusts Node's roots (Mozilla's, plus
   * `NODE_EXTRA_CA_CERTS`). */
  caFile?: string;
  /** Secrets may travel in plain text to a server that is not this machine (a network you
   * trust); default `SKAT_INSECURE`. */
  insecure?: boolean;
  /** This client's certificate and key (PEM files), for a server that wants mutual TLS
   * (`skat serve --tls-client-ca`); default `SKAT_CLIENT_CERT`, `SKAT_CLIENT_KEY`. */
  clientCert?: string;
  clientKey?: string;
  /** Ping the server this often (ms) while a call is open on the connection, and give
   * the connection up when a ping is not answered within `keepaliveTimeoutMs` (default
   * 10 s): a server whose machine vanished without closing the connection is noticed, and
   * the seat reconnects. Default `SKAT_KEEPALIVE_SECS` (0: no pings), else 15 s; the Rust
   * and Python SDKs do the same. */
  keepaliveMs?: number;
  keepaliveTimeoutMs?: number;
}

/** The ping interval from `SKAT_KEEPALIVE_SECS`, else 15 s. */
function keepaliveFromEnv(): number {
  const secs = Number.parseInt(process.env.SKAT_KEEPALIVE_SECS ?? "", 10);
  return Number.isFinite(secs) && secs >= 0 ? secs * 1000 : 15_000;
}

/** A secret would have gone in plain text to a server that is not this machine. */
export class PlainTextRefused extends Error {
  constructor(
    readonly what: string,
    readonly url: string,
  ) {
    super(
      `refusing to send the ${what} in plain text to ${url}, which is not this machine: use https:// ` +
        "(with caFile / --ca-file / SKAT_CA_FILE for a private CA), or allow plain text with insecure: true " +
        "(--insecure, SKAT_INSECURE=1) on a network you trust",
    );
    this.name = "PlainTextRefused";
  }
}

function envFlag(name: string): boolean {
  return ["1", "true", "yes"].includes((process.env[name] ?? "").trim().toLowerCase());
}

/** The URL of a server address: `127.0.0.1:50051` and `http://127.0.0.1:50051` name the
 * same server; `https://` is TLS. */
export function serverUrl(address: string): string {
  const a = address.trim().replace(/\/+$/, "");
  return a.includes("://") ? a : `http://${a}`;
}

/** A server and how to reach it (the Rust SDK's `ServerAddress`):
 *
 * | address | means |
 * |---|---|
 * | `host:port`, `http://host:port` | plain text |
 * | `https://host[:port]` | TLS with Node's roots, or the CA in `caFile` |
 * | `unix:///path/to/socket` | a Unix socket on this machine (`skat serve --unix-socket`): how a hosted bot's sandbox reaches the server |
 *
 * A secret (a seat or bot token, a join code) never travels in plain text to anything but
 * this machine (a loopback address or `localhost`) unless `insecure` allows it:
 * {@link ServerAddress.checkSecret} throws {@link PlainTextRefused}, which says how to
 * fix it. `https://` is TLS or nothing. */
export class ServerAddress {
  readonly url: string;
  readonly caFile?: string;
  readonly insecure: boolean;
  readonly clientCert?: string;
  readonly clientKey?: string;
  readonly keepaliveMs: number;
  readonly keepaliveTimeoutMs: number;

  constructor(address: string, options: TlsOptions = {}) {
    this.url = serverUrl(address);
    const scheme = this.url.slice(0, this.url.indexOf("://"));
    if (scheme !== "http" && scheme !== "https" && scheme !== "unix") {
      throw new Error(
        `${address}: a server address is host:port, http://host:port, https://host[:port] or unix:///path`,
      );
    }
    this.caFile = options.caFile ?? (process.env.SKAT_CA_FILE || undefined);
    this.insecure = options.insecure ?? envFlag("SKAT_INSECURE");
    this.clientCert = options.clientCert ?? (process.env.SKAT_CLIENT_CERT || undefined);
    this.clientKey = options.clientKey ?? (process.env.SKAT_CLIENT_KEY || undefined);
    this.keepaliveMs = options.keepaliveMs ?? keepaliveFromEnv();
    this.keepaliveTimeoutMs = options.keepaliveTimeoutMs ?? 10_000;
  }

  /** The TLS settings, to make another address with them. */
  get options(): TlsOptions {
    return {
      caFile: this.caFile,
      insecure: this.insecure,
      clientCert: this.clientCert,
      clientKey: this.clientKey,
      keepaliveMs: this.keepaliveMs,
      keepaliveTimeoutMs: this.keepaliveTimeoutMs,
    };
  }

  /** Whether the connection is TLS. */
  get isTls(): boolean {
    return this.url.startsWith("https://");
  }

  /** The socket's path, for a `unix://` address. */
  get unixPath(): string | undefined {
    return this.url.startsWith("unix://") ? this.url.slice("unix://".length) : undefined;
  }

  /** Whether the server is this machine (a loopback address, `localhost` or a Unix socket). */
  get isLoopback(): boolean {
    if (this.unixPath !== undefined) return true;
    const host = new URL(this.url).hostname.replace(/^\[|\]$/g, "").toLowerCase();
    if (host === "localhost" || host === "::1") return true;
    const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host);
    return v4 !== null && v4[1] === "127";
  }

  /** Throws {@link PlainTextRefused} if `what` (a secret) would travel in plain text
   * beyond this machine without `insecure`. */
  checkSecret(what: string): void {
    if (!(this.isTls || this.isLoopback || this.insecure)) throw new PlainTextRefused(what, this.url);
  }

  /** Another server with the same TLS settings: `address` as the server named it (a
   * redirect to the replica that owns a table), with this one's scheme when it has none. */
  at(address: string): ServerAddress {
    const url = address.includes("://") ? address : `${this.isTls ? "https" : "http"}://${address}`;
    return new ServerAddress(url, this.options);
  }
}

/** A server address as a string (TLS settings from the environment) or a
 * {@link ServerAddress}. */
export type Server = string | ServerAddress;

/** `server` as a {@link ServerAddress}. */
export function serverAddress(server: Server, options: TlsOptions = {}): ServerAddress {
  return server instanceof ServerAddress ? server : new ServerAddress(server, options);
}

/** Connects to a server (`host:port`, `http://host:port`, or `https://host[:port]` for
 * TLS, never plain text instead; `unix:///path` for a Unix socket). */
export function connect(server: Server, options: TlsOptions = {}): Connection {
  const address = serverAddress(server, options);
  const url = address.url;
  const tls = address.isTls
    ? {
        ...(address.caFile ? { ca: [readFileSync(address.caFile)] } : {}),
        ...(address.clientCert && address.clientKey
          ? { cert: readFileSync(address.clientCert), key: readFileSync(address.clientKey) }
          : {}),
      }
    : {};
  // A Unix socket: HTTP/2 in plain text over the socket, with `localhost` as the authority
  // (what the server expects of a local client).
  const socket = address.unixPath;
  const base = socket === undefined ? url : "http://localhost";
  const session = socket === undefined ? tls : { createConnection: () => netConnect(socket) };
  const pings = address.keepaliveMs > 0 ? { pingIntervalMs: address.keepaliveMs, pingTimeoutMs: address.keepaliveTimeoutMs } : {};
  const sessions = new Http2SessionManager(base, { idleConnectionTimeoutMs: 60_000, ...pings }, session);
  const transport = createGrpcTransport({ baseUrl: base, sessionManager: sessions });
  return { client: createClient(SkatService, transport), url, close: () => sessions.abort() };
}

/** Call options carrying `authorization: Bearer <token>` (a seat, bot or admin token). */
export function bearer(token: string, options: CallOptions = {}): CallOptions {
  return { ...options, headers: { ...(options.headers as Record<string, string> | undefined), authorization: `Bearer ${token}` } };
}

/** Most seats on one shared connection. */
export const SEATS_PER_CONNECTION = 64;

/** A seat's place on a shared connection: its client, and `release()` when the seat is
 * done with it (more than once is harmless). */
export interface Lease {
  readonly conn: Connection;
  /** The connection's one WatchTables stream, shared by its seats (`watches.ts`). */
  readonly hub: WatchHub;
  release(): void;
}

/** Connections that seats share (a lobby's seats), as the Rust SDK's
 * `skat_sdk::connections`: one HTTP/2 connection carries up to
 * {@link SEATS_PER_CONNECTION} seats (a watch stream each and their actions), so a bot at
 * a hundred tables holds two connections to a server, not a hundred. The server spends
 * about 45 KiB on each connection and counts them against the client address's limit
 * (64 by default); it refuses a connection's 101st watch, hence the cap. A connection no seat
 * holds is closed, except one per server kept for the next seat. A broken connection is
 * dialled again by its session manager at the next call. */
export class Connections {
  private readonly byServer = new Map<string, { conn: Connection; hub: WatchHub; seats: number }[]>();

  /** A place on a connection to `address` with room for one more seat. */
  take(address: ServerAddress): Lease {
    const list = this.byServer.get(address.url) ?? [];
    this.byServer.set(address.url, list);
    let shared = list.find((c) => c.seats < SEATS_PER_CONNECTION);
    if (shared === undefined) {
      const conn = connect(address);
      shared = { conn, hub: new WatchHub(conn.client), seats: 0 };
      list.push(shared);
    }
    const entry = shared;
    entry.seats++;
    let held = true;
    return {
      conn: entry.conn,
      hub: entry.hub,
      release: () => {
        if (!held) return;
        held = false;
        entry.seats--;
        this.closeIdle(address.url);
      },
    };
  }

  /** Open connections to `address`. */
  open(address: ServerAddress): number {
    return this.byServer.get(address.url)?.length ?? 0;
  }

  /** Closes every connection. */
  close(): void {
    for (const list of this.byServer.values()) for (const c of list) c.conn.close();
    this.byServer.clear();
  }

  /** Closes the connections to `url` no seat holds, but one. */
  private closeIdle(url: string): void {
    const list = this.byServer.get(url) ?? [];
    let kept = false;
    const keep = list.filter((c) => {
      if (c.seats > 0) return true;
      if (!kept) return (kept = true);
      c.conn.close();
      return false;
    });
    this.byServer.set(url, keep);
  }
}
