// The spectator page: a hash router over six views. Every view reads the skat.v1 API as
// a spectator (no token), so it shows exactly what the rules let a spectator see.
//
// | route | view |
// |---|---|
// | `#/` | tables, live and finished, filterable |
// | `#/table/ID` | one table live: WatchTable is the doorbell, GetTable the state; at a seat this tab holds, the seat's view and decisions (seat.ts) |
// | `#/play` | a person sits down against bots (play.ts) |
// | `#/sit/TABLE/TOKEN` | a seat link the operator handed out: the seat is taken into this tab, the link leaves the history (play.ts) |
// | `#/tv` | follows a table being played, then the next |
// | `#/replay/ID/DEAL` | a finished deal (DEAL from 1, as everywhere), move by move, from its JSON record (replay.ts) |
// | `#/tournaments`, `#/tournament/ID` | tournaments, standings, head-to-head |
// | `#/leaderboard` | ratings |
// | `#/bot/NAME` | one bot: rating over time, recent lists |
// | `#/operator` | the operator's page, with the admin token (operator.ts) |
// | `#/my-bot` | a hosted bot's author: versions, sandboxes and their output, with the bot token (mybot.ts) |
import { Code, ConnectError } from "@connectrpc/connect";
import { api } from "./api";
import { operatorView } from "./operator";
import { myBotView } from "./mybot";
import { dealIndex, replayHref, replayView } from "./replay";
import { count, gameWords, lang, localizeStatic, t } from "./i18n";
import { verifyDeals } from "./verify";
import { playView, sitDown, sitView } from "./play";
import { LADDER, levelOf } from "./ladder";
import { authed, contractName, dropSeat, seatControls, seatOf as heldSeat, type SeatAuth } from "./seat";
import { positionName, ring, switches, tableKeys } from "./felt";
import { endSheet, keepSheet, keptSheet } from "./sheet";
import { cueTracker } from "./sound";
import { points } from "./value";
import { append, h, link, table, when } from "./dom";
import { cardSvg, sortHand } from "./cards";
import {
  Announcement, BidCall, GameType, Phase, Position, TableFilter, TableStatus, TournamentFormat, TournamentStatus,
  type DealEnded, type DealView, type Event as TableEvent, type TableView, type Tournament,
} from "./gen/skat/v1/skat_pb";

const app = document.getElementById("app") as HTMLElement;
/** What the browser test reads: latencies from an action to the page showing it (ms). */
const probe = { latencies: [] as number[], renders: 0 };
(window as unknown as { __skat: typeof probe }).__skat = probe;

let leave: (() => void) | undefined;

function draw(title: string, ...content: (Node | string)[]) {
  document.title = `${title} · Skat server`;
  app.replaceChildren(...content);
}

/** The route being shown, counted: a view that finishes loading after the reader went
 * elsewhere draws nothing and starts no timer, so a slow answer never covers the page
 * the reader asked for since. */
let routing = 0;

/** A `show` for the view starting now: it draws (and says true) only while its route is
 * still the one being shown. */
function guard(): (title: string, ...content: (Node | string)[]) => boolean {
  const mine = routing;
  return (title, ...content) => {
    if (mine !== routing) return false;
    draw(title, ...content);
    return true;
  };
}

/** The one timer of the view being shown: started once when the view is first drawn,
 * never again by its own refreshes, stopped when the view goes (or its route changed). A
 * tick waits for the one before it to answer, and a hidden tab does not tick: a page left
 * open a day asks as often as in its first minute. */
function every(ms: number, tick: () => Promise<unknown>) {
  const mine = routing;
  let busy = false;
  const timer = setInterval(() => {
    if (mine !== routing) { clearInterval(timer); return; }
    if (busy || document.visibilityState !== "visible") return;
    busy = true;
    void tick().catch(() => undefined).finally(() => { busy = false; });
  }, ms);
  const before = leave;
  leave = () => { clearInterval(timer); before?.(); };
}

function failed(e: unknown, show = guard()) {
  show(t("error.title"), h("h1", {}, t("error.title")), h("p", { class: "error", role: "alert" }, String((e as Error)?.message ?? e)));
}

