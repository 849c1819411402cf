// The end of a deal as a sheet: the result in words (who played what, won or lost, the
// game's value and how it is made up, the score), the card points of both sides counted
// from the tricks with the skat for the declarer (they add up to 120), the deal's
// Seeger-Fabian points beside the list's running totals (kept apart from card points),
// and every hand and the skat, sorted for the game. It stays until the reader goes on,
// so the next deal begins at the reader's pace on the page.
import { api } from "./api";
import { cardFromCode, cardSvg, sortHand } from "./cards";
import { h, link, table } from "./dom";
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { Announcement, DealEndedSchema, GameType, RecordFormat, TableStatus, type DealEnded, type DealResult, type TableView } from "./gen/skat/v1/skat_pb";
import { gameWords, t } from "./i18n";
import { positionName } from "./felt";
import { replayHref } from "./replay";
import { points, trickWinner } from "./value";

interface Move { position: string; action: string; card?: string; cards?: string[]; contract?: { game: string; announcement?: string } }
interface Record { number: number; moves: Move[]; dealt: { skat: string[] } }

const POSITIONS = ["Forehand", "Middlehand", "Rearhand"];
const GAMES: { [k: string]: GameType } = {
  diamonds: GameType.DIAMONDS, hearts: GameType.HEARTS, spades: GameType.SPADES, clubs: GameType.CLUBS, grand: GameType.GRAND, null: GameType.NULL,
};

/** Card points per side, counted from a deal's record: `undefined` when the deal did not
 * go to its last trick (a claim, a resignation, a forfeit: the server's count stands). */
export function countedPoints(rec: Record): { declarer: number; defenders: number; declarerTricks: number } | undefined {
  const declare = rec.moves.find((m) => m.action === "declare");
  if (!declare?.contract) return undefined;
  const game = GAMES[declare.contract.game] ?? GameType.GRAND;
  const declarer = POSITIONS.indexOf(declare.position);
  const plays = rec.moves.filter((m) => m.action === "play");
  if (plays.length !== 30) return undefined;
  // The skat counts for the declarer: the two cards put away, or the skat of a hand game.
  const skat = rec.moves.find((m) => m.action === "discard")?.cards ?? rec.dealt.skat;
  let mine = points(skat.map(cardFromCode));
  let theirs = 0;
  let tricks = 0;
  for (let i = 0; i < 30; i += 3) {
    const trick = plays.slice(i, i + 3);
    const cards = trick.map((m) => cardFromCode(m.card ?? ""));
    const winner = POSITIONS.indexOf(trick[trickWinner(cards, game)].position);
    if (winner === declarer) { mine += points(cards); tricks++; } else theirs += points(cards);
  }
  return { declarer: mine, defenders: theirs, declarerTricks: tricks };
}

/** Records already read, by table and deal (a deal's record never changes). */
const records = new Map<string, Record>();

/** The deal whose sheet the reader has put away (per table). */
const dismissed = new Map<string, number>();

/** The sheet not yet put away is kept in the tab's session storage, so that a reload
 * brings it back (the stream after a reload starts with the table as it is now). */
const KEPT = "skat.sheet.";

export function keepSheet(tableId: string, e: DealEnded) {
  try {
    sessionStorage.setItem(KEPT + tableId, btoa(String.fromCharCode(...toBinary(DealEndedSchema, e))));
  } catch { /* storage full or off: the sheet lives until a reload */ }
}

/** The sheet kept for `tableId` that the reader has not put away, if any. */
export function keptSheet(tableId: string): DealEnded | undefined {
  const kept = sessionStorage.getItem(KEPT + tableId);
  if (!kept) return undefined;
  try {
    return fromBinary(DealEndedSchema, Uint8Array.from(atob(kept), (c) => c.charCodeAt(0)));
  } catch {
    sessionStorage.removeItem(KEPT + tableId);
    return undefined;
  }
}

/** The sheet of the deal `e` ended; `redraw` draws the table again (the record arrived,
 * or the reader went on). */
export function endSheet(e: DealEnded, v: TableView, names: string[], tableId: string, redraw: () => void): HTMLElement | "" {
  if (dismissed.get(tableId) === e.deal) return "";
  const r = e.result;
  const key = `${tableId}/${e.deal}`;
  const rec = records.get(key);
  if (!rec && r && !r.passedIn) {
    void api.getRecords({ tableId, format: RecordFormat.JSON }).then((got) => {
      const parsed: Record[] = got.records.map((x) => JSON.parse(x));
      if (parsed[e.deal]) { records.set(key, parsed[e.deal]); redraw(); }
    }).catch(() => undefined);
  }
  const declarer = r ? names[r.declarerSeat] ?? "" : "";
  const game = r?.contract ? gameWords(GameType[r.contract.game] ?? "", r.contract.hand, "") : r?.gameCode ?? "";
  const sheet = h("section", { id: "end-sheet", class: "sheet", "aria-label": t("sheet.title", { n: e.deal + 1 }) },
    h("h2", {}, t("sheet.title", { n: e.deal + 1 }), " ", link(replayHref(tableId, e.deal), t("table.replayIt"))));
  if (!r || r.passedIn) {
    sheet.append(h("p", { id: "sheet-result" }, t("table.passedIn")));
  } else {
    const base = r.multiplier ? Math.round(r.value / r.multiplier) : r.value;
    sheet.append(
      h("p", { id: "sheet-result", class: r.won ? "won" : "lost" },
        t(r.won ? "sheet.won" : "sheet.lost", { who: declarer, game, bid: r.bid }),
        r.overbid ? ` ${t("sheet.overbid")}` : ""),
      h("p", { id: "sheet-value" }, r.contract?.game === GameType.NULL
        ? t("sheet.valueNull", { value: r.value, score: signed(r.score) })
        : t("sheet.value", { base, mult: r.multiplier, value: r.value, score: signed(r.score), levels: levels(r) })),
      pointsLine(r.declarerPoints, declarer, rec));
    if (rec) sheet.append(...playedOut(rec, e, names));
  }
  // The deal's Seeger-Fabian points and the list's totals: a score, not card points.
  const sf = r?.seegerFabian ?? [];
  sheet.append(h("h3", {}, t("sheet.list")), table([t("sheet.player"), [t("sheet.thisDeal"), "num"], [t("sheet.total"), "num"]],
    v.seatInfo.map((s) => [names[s.seat] ?? "", signed(sf[s.seat] ?? 0), String(v.standings.find((x) => x.seat === s.seat)?.seegerFabian ?? 0)])));
  sheet.append(hands(e, names));
  const grace = Number(v.timeControl?.betweenDealsMs ?? 0n);
  if (grace && v.status !== TableStatus.FINISHED) sheet.append(h("p", { id: "sheet-grace", class: "muted" }, t("sheet.grace", { s: Math.round(grace / 1000) })));
  const go = h("button", { type: "button", id: "sheet-continue" }, t("sheet.continue"));
  go.onclick = () => { dismissed.set(tableId, e.deal); sessionStorage.removeItem(KEPT + tableId); redraw(); };
  sheet.append(h("p", {}, go));
  return sheet;
}

