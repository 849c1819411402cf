// `#/replay/ID/DEAL`: a finished deal move by move from its JSON record, with the skat
// and the discard (the record is read only once the deal has ended), moves in words and
// cards, the tricks played, the card points and score at the end, the analysis beside
// (analysis.ts). Deals are numbered from 1 here as in the title, the table's deal list
// and the text tools.
import { api } from "./api";
import { follow, markOf, panel, type Analysis } from "./analysis";
import { cardFromCode, cardName, cardSvg, sortHand } from "./cards";
import { h, link } from "./dom";
import { RecordFormat } from "./gen/skat/v1/skat_pb";
import { count, gameWords, t } from "./i18n";

interface RecordMove { position: string; action: string; value?: number; card?: string; cards?: string[]; contract?: { game: string; announcement?: string } }
interface DealRecord {
  number: number; seats: number[]; dealt: { hands: string[][]; skat: string[] }; moves: RecordMove[];
  outcome: { kind?: string; won?: boolean; value?: number; declarer_points?: number; declarer?: string; score?: number };
  comments?: { move: number; seat: number; text: string }[];
}

const POSITIONS = ["Forehand", "Middlehand", "Rearhand"];

/** The page's link to deal `index` (from 0) of a table: numbered from 1. */
export function replayHref(tableId: string, index: number): string {
  return `#/replay/${encodeURIComponent(tableId)}/${index + 1}`;
}

/** The deal index (from 0) a replay link names (from 1). */
export function dealIndex(part: string | undefined): number {
  const n = Number(part ?? 1);
  return Number.isInteger(n) && n >= 1 ? n - 1 : 0;
}

const codeName = (code?: string) => (code ? cardName(cardFromCode(code)) : "");

/** A declaration in words: "grand schneider announced", "Kreuz". */
function declared(c?: { game: string; announcement?: string }): string {
  return c ? gameWords(c.game, false, c.announcement ?? "") : "";
}

/** A move in words: "Ada says 18", "Bo plays the Kreuz Bube". */
function moveWords(m: RecordMove, who: (p: string) => string): string {
  switch (m.action) {
    case "bid": return t("replay.says", { who: who(m.position), value: m.value ?? "" });
    case "hold": return t("replay.holds", { who: who(m.position) });
    case "pass": return t("replay.passes", { who: who(m.position) });
    case "pick_up_skat": return t("replay.picksUp", { who: who(m.position) });
    case "play_hand": return t("replay.playsHand", { who: who(m.position) });
    case "discard": return t("replay.discards", { who: who(m.position), cards: (m.cards ?? []).map(codeName).join(t("play.and")) });
    case "declare": return t("replay.declares", { who: who(m.position), game: declared(m.contract) });
    case "play": return t("replay.playsCard", { who: who(m.position), card: codeName(m.card) });
    default: return `${who(m.position)} ${m.action.replace(/_/g, " ")}`;
  }
}

/** The hands, the trick on the table and the tricks played after the first `upto` moves. */
function stateAt(rec: DealRecord, upto: number) {
  const pos = (p: string) => POSITIONS.indexOf(p);
  const hands = rec.dealt.hands.map((x) => [...x]);
  let trick: { card: string; p: string }[] = [];
  const done: string[][] = [];
  for (const m of rec.moves.slice(0, upto)) {
    const i = pos(m.position);
    if (m.action === "pick_up_skat") hands[i].push(...rec.dealt.skat);
    if (m.action === "discard") for (const c of m.cards ?? []) hands[i].splice(hands[i].indexOf(c), 1);
    if (m.action === "play" && m.card) {
      if (trick.length === 3) { done.push(trick.map((x) => x.card)); trick = []; }
      hands[i].splice(hands[i].indexOf(m.card), 1);
      trick.push({ card: m.card, p: m.position });
    }
  }
  // A trick of three cards is played, even before the next card is.
  return { hands, trick, played: done.length + (trick.length === 3 ? 1 : 0) };
}

/** How the deal ended, in words. */
function resultWords(rec: DealRecord, who: (p: string) => string): string {
  const o = rec.outcome;
  if (o.kind === "passed_in") return t("replay.passedIn");
  if (o.kind !== "game") return t("replay.penalty");
  return t("replay.result", { who: who(o.declarer ?? ""), outcome: t(o.won ? "table.won" : "table.lost"), points: o.declarer_points ?? 0, value: o.value ?? 0 });
}