async function route() {
  leave?.();
  leave = undefined;
  routing++;
  const show = guard();
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  try {
    switch (parts[0]) {
      case "":
      case "tables": return await tablesView(parts[1] ?? "all");
      case "table": return await liveView(parts[1]);
      case "play": return await playView(show);
      case "sit": return await sitView(show, parts[1], parts[2]);
      case "tv": return await tvView();
      case "replay": return await replayView(parts[1], dealIndex(parts[2]), show, (f) => { leave = f; });
      case "tournaments": return await tournamentsView(parts[1] === "casual");
      case "tournament": return await tournamentView(parts[1]);
      case "leaderboard": return await leaderboardView();
      case "bot": return await botView(parts[1]);
      case "operator": return await operatorView(show, () => void route());
      case "my-bot": return await myBotView(show, () => void route());
      default: show(t("notfound"), h("h1", {}, t("notfound")), link("#/", t("notfound.back")));
    }
  } catch (e) {
    failed(e, show);
  }
}
window.addEventListener("hashchange", () => void route());
localizeStatic(() => void route());
void route();

// ---- names ----------------------------------------------------------------------------

function gameName(game: number, hand: boolean, announcement: number): string {
  return gameWords(GameType[game] ?? "", hand, Announcement[announcement] ?? "");
}
function statusName(s: number): string {
  const key = `status.${(TableStatus[s] ?? "").toLowerCase()}`;
  return ["status.waiting", "status.playing", "status.finished", "status.abandoned"].includes(key) ? t(key as "status.waiting") : "";
}

// ---- tables ---------------------------------------------------------------------------

async function tablesView(filter: string) {
  if (await drawTables(filter)) every(3000, () => refreshTables(filter));
}

/** The tables, drawn (true) unless the reader went elsewhere meanwhile. */
async function drawTables(filter: string): Promise<boolean> {
  const show = guard();
  const filters: Record<string, TableFilter> = { all: TableFilter.UNSPECIFIED, live: TableFilter.LIVE, finished: TableFilter.FINISHED };
  const r = await api.listTables({ filter: filters[filter] ?? TableFilter.UNSPECIFIED, pageSize: 100 });
  const buttons = Object.keys(filters).map((f) =>
    h("a", { href: `#/tables/${f}`, "aria-current": f === filter ? "page" : undefined, class: "pill" }, t(`filter.${f}` as "filter.all")));
  const rows = r.tables.map((x) => [
    link(`#/table/${encodeURIComponent(x.tableId)}`, x.name || x.tableId),
    statusName(x.status),
    `${x.occupied}/${x.seats}`,
    `${x.dealsPlayed}/${x.deals}`,
    x.players.map((p, i) => (x.dealsPlayed > 0 && x.seegerFabian[i] !== undefined ? `${p} ${x.seegerFabian[i]}` : p)).join(" · "),
    x.dealsPlayed > 0 ? link(replayHref(x.tableId, 0), t("tables.replay")) : "",
  ]);
  const drawn = show(t("tables.title"),
    h("h1", {}, t("tables.title")),
    h("div", { class: "controls", role: "group", "aria-label": t("tables.filter") }, ...buttons),
    rows.length ? table([t("col.table"), t("col.status"), t("col.seats"), t("col.deals"), t("col.players"), ""], rows) : h("p", {}, t("tables.none")),
    r.nextPageToken ? h("p", { class: "muted" }, t("tables.newest")) : "");
  return drawn;
}

async function refreshTables(filter: string) {
  const scrollY = window.scrollY;
  const focused = document.activeElement?.getAttribute("href");
  if (!(await drawTables(filter))) return;
  window.scrollTo(0, scrollY);
  if (focused) (app.querySelector(`a[href="${CSS.escape(focused)}"]`) as HTMLElement | null)?.focus();
}

// ---- one table, live ------------------------------------------------------------------

/** `#/tv`: follows a table being played (the newest with every seat taken) and moves on
 * to the next a few seconds after it ends; with none, looks again every few seconds. */
async function tvView() {
  const show = guard();
  const here = routing;
  const r = await api.listTables({ filter: TableFilter.LIVE, pageSize: 100 });
  // The reader went elsewhere while the list came: no table is followed.
  if (here !== routing) return;
  const playing = r.tables.filter((t) => t.status === TableStatus.PLAYING)
    .sort((a, b) => Number(b.occupied === b.seats) - Number(a.occupied === a.seats) || Number(b.createdUnixMs - a.createdUnixMs));
  const again = () => { if (location.hash === "#/tv") void route(); };
  if (!playing.length) {
    if (!show(t("nav.tv"), h("h1", {}, t("nav.tv")), h("p", { id: "tv-idle" }, t("tv.idle")))) return;
    const timer = setTimeout(again, 5000);
    leave = () => clearTimeout(timer);
    return;
  }
  await liveView(playing[0].tableId, () => setTimeout(again, 5000));
}

