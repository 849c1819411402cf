// The operator's page (`#/operator`): accounts, who is online, tournaments with cancel,
// pause and resume, and the audit log, with the admin token.
//
// | rule | why |
// |---|---|
// | the token is typed into the page and kept in session storage only (gone when the tab closes), never in the address or local storage | a shared machine keeps no admin token |
// | on plain HTTP beyond this machine the page refuses to send it and says why | a token in plain text is a token given away |
// | every change is a call the CLI makes too (UpdateTournament), so the audit log has it with the page's address | the page is no back door |
import { Code, ConnectError } from "@connectrpc/connect";
import { api } from "./api";
import { h, link, table, when } from "./dom";
import { TournamentAction, TournamentFormat, TournamentStatus, type TournamentSummary } from "./gen/skat/v1/skat_pb";

const KEY = "skat-admin-token";

/** Whether a token may be sent from here: HTTPS, or this machine. */
export function safeOrigin(): boolean {
  return location.protocol === "https:" || ["127.0.0.1", "localhost", "[::1]"].includes(location.hostname);
}

function auth(token: string) {
  return { headers: { authorization: `Bearer ${token}` } };
}

function statusName(s: number): string {
  return (TournamentStatus[s] ?? "unknown").toLowerCase();
}

/** Draws the page into `app`; `again` redraws it (after a change). */
export async function operatorView(show: (title: string, ...content: (Node | string)[]) => void, again: () => void) {
  const title = h("h1", {}, "Operator");
  const warning = safeOrigin()
    ? null
    : h("p", { class: "error", role: "alert", id: "insecure" },
      "This page is not on HTTPS: the admin token would travel in plain text, so it is not sent. Serve the page with --tls-cert (docs/deploy.md).");
  const token = sessionStorage.getItem(KEY);
  if (!token) {
    const input = h("input", { type: "password", id: "admin-token", autocomplete: "off", "aria-label": "Admin token" }) as HTMLInputElement;
    const form = h("form", { id: "token-form" }, h("label", { for: "admin-token" }, "Admin token "), input, " ", h("button", { type: "submit", disabled: !safeOrigin() }, "Sign in"));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      if (!safeOrigin() || !input.value.trim()) return;
      sessionStorage.setItem(KEY, input.value.trim());
      again();
    });
    show("Operator", title, ...(warning ? [warning] : []),
      h("p", { class: "muted" }, "The token is kept in this tab's session storage only, and sent only over HTTPS or to this machine."), form);
    return;
  }
  if (!safeOrigin()) {
    sessionStorage.removeItem(KEY);
    show("Operator", title, warning!);
    return;
  }
  const signOut = h("button", { type: "button", id: "sign-out" }, "Sign out");
  signOut.addEventListener("click", () => {
    sessionStorage.removeItem(KEY);
    again();
  });
  let bots, online, tournaments, log;
  try {
    [bots, online, tournaments, log] = await Promise.all([
      api.listBots({ pageSize: 500, includeRemoved: true }, auth(token)),
      api.listBots({ onlineOnly: true, pageSize: 500 }, auth(token)),
      api.listTournaments({ pageSize: 100 }),
      api.listAuditLog({ pageSize: 100 }, auth(token)),
    ]);
  } catch (e) {
    if (e instanceof ConnectError && [Code.PermissionDenied, Code.Unauthenticated].includes(e.code)) {
      sessionStorage.removeItem(KEY);
      const retry = h("button", { type: "button", id: "try-again" }, "Try again");
      retry.addEventListener("click", again);
      show("Operator", title, h("p", { class: "error", role: "alert", id: "refused" }, `The server refused the token: ${e.rawMessage}`), retry);
      return;
    }
    throw e;
  }
  const state = (b: { removed: boolean; disabled: boolean; lobbies: number }) =>
    b.removed ? "removed" : b.disabled ? "disabled" : b.lobbies > 0 ? "online" : "offline";
  const accounts = table(["bot", "owner", "state", ["lobbies", "num"], ["tables", "num"], ["rating", "num"], "last seen", "created", "former names"],
    bots.bots.map((b) => [link(`#/bot/${encodeURIComponent(b.name)}`, b.name), b.owner, state(b), b.lobbies, b.tablesNow,
      b.rating ? b.rating.rating.toFixed(2) : "–", b.lastSeenMs ? when(b.lastSeenMs) : "never", when(b.createdMs), b.formerNames.join(", ")]));
  const onlineTable = online.bots.length
    ? table(["bot", "owner", ["lobbies", "num"], ["tables", "num"]], online.bots.map((b) => [b.name, b.owner, b.lobbies, b.tablesNow]))
    : h("p", {}, "No bot is connected to this replica.");
  const act = (t: TournamentSummary, action: TournamentAction, label: string) => {
    const b = h("button", { type: "button", "data-action": label, "data-tournament": t.tournamentId }, label);
    b.addEventListener("click", async () => {
      if (action === TournamentAction.CANCEL && !confirm(`Cancel ${t.name}? Its unfinished tables are abandoned.`)) return;
      try {
        await api.updateTournament({ tournamentId: t.tournamentId, action }, auth(token));
        again();
      } catch (e) {
        alert(e instanceof ConnectError ? e.rawMessage : String(e));
      }
    });
    return b;
  };
  const controls = (t: TournamentSummary) => {
    const s = t.status;
    if (s === TournamentStatus.FINISHED || s === TournamentStatus.CANCELLED) return "";
    const pauseOrResume = s === TournamentStatus.PAUSED ? act(t, TournamentAction.RESUME, "resume") : act(t, TournamentAction.PAUSE, "pause");
    return h("span", { class: "controls" }, pauseOrResume, " ", act(t, TournamentAction.CANCEL, "cancel"));
  };
  const tournamentRows = table(["tournament", "format", "status", "start", ["played", "num"], "", ""], tournaments.tournaments.map((t) => [
    link(`#/tournament/${encodeURIComponent(t.tournamentId)}`, t.name || t.tournamentId),
    (TournamentFormat[t.format] ?? "").toLowerCase().replace("_", " "),
    h("span", { "data-status": statusName(t.status) }, statusName(t.status)),
    when(t.startMs),
    `${t.finishedTables}/${Math.max(t.tablesInAll, t.tables)}${t.tablesAbandoned ? ` (${t.tablesAbandoned} abandoned)` : ""}`,
    controls(t), "",
  ]));
  const audit = log.entries.length
    ? table(["when", "from", "action", "target", "detail"], log.entries.map((e) => [when(e.atMs), e.peer, e.action, e.target, e.detail]))
    : h("p", {}, "Nothing yet.");
  show("Operator", title, h("p", {}, signOut),
    h("h2", {}, "Online now"), h("section", { id: "online" }, onlineTable),
    h("h2", {}, "Tournaments"), h("section", { id: "op-tournaments" }, tournamentRows),
    h("h2", {}, "Accounts"), h("section", { id: "accounts" }, accounts),
    h("h2", {}, "Audit log"), h("section", { id: "audit" }, audit));
}