export async function replayView(
  tableId: string,
  deal: number,
  show: (title: string, ...content: (Node | string)[]) => void,
  setLeave: (f: () => void) => void,
) {
  const [records, got] = await Promise.all([api.getRecords({ tableId, format: RecordFormat.JSON }), api.getTable({ tableId })]);
  const names = got.table?.seatInfo.map((s) => s.name) ?? [];
  const list: DealRecord[] = records.records.map((r) => JSON.parse(r));
  const rec = list[deal];
  const tableLink = link(`#/table/${encodeURIComponent(tableId)}`, got.table?.name || tableId);
  if (!rec) {
    show(t("replay.title", { n: deal + 1 }), h("h1", {}, t("replay.title", { n: deal + 1 })), h("p", {}, t("replay.notEnded", { n: deal + 1 })), link(`#/table/${encodeURIComponent(tableId)}`, t("replay.toTable")));
    return;
  }
  let step = 0;
  let analysis: Analysis | undefined;
  const cardMoves = rec.moves.flatMap((m, i) => (m.action === "play" ? [i] : []));
  const pos = (p: string) => POSITIONS.indexOf(p);
  const who = (p: string) => names[rec.seats[pos(p)]] ?? p;
  const discard = rec.moves.find((m) => m.action === "discard")?.cards ?? [];
  const describe = (m: RecordMove) => moveWords(m, who);
  const state = (upto: number) => stateAt(rec, upto);
  const cards = (codes: string[], where: string) =>
    h("span", { class: "cards small" }, ...codes.map((c) => cardSvg(cardFromCode(c), where, rec.number)));
  const result = () => resultWords(rec, who);
  const render = () => {
    const s = state(step);
    const moves = h("ol", { class: "moves", "aria-label": "Moves" },
      ...rec.moves.map((m, i) => {
        // A player's comment on the move: hidden by the server while the deal was in play.
        const note = (rec.comments ?? []).find((c) => c.move === i);
        const judged = analysis?.state === "ready" ? analysis.deals[deal]?.cards?.find((c) => c.move === i) : undefined;
        return h("li", { "aria-current": i === step - 1 ? "step" : undefined }, describe(m), " ", markOf(judged),
          note ? h("q", { class: "comment", "data-move": i }, note.text) : "");
      }));
    const hands = h("div", { class: "hands" }, ...s.hands.map((held, i) =>
      h("div", {}, h("div", {}, `${names[rec.seats[i]] ?? ""} (${t(POSITIONS[i].toLowerCase() as "forehand")})`),
        h("div", { class: "cards small" }, ...sortHand(held.map(cardFromCode)).map((c) => cardSvg(c, "replay", rec.number))))));
    const trick = h("div", { class: "cards", id: "replay-trick", "aria-live": "polite" },
      ...s.trick.map((x) => h("div", { class: "trick-card" }, cardSvg(cardFromCode(x.card), "replay", rec.number), who(x.p))));
    show(t("replay.title", { n: deal + 1 }),
      h("h1", {}, t("replay.heading", { n: deal + 1 }), tableLink),
      h("div", { class: "controls", role: "group", "aria-label": t("replay.moves") },
        h("button", { id: "first", type: "button" }, t("replay.start")),
        h("button", { id: "prev", type: "button", "aria-keyshortcuts": "ArrowLeft" }, t("replay.back")),
        h("button", { id: "next", type: "button", "aria-keyshortcuts": "ArrowRight" }, t("replay.forward")),
        h("button", { id: "last", type: "button" }, t("replay.end")),
        h("span", { id: "step", "aria-live": "polite", "data-step": step }, t("replay.step", { n: step, total: rec.moves.length })),
        deal > 0 ? link(replayHref(tableId, deal - 1), t("replay.prev")) : "",
        deal + 1 < list.length ? link(replayHref(tableId, deal + 1), t("replay.next")) : ""),
      h("p", { id: "replay-skat" }, h("strong", {}, t("table.skat")), cards(rec.dealt.skat, "replay"),
        discard.length ? h("strong", {}, t("replay.putAway")) : "", discard.length ? cards(discard, "replay") : ""),
      h("h2", {}, t("replay.trick")), trick,
      h("h2", {}, t("replay.hands", { n: s.played, tricks: count(s.played, "one.trick") })), hands,
      h("h2", {}, t("replay.moves")), moves,
      panel(analysis, deal, cardMoves, cardMoves.filter((i) => i < step).length, [0, 1, 2].map((i) => names[rec.seats[i]] ?? "")),
      step === rec.moves.length ? h("p", { id: "outcome" }, result()) : "");
    const go = (n: number) => { step = Math.max(0, Math.min(rec.moves.length, n)); render(); document.getElementById("step")?.focus(); };
    document.getElementById("first")!.onclick = () => go(0);
    document.getElementById("prev")!.onclick = () => go(step - 1);
    document.getElementById("next")!.onclick = () => go(step + 1);
    document.getElementById("last")!.onclick = () => go(rec.moves.length);
    keys = (e: KeyboardEvent) => {
      if (e.key === "ArrowRight") go(step + 1);
      if (e.key === "ArrowLeft") go(step - 1);
    };
  };
  let keys = (_: KeyboardEvent) => {};
  const onKey = (e: KeyboardEvent) => keys(e);
  window.addEventListener("keydown", onKey);
  const stopAsking = follow(tableId, (a) => { analysis = a; render(); });
  setLeave(() => { window.removeEventListener("keydown", onKey); stopAsking(); });
  render();
}