/** One decision of this tab's seat: its buttons off until the table answers, a refusal
 * shown (a stale one, when the table moved on meanwhile, is not: the next view asks
 * again), then `after`. */
function seatActs(after: () => void): (send: () => Promise<unknown>) => void {
  return (send) => {
    for (const b of Array.from(app.querySelectorAll<HTMLButtonElement>("#my-seat button"))) b.disabled = true;
    send().catch((e: unknown) => {
      if (e instanceof ConnectError && e.code === Code.Aborted) return;
      const out = document.getElementById("my-error");
      if (out) out.textContent = e instanceof ConnectError ? e.rawMessage : String(e);
    }).finally(after);
  };
}

/** Follows a table's stream, again after a second when it breaks, until the table is
 * over, the reader left (`signal`), or it is lost before its first view. */
async function follow(tableId: string, options: () => object, signal: AbortSignal, on: {
  snapshot: (v: TableView) => void; event: (e: TableEvent) => void; over: () => boolean; lost: (e: unknown) => boolean;
}) {
  for (;;) {
    try {
      for await (const m of api.watchTable({ tableId }, options())) {
        if (m.kind.case === "snapshot") on.snapshot(m.kind.value);
        else if (m.kind.case === "event") on.event(m.kind.value);
      }
      if (on.over()) return;
    } catch (e) {
      if (signal.aborted || on.lost(e)) return;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** The latency from each event (its server time) to the render that shows it: kept for
 * the browser test and the benchmark; bounded for a page left open for days. */
function noteLatencies(waiting: { seq: number; at: number }[], seq: number) {
  const now = Date.now();
  while (waiting.length && waiting[0].seq <= seq) {
    const w = waiting.shift();
    if (w && probe.latencies.length < 100000) probe.latencies.push(now - w.at);
  }
  probe.renders++;
}

/** At the player's seat the table starts at the top of the window (the page's header
 * above it scrolled away), where it fits whole: a focused control then never scrolls the
 * trick out of view. Once per deal, when its end sheet goes and when a turn of the player
 * begins: between them a reader who scrolls down to the words stays there. */
let toppedFor = "";
function atTop() {
  const table = document.querySelector<HTMLElement>("#table.at-seat");
  const turn = table?.querySelector("#my-turn.your-turn") ? table.dataset.seq : "";
  const key = `${location.hash}/${table?.dataset.deal ?? ""}/${table?.querySelector(".sheet") ? "sheet" : ""}/${turn}`;
  if (!table || key === toppedFor) return;
  toppedFor = key;
  window.scrollTo(0, table.getBoundingClientRect().top + window.scrollY);
}

/** Focus after a redraw: the same control again, or when the control just used is gone
 * (the card was played), the seat's first enabled control, not the top of the page. */
function restoreFocus(focusedId: string | undefined) {
  if (focusedId && document.getElementById(focusedId)) document.getElementById(focusedId)?.focus();
  else if (focusedId && /^(card-|say-|declare-|hold$|pass$|pick-up$|play-hand$|discard$)/.test(focusedId)) {
    app.querySelector<HTMLButtonElement>("#my-seat button:not(:disabled)")?.focus();
  }
}

/** The clocks count down between events: seconds and the bar. */
function tickClocks() {
  for (const el of Array.from(app.querySelectorAll<HTMLElement>("[data-deadline]"))) {
    const left = Math.max(0, Number(el.dataset.deadline) - Date.now());
    el.textContent = `${(left / 1000).toFixed(0)} s`;
  }
  for (const el of Array.from(app.querySelectorAll<HTMLElement>("[data-deadline-bar]"))) {
    const left = Math.max(0, Number(el.dataset.deadlineBar) - Date.now());
    el.style.width = `${Math.min(100, (100 * left) / Math.max(1, Number(el.dataset.total)))}%`;
  }
}

async function liveView(tableId: string, onEnd?: () => void) {
  const show = guard();
  const abort = new AbortController();
  // A seat this tab holds here (play.ts): the seat's view and decisions, else a spectator's.
  let auth = heldSeat(tableId);
  const options = () => (auth ? authed(auth, abort.signal) : { signal: abort.signal });
  let view: TableView | undefined;
  let tournament: [string, string] | undefined;
  // The sheet of a deal the reader has not put away comes back after a reload.
  let lastEnded: DealEnded | undefined = keptSheet(tableId);
  let fetching = false;
  let again = false;
  const waiting: { seq: number; at: number }[] = [];
  let ticker: number | undefined;
  const cues = cueTracker();

  const refresh = async () => {
    if (fetching) { again = true; return; }
    fetching = true;
    try {
      do {
        again = false;
        const r = await api.getTable({ tableId }, options()).catch((e: unknown) => {
          // The token no longer holds a seat here: go on as a spectator.
          if (auth && e instanceof ConnectError && [Code.PermissionDenied, Code.Unauthenticated].includes(e.code)) {
            dropSeat(tableId);
            auth = undefined;
            return api.getTable({ tableId }, options());
          }
          throw e;
        });
        view = r.table;
        if (view?.tournamentId) tournament = [view.tournamentId, view.tournamentName];
        render();
      } while (again);
    } finally {
      fetching = false;
    }
  };

  const render = () => {
    // A reply that arrives after the reader left for another view draws nothing.
    if (!view || abort.signal.aborted) return;
    // A stream's snapshot does not say the tournament: GetTable did.
    if (!view.tournamentId && tournament) [view.tournamentId, view.tournamentName] = tournament;
    noteLatencies(waiting, Number(view.seq));
    const focusedId = document.activeElement?.id;
    cues(view, auth?.seat);
    show(view.name || tableId, tableDom(view, lastEnded, tableId, auth, act, render));
    atTop();
    if (onEnd) {
      app.prepend(h("p", { class: "pill", id: "tv" }, t("table.tv")));
      if (view.status === TableStatus.FINISHED || view.status === TableStatus.ABANDONED) { onEnd(); onEnd = undefined; }
    }
    restoreFocus(focusedId);
  };

  const act = seatActs(() => void refresh());

  show(t("col.table"), h("h1", {}, t("col.table")), h("p", {}, t("table.connecting")));
  void follow(tableId, options, abort.signal, {
    // While GetTable's answer is on its way it draws the table: one render, not two.
    snapshot: (v) => { view = v; if (!fetching) render(); },
    event: (e) => {
      if (e.kind.case === "dealEnded") { lastEnded = e.kind.value; keepSheet(tableId, lastEnded); }
      if (waiting.length < 10000) waiting.push({ seq: Number(e.seq), at: Number(e.timeUnixMs) });
      void refresh();
    },
    over: () => !!view && (view.status === TableStatus.FINISHED || view.status === TableStatus.ABANDONED),
    lost: (e) => { if (!view) { failed(e); return true; } return false; },
  });
  // GetTable also says what the stream's snapshot does not (the tournament): once at the
  // start, then after every event.
  void refresh().catch(() => render());
  // The clocks count down between events.
  ticker = window.setInterval(tickClocks, 500);
  const keys = tableKeys(render);
  leave = () => { abort.abort(); clearInterval(ticker); keys(); };
}

function tableDom(v: TableView, lastEnded: DealEnded | undefined, tableId: string, auth: SeatAuth | undefined,
  act: (send: () => Promise<unknown>) => void, redraw: () => void): HTMLElement {
  const d = v.deal;
  const dealNo = d ? d.number : -1;
  const names = v.seatInfo.map((s) => s.name || t("seat.open", { n: s.seat + 1 }));
  const nameAt = (p: Position) => { const s = d ? d.positionSeats[p - 1] : undefined; return s === undefined ? positionName(p) : names[s]; };
  const root = h("section", { id: "table", "data-deal": dealNo, "data-phase": d ? Phase[d.phase] : "NONE", "data-seq": Number(v.seq),
    "data-game": d?.contract?.game ? GameType[d.contract.game] : undefined, "aria-label": "Table" });
  append(root, [
    h("h1", {}, v.name || tableId),
    h("p", { class: "status", "data-status": TableStatus[v.status] }, `${statusName(v.status)} · ${t("table.deal", { n: Math.min(v.dealsPlayed + (d && !d.result ? 1 : 0), v.deals), total: v.deals })}`,
      v.tournamentId ? " · " : "", v.tournamentId ? link(`#/tournament/${encodeURIComponent(v.tournamentId)}`, v.tournamentName || v.tournamentId) : "",
      v.dealsPlayed > 0 ? " · " : "", v.dealsPlayed > 0 ? link(replayHref(tableId, v.dealsPlayed - 1), t("table.replayLast")) : ""),
  ]);
  // The sheet of the deal just ended comes first, until the reader goes on.
  const sheet = lastEnded ? endSheet(lastEnded, v, names, tableId, redraw) : "";
  root.append(sheet);
  const seated = auth && d && d.positionSeats.includes(auth.seat) ? auth.seat : undefined;
  const felt = h("div", { class: "felt" }, ring(v, names, seated));
  root.append(felt);
  if (auth && seated !== undefined && v.status === TableStatus.PLAYING) {
    // At the player's seat the hand lies right under the trick, so that both, the seat to
    // move, its clock and the decision are in one window; the words come after. While the
    // last deal's sheet is read, no decision is offered under it.
    root.classList.add("at-seat");
    if (!sheet) root.append(seatControls(v, auth, tableId, act));
    if (d) root.append(h("div", { class: "felt facts-box" }, dealFacts(d, nameAt), switches()));
  } else if (d) {
    append(felt, [dealFacts(d, nameAt), switches()]);
  }
  if (v.status === TableStatus.FINISHED && v.results.length) root.append(finalStandings(v, names, auth));
  if (v.results.length) root.append(...dealsTable(v, names, tableId));
  return root;
}

const signed = (n: number) => (n > 0 ? `+${n}` : String(n));

/** Every deal: the game, won or lost, the declarer's score, and each player's
 * Seeger-Fabian points of that deal; newest first. */
function dealsTable(v: TableView, names: string[], tableId: string): HTMLElement[] {
  const rows = v.results.map((r, i) => [
    link(replayHref(tableId, i), String(i + 1)),
    r.passedIn ? t("table.passedIn") : `${names[r.declarerSeat] ?? ""}: ${r.contract ? contractName(r.contract.game, r.contract.announcement, r.contract.hand) : r.gameCode}`,
    r.passedIn ? "" : r.won ? t("table.won") : t("table.lost"),
    r.score,
    ...v.seatInfo.map((s) => signed(r.seegerFabian[s.seat] ?? 0)),
  ]);
  const heads = [t("col.deal"), t("col.game"), "", [t("col.score"), "num"] as [string, string],
    ...v.seatInfo.map((s) => [`${names[s.seat]} (SF)`, "num"] as [string, string])];
  const deals = table(heads, rows.reverse());
  deals.id = "deals";
  return [h("h2", {}, t("table.dealsTitle")), deals];
}

/** The list is over: the final standings in Seeger-Fabian points (the deals table below
 * has each deal's), and for the person who made the table, the same opponents again. */
function finalStandings(v: TableView, names: string[], auth: SeatAuth | undefined): HTMLElement {
  const ranked = [...v.standings].sort((a, b) => b.seegerFabian - a.seegerFabian);
  const box = h("section", { id: "final-standings", class: "sheet", "aria-label": t("final.title") },
    h("h2", {}, t("final.title")),
    table([t("col.rank"), t("sheet.player"), [t("sheet.total"), "num"], [t("col.wonDeclared"), "num"]],
      ranked.map((s, i) => [i + 1, names[s.seat] ?? "", signed(s.seegerFabian), `${s.won}/${s.declared}`])));
  const again = auth?.again;
  if (again) {
    const error = h("p", { id: "again-error", role: "alert", class: "error" });
    const b = h("button", { type: "button", id: "play-again" }, t("final.again"));
    b.onclick = () => {
      b.setAttribute("disabled", "");
      sitDown(auth.name, again).catch((e: unknown) => {
        b.removeAttribute("disabled");
        error.textContent = e instanceof ConnectError ? e.rawMessage : String(e);
      });
    };
    box.append(h("p", {}, b), error);
  }
  return box;
}

/** What is known of the deal in words: the bidding, the game, the tricks taken, the card
 * points so far, an open hand, every trick played. */
function dealFacts(d: DealView, nameAt: (p: Position) => string): HTMLElement {
  const box = h("div", { class: "facts" });
  const call = (c: BidCall) => (c === BidCall.SAY ? t("call.say") : c === BidCall.HOLD ? t("call.hold") : c === BidCall.PASS ? t("call.pass") : "");
  const auction = d.auction.map((c) => `${nameAt(c.position)} ${call(c.call)}${c.value ? " " + c.value : ""}`);
  append(box, [h("div", { class: "auction" }, h("strong", {}, t("table.bidding")), auction.length ? auction.join(" · ") : t("table.notStarted"))]);
  if (d.contract && d.contract.game) {
    append(box, [h("div", {}, h("strong", {}, t("table.game")), t("table.plays", { who: nameAt(d.declarer), game: gameName(d.contract.game, d.contract.hand, d.contract.announcement), bid: d.bid }))]);
  } else if (d.bid) {
    append(box, [h("div", {}, t("table.highest", { bid: d.bid }))]);
  }
  if (d.openHand.length) append(box, [h("div", {}, h("strong", {}, t("table.openHand")), h("div", { class: "cards small", id: "open-hand" }, ...sortHand(d.openHand, d.contract?.game || undefined).map((c) => cardSvg(c, "open", d.number))))]);
  const taken = [1, 2, 3].map((p) => `${nameAt(p)} ${d.tricks.filter((x) => x.winner === p).length}`);
  append(box, [h("div", {}, h("strong", {}, t("table.taken")), taken.join(" · "))]);
  if (d.declarer && d.contract?.game) {
    // Card points in the tricks so far (the skat counts for the declarer at the end).
    const side = (mine: boolean) => d.tricks.filter((x) => (x.winner === d.declarer) === mine).reduce((sum, x) => sum + points(x.cards), 0);
    append(box, [h("div", { id: "card-points" }, h("strong", {}, t("table.points")),
      t("table.pointsLine", { who: nameAt(d.declarer), mine: side(true), theirs: side(false) }))]);
  }
  if (d.tricks.length) {
    const played = t("table.tricksPlayed", { n: d.tricks.length });
    const history = h("ol", { class: "tricks", id: "tricks", "aria-label": played }, ...d.tricks.map((x) =>
      h("li", {}, ...x.cards.map((c, i) => h("span", { class: "trick-card inline" }, cardSvg(c, "taken", d.number), nameAt(((x.leader - 1 + i) % 3) + 1))),
        ` → ${nameAt(x.winner)}`)));
    append(box, [h("details", {}, h("summary", {}, played), history)]);
  }
  return box;
}

// ---- tournaments, ratings, bots -------------------------------------------------------

async function tournamentsView(casual: boolean) {
  const show = guard();
  const r = await api.listTournaments({ pageSize: 100, includeCasual: casual });
  show(t("tournaments.title"), h("h1", {}, t("tournaments.title")),
    h("div", { class: "controls" }, casual ? link("#/tournaments", t("tournaments.hideCasual")) : link("#/tournaments/casual", t("tournaments.showCasual"))),
    r.tournaments.length ? table([t("col.tournament"), t("col.format"), t("col.status"), t("col.start"), t("col.played"), t("col.entrants")], r.tournaments.map((x) => [
      link(`#/tournament/${encodeURIComponent(x.tournamentId)}`, x.name || x.tournamentId),
      formatName(x.format),
      tournamentStatus(x.status),
      when(x.startMs || x.createdMs),
      `${x.finishedTables}/${Math.max(x.tablesInAll, x.tables)}${x.tablesAbandoned ? t("tournament.abandoned", { n: x.tablesAbandoned }) : ""}`,
      x.entrants.join(", "),
    ])) : h("p", {}, t("tournaments.none")));
}

/** A tournament's status in words (a server before the field: from `finished`). */
function tournamentStatus(s: TournamentStatus): string {
  return s === TournamentStatus.UNSPECIFIED ? "" : t(`tstatus.${(TournamentStatus[s] ?? "").toLowerCase()}` as "tstatus.running");
}

/** A tournament's format in words. */
function formatName(f: TournamentFormat): string {
  const key = (TournamentFormat[f] ?? "").toLowerCase();
  return key === "unspecified" ? t("format.round_robin") : t(`format.${key}` as "format.swiss");
}

async function tournamentView(id: string) {
  if ((await drawTournament(id)) === "running") every(5000, () => drawTournament(id));
}

/** A tournament, drawn ("running" or "over"), or nothing when the reader went elsewhere. */
async function drawTournament(id: string): Promise<"running" | "over" | undefined> {
  const show = guard();
  const x = (await api.getTournament({ tournamentId: id })).tournament!;
  const num = (k: Parameters<typeof t>[0]): [string, string] => [t(k), "num"];
  const standings = table([t("col.rank"), t("col.entrant"), num("col.lists"), num("col.sfTotal"), num("col.sfMean"), num("col.ci"), num("col.wonDeclared"), num("col.penalties")],
    x.standings.map((s, i) => [i + 1, link(`#/bot/${encodeURIComponent(s.name)}`, s.name), s.lists, Number(s.seegerFabian), s.mean.toFixed(1), s.ci95.toFixed(1), `${s.won}/${s.declared}`, s.penalties]));
  const meetings = table([t("col.round"), t("col.meeting"), t("tournament.tables")], x.meetings.map((m) => [
    m.round || "", m.entrants.map((n, i) => `${n} ${Number(m.seegerFabian[i] ?? 0)}`).join(" · "), `${m.finished}/${m.tables}`]));
  const tables = table([t("col.rank"), t("col.table"), t("col.seating"), t("col.status")], x.tables.map((y, i) => [
    i + 1, y.tableId ? link(`#/table/${encodeURIComponent(y.tableId)}`, y.tableId) : "", y.seating.join(", "), y.status]));
  const drawn = show(x.name || id, h("h1", {}, x.name || id),
    h("p", { id: "tournament-status" }, t("tournament.status", {
      format: formatName(x.format), seats: x.seats, round: x.rounds ? t("tournament.round", { n: x.round, total: x.rounds }) : "",
      status: tournamentStatus(x.status) || t(x.finished ? "tstatus.finished" : "tstatus.running"), start: when(x.startMs),
      played: x.tablesFinished, all: Math.max(x.tablesInAll, x.tables.length), abandoned: x.tablesAbandoned ? t("tournament.abandoned", { n: x.tablesAbandoned }) : "",
    })),
    h("h2", {}, t("tournament.standings")), standings, h("h2", {}, t("tournament.h2h")), meetings, h("h2", {}, t("tournament.tables")), tables,
    dealsCheck(x));
  if (!drawn) return undefined;
  return x.finished ? "over" : "running";
}

/** The deals' commitment, and once the tournament is over a button that checks the deals
 * played against it (verify.ts). */
function dealsCheck(x: Tournament): HTMLElement | string {
  if (!x.dealsCommitment) return "";
  const result = h("span", { id: "deals-verified", "aria-live": "polite" });
  const button = h("button", { id: "verify-deals", type: "button", disabled: !x.dealsSecret }, t("deals.verify"));
  button.onclick = () => {
    result.textContent = t("deals.checking");
    void verifyDeals(x).then((r) => { result.textContent = r.text; result.className = r.ok ? "" : "error"; },
      (e) => { result.textContent = String((e as Error)?.message ?? e); result.className = "error"; });
  };
  return h("section", { "aria-label": t("deals.title") }, h("h2", {}, t("deals.title")),
    h("p", {}, t("deals.committed"), h("code", {}, x.dealsCommitment), x.dealsSecret ? "" : t("deals.later")),
    h("div", { class: "controls" }, button, result));
}

async function leaderboardView() {
  const show = guard();
  const r = await api.getLeaderboard({ pageSize: 200 });
  show(t("leaderboard.title"), h("h1", {}, t("leaderboard.title")),
    h("p", { class: "muted" }, t("leaderboard.about")),
    h("p", { class: "muted" }, t("leaderboard.ladder", { first: LADDER[0], n: LADDER.length, last: LADDER[LADDER.length - 1] })),
    r.entries.length ? table([t("col.rank"), t("col.bot"), t("col.level"), [t("col.rating"), "num"], [t("col.pm"), "num"], [t("col.lists"), "num"]], r.entries.map((e, i) => [
      i + 1, link(`#/bot/${encodeURIComponent(e.name)}`, e.name), levelBadge(e.name), e.rating.toFixed(2), e.uncertainty.toFixed(2), e.lists])) : h("p", {}, t("leaderboard.none")));
}

/** A ladder level's mark (a house bot), or nothing. */
function levelBadge(name: string): Node | string {
  const l = levelOf(name);
  return l ? h("span", { class: "level", "data-level": String(l.level) }, t("level.badge", { n: l.level, s: l.strategy })) : "";
}

async function botView(name: string) {
  const show = guard();
  const b = (await api.getBot({ name })).bot!;
  const state = t(b.disabled ? "bot.disabled" : b.online ? "bot.online" : "bot.offline");
  const rated = b.rating ? t("bot.rated", { r: b.rating.rating.toFixed(2), u: b.rating.uncertainty.toFixed(2), n: b.rating.lists }) : t("bot.unrated");
  const level = levelOf(b.name);
  show(b.name, h("h1", {}, b.name),
    h("p", {}, `${state} · ${rated} · ${t("bot.tables", { n: b.maxTables })}`),
    level ? h("p", { id: "level" }, levelBadge(b.name), " ", t("level.about")) : "",
    h("h2", {}, t("bot.history")), ratingChart(b.history.map((p) => [p.rating, p.uncertainty, Number(p.atMs)])),
    h("h2", {}, t("bot.recent")),
    b.recent.length ? table([t("col.table"), t("col.tournament"), t("col.seatingSf")], b.recent.map((l) => [
      link(`#/table/${encodeURIComponent(l.tableId)}`, l.tableId), link(`#/tournament/${encodeURIComponent(l.tournamentId)}`, l.tournamentName || l.tournamentId),
      l.seating.map((n, i) => `${n} ${Number(l.seegerFabian[i] ?? 0)}`).join(" · ")])) : h("p", {}, t("bot.noLists")));
}

/** Rating (line) with its uncertainty (band), one point per rated list, placed by the
 * time it was rated (the axis below gives the first, middle and last dates). */
function ratingChart(points: [number, number, number][]): Element {
  if (points.length === 0) return h("p", {}, t("chart.none"));
  const W = 700, H = 220, P = 30;
  const lo = Math.min(...points.map(([r, u]) => r - u)), hi = Math.max(...points.map(([r, u]) => r + u));
  const t0 = points[0][2], t1 = points[points.length - 1][2];
  const x = (i: number) => P + (t1 > t0 ? ((points[i][2] - t0) * (W - 2 * P)) / (t1 - t0) : points.length === 1 ? 0 : (i * (W - 2 * P)) / (points.length - 1));
  const y = (v: number) => H - P - ((v - lo) * (H - 2 * P)) / Math.max(1e-9, hi - lo);
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("class", "chart");
  svg.setAttribute("role", "img");
  const last = points[points.length - 1];
  svg.setAttribute("aria-label", `Rating over ${points.length} lists, from ${points[0][0].toFixed(1)} to ${last[0].toFixed(1)}`);
  const band = document.createElementNS(ns, "path");
  const upper = points.map(([r, u], i) => `${x(i)},${y(r + u)}`);
  const lower = points.map(([r, u], i) => `${x(i)},${y(r - u)}`).reverse();
  band.setAttribute("d", `M${upper.join("L")}L${lower.join("L")}Z`);
  band.setAttribute("fill", "#0b5cad33");
  const line = document.createElementNS(ns, "polyline");
  line.setAttribute("points", points.map(([r], i) => `${x(i)},${y(r)}`).join(" "));
  line.setAttribute("fill", "none");
  line.setAttribute("stroke", "#0b5cad");
  line.setAttribute("stroke-width", "2");
  const label = (text: string, ly: number) => {
    const t = document.createElementNS(ns, "text");
    t.setAttribute("x", "2"); t.setAttribute("y", String(ly)); t.setAttribute("font-size", "11"); t.setAttribute("fill", "#5b6560");
    t.textContent = text;
    return t;
  };
  svg.append(band, line, label(hi.toFixed(1), P - 8), label(lo.toFixed(1), H - 8));
  // The time axis: dates (times, within one day) at its start, middle and end.
  const day = t1 - t0 < 86_400_000;
  const when = (ms: number) => new Date(ms).toLocaleString(lang(), day ? { hour: "2-digit", minute: "2-digit" } : { month: "short", day: "numeric" });
  for (const [at, anchor, tx] of [[t0, "start", P], [(t0 + t1) / 2, "middle", W / 2], [t1, "end", W - P]] as [number, string, number][]) {
    if (points.length === 1 && anchor !== "start") continue;
    const t = label(when(at), H - 2);
    t.setAttribute("x", String(tx));
    t.setAttribute("text-anchor", anchor);
    t.setAttribute("class", "axis");
    svg.append(t);
  }
  return svg;
}
