// A finished table's analysis on the replay (AnalyzeTable; the same JSON as `skat
// analyze`, docs/analysis.md): marks beside the moves, the declarer's curve with the
// current move, and each player's accuracy over the table. The server computes it on
// demand: while it is queued or running the page asks again every two seconds.
import { api } from "./api";
import { h, table } from "./dom";
import { AnalysisState } from "./gen/skat/v1/skat_pb";
import { cardFromCode, cardName } from "./cards";
import { gameWords, t } from "./i18n";

/** One judged card of a deal (the fields the page shows). */
export interface CardVerdict {
  move: number; player: string; role: string; card: string; best: string;
  value: number; best_value: number; loss: number; flips: boolean; mark: string;
  known: { worlds: number; best: string; mean: number; best_mean: number; loss: number; interval: [number, number]; win: number; win_best: number } | null;
}
/** An option of the declarer's, judged by simulation (crates/skat-bots/src/judge_game.rs). */
interface Option { game: string; hand: boolean; open: boolean; value: number; chance: number; expected: number; worlds: number }
/** The bidding and the game choice judged. */
export interface GameChoice {
  bids: { player: string; bid: number; worth: number; overbid: boolean }[];
  declaration: { made: Option; best: Option; loss: number; interval: [number, number]; marked: boolean } | null;
}
export interface DealAnalysis { analysed: boolean; game?: string; declarer?: string; start?: number; curve?: number[]; cards?: CardVerdict[]; game_choice?: GameChoice }
interface Tally { decisions: number; mean_loss: number | null; known_mean_loss: number | null; mistakes: number; blunders: number; flips: number }

/** Where the analysis stands for the page. */
export type Analysis =
  | { state: "waiting"; text: string }
  | { state: "ready"; deals: DealAnalysis[]; summary: Record<string, { declarer: Tally; defender: Tally }>; worlds: number }
  | { state: "unavailable"; text: string };

/** Asks for `tableId`'s analysis until it is ready or refused; `update` gets every change.
 * Returns the function that stops asking. */
export function follow(tableId: string, update: (a: Analysis) => void): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const ask = async () => {
    try {
      const r = await api.analyzeTable({ tableId });
      if (stopped) return;
      if (r.state === AnalysisState.READY) {
        update({
          state: "ready",
          deals: r.deals.map((d) => JSON.parse(d) as DealAnalysis),
          summary: JSON.parse(r.summary).summary ?? {},
          worlds: r.worlds,
        });
        return;
      }
      update({ state: "waiting", text: r.state === AnalysisState.QUEUED ? t("an.queued", { n: r.ahead }) : t("an.running") });
      timer = setTimeout(() => void ask(), 2000);
    } catch (e) {
      if (!stopped) update({ state: "unavailable", text: t("an.none", { why: String((e as Error)?.message ?? e) }) });
    }
  };
  void ask();
  return () => { stopped = true; clearTimeout(timer); };
}

/** The mark beside move `i`: `??` blunder and `?` mistake on what the player knew; `◆`
 * a card that changed the result with all cards open but was no mistake on what it knew. */
export function markOf(verdict: CardVerdict | undefined): HTMLElement | "" {
  if (!verdict) return "";
  const k = verdict.known;
  const name = (code: string) => cardName(cardFromCode(code));
  const knew = k ? t("an.knew", { worlds: k.worlds, mean: k.mean, bestMean: k.best_mean, card: name(k.best), loss: k.loss, lo: k.interval[0], hi: k.interval[1] }) : "";
  const open = t("an.open", { value: verdict.value, best: verdict.best_value, card: name(verdict.best) });
  const title = `${open}${knew}`;
  if (verdict.mark === "blunder") return h("span", { class: "mark blunder", "data-move": verdict.move, title }, "??");
  if (verdict.mark === "mistake") return h("span", { class: "mark mistake", "data-move": verdict.move, title }, "?");
  if (verdict.flips) return h("span", { class: "mark flip", "data-move": verdict.move, title }, "◆");
  return "";
}

