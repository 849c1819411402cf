// The operator's page (`#/operator`), with the admin token: who is online, tournaments
// (pause, resume, cancel), the accounts (register, rename, disable, enable, remove, rotate
// a token, set a quota or an owner contact) and the audit log. Every button is a call the
// CLI makes too (`skat admin ...`, `skat tournament ...`).
//
// | rule | why |
// |---|---|
// | the token is typed into the page and kept in session storage only (gone when the tab closes), never in the address or local storage | a shared machine keeps no admin token |
// | on plain HTTP beyond this machine the page refuses to send it and says why | a token in plain text is a token given away |
// | a refused token says which token and where it comes from (`skat serve --admin-token` or `SKAT_ADMIN_TOKEN`) | the operator knows what to type |
// | a new bot token (registration, rotation) is shown once, with a copy button, and never stored by the page | as the CLI prints it: once |
// | removing an account and rotating a token ask first | a click by mistake must cost nothing |
// | every change is a call the CLI makes too, so the audit log has it with the page's address | the page is no back door |
// | long values (digests, owner contacts) wrap inside their cell; digests are shown shortened with a copy button | nothing is cut at the edge |
import { Code, ConnectError } from "@connectrpc/connect";
import { api } from "./api";
import { h, link, table, when } from "./dom";
import { t } from "./i18n";
import { TournamentAction, TournamentFormat, TournamentStatus, type BotAccount, type TournamentSummary } from "./gen/skat/v1/skat_pb";

const KEY = "skat-admin-token";

/** A new bot token to show once, on the next drawing of the page (memory only). */
let tokenToShow: HTMLElement | null = null;

type Show = (title: string, ...content: (Node | string)[]) => void;

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

function errorText(e: unknown): string {
  return e instanceof ConnectError ? e.rawMessage : String(e);
}

/** A button with a `data-action`, running `run` on click; errors go to `#op-error`. */
function button(label: string, action: string, run: () => Promise<void>, attrs: Record<string, string> = {}): HTMLElement {
  const b = h("button", { type: "button", "data-action": action, ...attrs }, label);
  b.addEventListener("click", () => {
    run().catch((e) => {
      const box = document.getElementById("op-error");
      if (box) box.textContent = errorText(e);
    });
  });
  return b;
}

/** A value to copy whole: shown shortened when it is a long digest, with a copy button. */
export function copyable(value: string): HTMLElement {
  const short = /^[0-9a-f]{40,}$/i.test(value) ? `${value.slice(0, 12)}…` : value;
  const copy = h("button", { type: "button", class: "copy", "data-copy": value, "aria-label": t("op.copy") }, t("op.copy"));
  copy.addEventListener("click", () => void navigator.clipboard?.writeText(value).catch(() => undefined));
  return h("span", { class: "copyable", title: value }, h("code", {}, short), " ", copy);
}

/** An audit detail with every digest in it shortened and copyable. */
function detail(text: string): HTMLElement {
  const out = h("span", { class: "wrap" });
  for (const part of text.split(/([0-9a-f]{40,})/i)) {
    out.append(/^[0-9a-f]{40,}$/i.test(part) ? copyable(part) : document.createTextNode(part));
  }
  return out;
}

/** Draws the page into the app; `again` redraws it (after a change). */
export async function operatorView(show: Show, again: () => void) {
  const title = h("h1", {}, t("op.title"));
  const warning = safeOrigin() ? null : h("p", { class: "error", role: "alert", id: "insecure" }, t("op.insecure"));
  const token = sessionStorage.getItem(KEY);
  if (!token || !safeOrigin()) {
    if (!safeOrigin()) sessionStorage.removeItem(KEY);
    show(t("op.title"), title, ...(warning ? [warning] : []), h("p", { class: "muted" }, t("op.kept")),
      tokenForm(KEY, ["admin-token", "token-form"], [t("op.token"), t("op.whichToken")], again));
    return;
  }
  let data;
  try {
    data = await load(token);
  } catch (e) {
    if (e instanceof ConnectError && [Code.PermissionDenied, Code.Unauthenticated].includes(e.code)) {
      sessionStorage.removeItem(KEY);
      const retry = h("button", { type: "button", id: "try-again" }, t("op.tryAgain"));
      retry.addEventListener("click", again);
      show(t("op.title"), title, h("p", { class: "error", role: "alert", id: "refused" }, t("op.refused", { why: e.rawMessage })), retry);
      return;
    }
    throw e;
  }
  const signOut = button(t("op.signOut"), "sign-out", async () => { sessionStorage.removeItem(KEY); again(); }, { id: "sign-out" });
  const ops = new Operator(token, again);
  show(t("op.title"), title, h("p", {}, signOut), h("p", { id: "op-error", class: "error", role: "alert" }),
    h("h2", {}, t("op.online")), h("section", { id: "online" }, onlineTable(data.online.bots)),
    h("h2", {}, t("op.tournaments")), h("section", { id: "op-tournaments" }, ops.tournaments(data.tournaments.tournaments)),
    h("h2", {}, t("op.accounts")), h("section", { id: "accounts" }, ops.register(), ops.accounts(data.bots.bots)),
    h("h2", {}, t("op.audit")), h("section", { id: "audit" }, auditTable(data.log.entries)));
}

