// What the SDK says while it plays: the same words as the Rust and Python SDKs
// (`illegal action refused`, `lobby connected`, `seated`, `table finished`, `lobby
// reconnecting`, `seat stopped`), one line each, on standard error by default.

/** Where the SDK's log lines go. */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
}

/** The levels, least first. */
export type LogLevel = "debug" | "info" | "warn" | "off";

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, off: 3 };

/** Lines like `2026-12-02T10:00:00.000Z INFO skat_sdk: seated: table=... seat=1`, on
 * standard error (`console.error`), from `level` up. */
export function consoleLogger(level: LogLevel = "info"): Logger {
  const line = (at: LogLevel, message: string) => {
    if (RANK[at] < RANK[level]) return;
    console.error(`${new Date().toISOString()} ${at.toUpperCase()} skat_sdk: ${message}`);
  };
  return {
    debug: (m) => line("debug", m),
    info: (m) => line("info", m),
    warn: (m) => line("warn", m),
  };
}

let current: Logger = consoleLogger((process.env.SKAT_LOG as LogLevel | undefined) ?? "info");

/** The SDK's logger (default: `consoleLogger`, level from `SKAT_LOG`, else `info`). */
export function logger(): Logger {
  return current;
}

/** Sends the SDK's log lines elsewhere (or silences them: `consoleLogger("off")`). */
export function setLogger(l: Logger): void {
  current = l;
}
