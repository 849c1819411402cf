// A finished table's analysis on the replay (AnalyzeTable; the same JSON as `skat
// analyze`, docs/analysis.md): marks beside the moves, the declarer's curve with the
// current move, and each player's accuracy over the table. The server computes it on
// demand: while it is queued or running the page asks again every two seconds.
import { api } from "./api";
import { h, table } from "./dom";
import { AnalysisState } from "./gen/skat/v1/skat_pb";

/** One judged card of a deal (the fields the page shows). */
export interface CardVerdict {
  move: number; player: string; role: string; card: string; best: string;
  value: number; best_value: number; loss: number; flips: boolean; mark: string;
  known: { worlds: number; best: string; mean: number; best_mean: number; loss: number; interval: [number, number]; win: number; win_best: number } | null;
}
export interface DealAnalysis { analysed: boolean; game?: string; declarer?: string; start?: number; curve?: number[]; cards?: CardVerdict[] }
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
      update({ state: "waiting", text: r.state === AnalysisState.QUEUED ? `analysis queued (${r.ahead} tables ahead)…` : "analysis running…" });
      timer = setTimeout(() => void ask(), 2000);
    } catch (e) {
      if (!stopped) update({ state: "unavailable", text: `no analysis: ${String((e as Error)?.message ?? e)}` });
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
  const knew = k ? ` On what the player knew (${k.worlds} worlds): ${k.mean} expected after it, ${k.best_mean} after ${k.best}; loss ${k.loss} (95% ${k.interval[0]} to ${k.interval[1]}).` : "";
  const open = `With all cards open: ${verdict.value} after it, ${verdict.best_value} after ${verdict.best}.`;
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
    "aria-label": `The declarer's ${isNull ? "result" : "card points"} with all cards open, before the first card and after each` });
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
  const box = h("section", { id: "analysis", "aria-label": "Analysis" }, h("h2", {}, "Analysis"));
  if (!a) return box;
  if (a.state !== "ready") {
    box.append(h("p", { class: "muted", id: "analysis-status", "aria-live": "polite" }, a.text));
    return box;
  }
  const d = a.deals[deal];
  if (!d || !d.analysed) {
    box.append(h("p", { class: "muted", id: "analysis-status" }, "No card play to judge in this deal."));
  } else {
    box.append(
      h("p", { class: "muted" }, `${d.declarer} declared ${d.game}. The line: the declarer's ${d.game === "null" ? "result (1 won)" : "card points"} with every hand open, after each card; dots: the same expected on what the player to move knew (${a.worlds} worlds), red where it was a mistake. Marks: ?? blunder, ? mistake (on what the player knew), ◆ changed the result with cards open only.`),
      curve(d, played, cards));
  }
  const row = (name: string, role: "declarer" | "defender") => {
    const t = a.summary[name]?.[role];
    if (!t || t.decisions === 0) return null;
    return [name, role, t.decisions, t.mean_loss ?? "", t.known_mean_loss ?? "", t.mistakes, t.blunders, t.flips];
  };
  const rows = players.flatMap((n) => [row(n, "declarer"), row(n, "defender")]).filter((r) => r !== null) as (string | number)[][];
  box.append(h("h3", {}, "Accuracy over this table"),
    table(["player", "as", ["cards judged", "num"], ["mean loss, cards open", "num"], ["mean loss, on what it knew", "num"], ["mistakes", "num"], ["blunders", "num"], ["results flipped", "num"]], rows));
  return box;
}