/** A form that takes a token into this tab's session storage (under `key`) and draws
 * the page again; refused off HTTPS beyond this machine. `ids`: the input's and the
 * form's; `words`: the label and the hint saying which token. */
export function tokenForm(key: string, ids: [string, string], words: [string, string], again: () => void): HTMLElement {
  const [inputId, formId] = ids;
  const input = h("input", { type: "password", id: inputId, autocomplete: "off", "aria-label": words[0] }) as HTMLInputElement;
  const form = h("form", { id: formId }, h("label", { for: inputId }, `${words[0]} `), input, " ",
    h("button", { type: "submit", disabled: !safeOrigin() }, t("op.signIn")), h("p", { class: "muted" }, words[1]));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (!safeOrigin() || !input.value.trim()) return;
    sessionStorage.setItem(key, input.value.trim());
    again();
  });
  return form;
}

async function load(token: string) {
  const [bots, online, tournaments, log] = await Promise.all([
    api.listBots({ pageSize: 500, includeRemoved: true }, auth(token)),
    api.listBots({ onlineOnly: true, pageSize: 500 }, auth(token)),
    api.listTournaments({ pageSize: 100 }),
    api.listAuditLog({ pageSize: 100 }, auth(token)),
  ]);
  return { bots, online, tournaments, log };
}

function onlineTable(bots: BotAccount[]): HTMLElement {
  if (!bots.length) return h("p", {}, t("op.nobodyOnline"));
  return table([t("col.bot"), t("op.owner"), [t("op.lobbies"), "num"], [t("op.tablesNow"), "num"]],
    bots.map((b) => [b.name, h("span", { class: "wrap" }, b.owner), b.lobbies, b.tablesNow]));
}

function auditTable(entries: { atMs: bigint; peer: string; action: string; target: string; detail: string }[]): HTMLElement {
  if (!entries.length) return h("p", {}, t("op.nothingYet"));
  return table([t("op.when"), t("op.from"), t("op.action"), t("op.target"), t("op.detail")],
    entries.map((e) => [when(e.atMs), e.peer, e.action, h("span", { class: "wrap" }, e.target), detail(e.detail)]));
}

/** The changes the page makes, each one call with the admin token. */
class Operator {
  constructor(private readonly token: string, private readonly again: () => void) {}

  private async update(name: string, change: Record<string, unknown>): Promise<string> {
    const r = await api.updateBot({ name, ...change }, auth(this.token));
    return r.botToken;
  }