/** The declarer's value before the first card and after each, with the card `at` marked. */
function curve(d: DealAnalysis, at: number, cards: number[]): Element {
  const values = [d.start ?? 0, ...(d.curve ?? [])];
  const isNull = d.game === "null";
  const top = isNull ? 1 : 120;
  const W = 700, H = 200, P = 28;
  const x = (i: number) => P + (i * (W - 2 * P)) / Math.max(1, values.length - 1);
  const y = (v: number) => H - P - (v * (H - 2 * P)) / top;
  const ns = "http://www.w3.org/2000/svg";
  const el = (tag: string, attrs: Record<string, string | number>) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    return e;
  };
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", id: "analysis-curve", role: "img",
    "aria-label": t("an.curve", { what: isNull ? t("an.result") : t("an.points") }) });
  const win = isNull ? 1 : 61;
  svg.append(el("line", { x1: P, x2: W - P, y1: y(win), y2: y(win), stroke: "#c0392b", "stroke-dasharray": "4 4" }));
  const label = el("text", { x: 2, y: y(win) + 4, "font-size": 11, fill: "currentColor" });
  label.textContent = isNull ? "won" : "61";
  svg.append(label);
  svg.append(el("polyline", { points: values.map((v, i) => `${x(i)},${y(v)}`).join(" "), fill: "none", stroke: "#1f6f4a", "stroke-width": 2 }));
  for (const c of d.cards ?? []) {
    // On what the player knew: the expected value after the card, where it was judged.
    const i = cards.indexOf(c.move);
    if (c.known && i >= 0) svg.append(el("circle", { cx: x(i + 1), cy: y(c.known.mean), r: 3, fill: c.mark ? "#c0392b" : "#7f8c8d" }));
  }
  const now = Math.min(at, values.length - 1);
  svg.append(el("circle", { cx: x(now), cy: y(values[now]), r: 6, fill: "none", stroke: "#ffb300", "stroke-width": 3, id: "analysis-now" }));
  return svg;
}

/** The analysis section of a replay: `cards` are the move indexes of the deal's cards,
 * `played` how many have been played at the current step. */
export function panel(a: Analysis | undefined, deal: number, cards: number[], played: number, players: string[]): HTMLElement {
  const box = h("section", { id: "analysis", "aria-label": t("an.title") }, h("h2", {}, t("an.title")));
  if (!a) return box;
  if (a.state !== "ready") {
    box.append(h("p", { class: "muted", id: "analysis-status", "aria-live": "polite" }, a.text));
    return box;
  }
  const d = a.deals[deal];
  if (!d || !d.analysed) {
    box.append(h("p", { class: "muted", id: "analysis-status" }, t("an.noPlay")));
  } else {
    box.append(
      h("p", { class: "muted" }, t("an.about", { who: d.declarer ?? "", game: gameWords(d.game ?? "", false, ""), what: d.game === "null" ? t("an.result") : t("an.points"), worlds: a.worlds })),
      curve(d, played, cards));
    if (d.game_choice) box.append(gameChoice(d.game_choice));
  }
  const row = (name: string, role: "declarer" | "defender") => {
    const x = a.summary[name]?.[role];
    if (!x || x.decisions === 0) return null;
    return [name, t(role === "declarer" ? "an.declarer" : "an.defender"), x.decisions, x.mean_loss ?? "", x.known_mean_loss ?? "", x.mistakes, x.blunders, x.flips];
  };
  const rows = players.flatMap((n) => [row(n, "declarer"), row(n, "defender")]).filter((r) => r !== null) as (string | number)[][];
  const num = (k: Parameters<typeof t>[0]): [string, string] => [t(k), "num"];
  box.append(h("h3", {}, t("an.accuracy")),
    table([t("an.player"), t("an.as"), num("an.judged"), num("an.lossOpen"), num("an.lossKnown"), num("an.mistakes"), num("an.blunders"), num("an.flipped")], rows));
  return box;
}

/** The bidding and the declaration as the simulation judged them: every overbid, and the
 * game declared beside the best one when it cost something. */
function gameChoice(g: GameChoice): HTMLElement {
  const words = (o: Option) => t("an.option", {
    game: gameWords(o.game, o.hand, o.open ? "ouvert" : ""), value: o.value,
    chance: Math.round(o.chance * 100), expected: (o.expected > 0 ? "+" : "") + o.expected,
  });
  const lines: string[] = g.bids.filter((b) => b.overbid).map((b) => t("an.overbid", { who: b.player, bid: b.bid, worth: b.worth }));
  const c = g.declaration;
  if (c) {
    lines.push(c.marked
      ? t("an.gameWorse", { made: words(c.made), best: words(c.best), loss: c.loss, lo: c.interval[0], hi: c.interval[1] })
      : t("an.gameFine", { made: words(c.made) }));
  }
  return h("div", { id: "game-choice" }, h("h3", {}, t("an.game")), ...lines.map((l) => h("p", {}, l)));
}