const signed = (n: number) => (n > 0 ? `+${n}` : String(n));

/** What the multiplier is made of, each level named (with or without the matadors, game,
 * hand, schneider, schwarz, announced, open); the bare count when the named levels do not
 * add up to it (an overbid lost game is valued at the bid). */
function levels(r: DealResult): string {
  const a = r.contract?.announcement ?? Announcement.UNSPECIFIED;
  const named: [boolean, Parameters<typeof t>[0]][] = [
    [true, "level.game"], [!!r.contract?.hand, "level.hand"],
    [r.schneider || a >= Announcement.SCHNEIDER, "level.schneider"], [a >= Announcement.SCHNEIDER, "level.schneiderAnnounced"],
    [r.schwarz || a >= Announcement.SCHWARZ, "level.schwarz"], [a >= Announcement.SCHWARZ, "level.schwarzAnnounced"],
    [a === Announcement.OUVERT, "level.ouvert"]];
  const on = named.filter(([yes]) => yes).map(([, k]) => t(k));
  const m = Math.abs(r.matadors);
  const matadors = `${t(r.matadors >= 0 ? "sheet.with" : "sheet.without")} ${m}`;
  return m + on.length === r.multiplier ? [matadors, ...on].join(", ") : `${matadors}, ${t("level.each")}`;
}

/** The two cards put away (or the skat of a hand game) and the last trick, with who took it:
 * the end of the deal as it was played, before the sheet. */
function playedOut(rec: Record, e: DealEnded, names: string[]): HTMLElement[] {
  const out: HTMLElement[] = [];
  const nameOf = (position: string) => names[e.positionSeats[POSITIONS.indexOf(position)]] ?? position;
  const away = rec.moves.find((m) => m.action === "discard")?.cards;
  const skat = away ?? rec.dealt.skat;
  out.push(h("p", { id: "sheet-put-away" }, `${t(away ? "sheet.putAway" : "sheet.skatHand")} `,
    h("span", { class: "cards small inline" }, ...skat.map((c) => cardSvg(cardFromCode(c), "dealt", e.deal)))));
  const plays = rec.moves.filter((m) => m.action === "play");
  if (plays.length === 30) {
    const last = plays.slice(27);
    const game = GAMES[rec.moves.find((m) => m.action === "declare")?.contract?.game ?? ""] ?? GameType.GRAND;
    const winner = last[trickWinner(last.map((m) => cardFromCode(m.card ?? "")), game)];
    out.push(h("p", { id: "sheet-last-trick" }, `${t("sheet.lastTrick")} `,
      ...last.map((m) => h("span", { class: "trick-card inline" }, cardSvg(cardFromCode(m.card ?? ""), "dealt", e.deal), nameOf(m.position))),
      ` ${t("table.tookIt", { who: nameOf(winner.position) })}`));
  }
  return out;
}

function pointsLine(serverPoints: number, declarer: string, rec: Record | undefined): HTMLElement {
  const counted = rec ? countedPoints(rec) : undefined;
  if (!counted) {
    return h("p", { id: "sheet-points", "data-declarer": serverPoints, "data-defenders": 120 - serverPoints },
      t("sheet.pointsServer", { who: declarer, mine: serverPoints, theirs: 120 - serverPoints }));
  }
  return h("p", { id: "sheet-points", "data-declarer": counted.declarer, "data-defenders": counted.defenders, "data-server": serverPoints },
    t("sheet.points", { who: declarer, mine: counted.declarer, theirs: counted.defenders, tricks: counted.declarerTricks }));
}

function hands(e: DealEnded, names: string[]): HTMLElement {
  const dealt = e.dealt;
  const game = e.result?.contract?.game || undefined;
  const grid = h("div", { class: "hands" });
  if (!dealt) return grid;
  [dealt.forehand, dealt.middlehand, dealt.rearhand].forEach((cards, i) => {
    grid.append(h("div", {}, h("div", {}, `${names[e.positionSeats[i]] ?? positionName(i + 1)} (${positionName(i + 1)})`),
      h("div", { class: "cards small" }, ...sortHand(cards, game).map((c) => cardSvg(c, "dealt", e.deal)))));
  });
  grid.append(h("div", {}, h("div", {}, t("dealt.skat")), h("div", { class: "cards small" }, ...dealt.skat.map((c) => cardSvg(c, "dealt", e.deal)))));
  return grid;
}