  /** The registration form; a new account's token is shown once below it. */
  register(): HTMLElement {
    const name = h("input", { id: "new-name", required: true, maxlength: 32, autocomplete: "off" }) as HTMLInputElement;
    const owner = h("input", { id: "new-owner", maxlength: 128, autocomplete: "off" }) as HTMLInputElement;
    const shown = h("div", { id: "new-token", "aria-live": "polite" }, tokenToShow);
    tokenToShow = null;
    const form = h("form", { id: "register-form", class: "controls" },
      h("label", { for: "new-name" }, t("op.newName")), name, h("label", { for: "new-owner" }, t("op.owner")), owner,
      h("button", { type: "submit" }, t("op.register")));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      api.registerBot({ name: name.value, owner: owner.value }, auth(this.token))
        .then((r) => { tokenToShow = tokenOnce(t("op.registered", { name: r.name }), r.botToken); this.again(); })
        .catch((err) => shown.replaceChildren(h("p", { class: "error", role: "alert" }, errorText(err))));
    });
    return h("div", {}, form, shown);
  }

  accounts(bots: BotAccount[]): HTMLElement {
    const state = (b: BotAccount) => (b.removed ? t("op.removed") : b.disabled ? t("bot.disabled") : b.lobbies > 0 ? t("bot.online") : t("bot.offline"));
    return table([t("col.bot"), t("op.owner"), t("op.state"), [t("op.quota"), "num"], [t("col.rating"), "num"], t("op.lastSeen"), t("op.created"), t("op.former"), ""],
      bots.map((b) => [link(`#/bot/${encodeURIComponent(b.name)}`, b.name), h("span", { class: "wrap" }, b.owner), state(b), b.maxTables,
        b.rating ? b.rating.rating.toFixed(2) : "–", b.lastSeenMs ? when(b.lastSeenMs) : t("op.never"), when(b.createdMs),
        b.formerNames.join(", "), this.actions(b)]));
  }

  /** One account's buttons. */
  private actions(b: BotAccount): HTMLElement {
    const on = { "data-bot": b.name };
    const ask = (question: string) => async (run: () => Promise<void>) => { if (confirm(question)) await run(); };
    const redraw = async (change: Record<string, unknown>) => { await this.update(b.name, change); this.again(); };
    const rename = button(t("op.rename"), "rename", async () => {
      const to = prompt(t("op.renameTo", { name: b.name }), b.name);
      if (to && to !== b.name) await redraw({ rename: to });
    }, on);
    const quota = button(t("op.setQuota"), "quota", async () => {
      const n = Number(prompt(t("op.quotaTo", { name: b.name }), String(b.maxTables)));
      if (Number.isInteger(n) && n > 0) await redraw({ maxTables: n });
    }, on);
    const owner = button(t("op.setOwner"), "owner", async () => {
      const o = prompt(t("op.ownerTo", { name: b.name }), b.owner);
      if (o !== null) await redraw({ owner: o });
    }, on);
    const toggle = b.disabled || b.removed
      ? button(t("op.enable"), "enable", () => redraw({ disabled: false }), on)
      : button(t("op.disable"), "disable", () => redraw({ disabled: true }), on);
    const remove = b.removed ? "" : button(t("op.remove"), "remove", () => ask(t("op.removeAsk", { name: b.name }))(() => redraw({ remove: true })), on);
    const rotate = button(t("op.rotate"), "rotate", () => ask(t("op.rotateAsk", { name: b.name }))(async () => {
      const fresh = await this.update(b.name, { rotateToken: true });
      tokenToShow = tokenOnce(t("op.rotated", { name: b.name }), fresh);
      this.again();
    }), on);
    return h("span", { class: "controls" }, rename, toggle, remove, rotate, quota, owner);
  }

  tournaments(list: TournamentSummary[]): HTMLElement {
    return table([t("col.tournament"), t("col.format"), t("col.status"), t("col.start"), [t("col.played"), "num"], ""], list.map((x) => [
      link(`#/tournament/${encodeURIComponent(x.tournamentId)}`, x.name || x.tournamentId),
      t(`format.${(TournamentFormat[x.format] ?? "round_robin").toLowerCase()}` as "format.swiss"),
      h("span", { "data-status": statusName(x.status) }, t(`tstatus.${statusName(x.status)}` as "tstatus.running")),
      x.startMs ? when(x.startMs) : "–",
      `${x.finishedTables}/${Math.max(x.tablesInAll, x.tables)}${x.tablesAbandoned ? ` (${x.tablesAbandoned} ${t("status.abandoned")})` : ""}`,
      this.tournamentControls(x),
    ]));
  }

  private tournamentControls(x: TournamentSummary): Node | string {
    if (x.status === TournamentStatus.FINISHED || x.status === TournamentStatus.CANCELLED) return "";
    const on = { "data-tournament": x.tournamentId };
    const act = (action: TournamentAction, label: string, word: string) => button(word, label, async () => {
      if (action === TournamentAction.CANCEL && !confirm(t("op.cancelAsk", { name: x.name }))) return;
      await api.updateTournament({ tournamentId: x.tournamentId, action }, auth(this.token));
      this.again();
    }, on);
    const pauseOrResume = x.status === TournamentStatus.PAUSED
      ? act(TournamentAction.RESUME, "resume", t("op.resume"))
      : act(TournamentAction.PAUSE, "pause", t("op.pause"));
    return h("span", { class: "controls" }, pauseOrResume, act(TournamentAction.CANCEL, "cancel", t("op.cancel")));
  }
}

/** A bot token shown once, with a copy button and what to do with it. */
function tokenOnce(what: string, token: string): HTMLElement {
  return h("div", { class: "token-once", role: "status" }, h("p", {}, what), copyable(token), h("p", { class: "muted" }, t("op.tokenOnce")));
}
