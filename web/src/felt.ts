// A table drawn as a card table: the seats around a felt, each with its name, position,
// the cards it holds as backs, its points and the time it has left (a bar and seconds),
// a mark on the player to move; the trick in the middle with each card in front of who
// played it; the last trick left in place until the next card is led, and shown again
// on demand (a button, or the key L); the skat as two backs until it is picked up or
// shown. A person's seat sits at the bottom with its hand (seat.ts); spectators and the
// TV see the same table with every hand hidden, as the rules hide them.
//
// | rule | why |
// |---|---|
// | backs carry no card (`data-card` only on faces) | the DOM holds no card the rules do not show this seat |
// | a face carries `data-where` (hand, trick, taken, open, skat, dealt) | the browser test checks every face against the records |
// | motion only with the switch on and no reduced-motion preference | a reader's choice, kept |
import { cardBack, cardSvg } from "./cards";
import { h } from "./dom";
import { Phase, Position, type DealView, type TableView, type Trick } from "./gen/skat/v1/skat_pb";
import { count, t } from "./i18n";
import { acceptDrops } from "./seat";
import { soundSwitch } from "./sound";

const POSITIONS = ["", "forehand", "middlehand", "rearhand"] as const;
export const positionName = (p: number) => (p >= 1 && p <= 3 ? t(POSITIONS[p] as "forehand") : "");

/** Whether the last trick is shown on demand (the button or L), across redraws. */
let lastShown = false;

/** Where each seat sits, seen from this tab: `bottom` is the person's own seat. */
export type Place = "left" | "top" | "right" | "bottom";

/** The places of the seats: a spectator sees forehand left, middlehand at the top,
 * rearhand right; a seated person sits at the bottom with the next to play on its left.
 * The dealer who sits out (four seats) takes the place left over. */
export function places(v: TableView, mySeat: number | undefined): (seat: number) => Place {
  const d = v.deal;
  const mine = mySeat !== undefined && d ? d.positionSeats.indexOf(mySeat) : -1;
  return (seat: number): Place => {
    const p = d ? d.positionSeats.indexOf(seat) : -1;
    if (p < 0) return mine >= 0 ? "top" : d ? "bottom" : (["left", "top", "right", "bottom"] as Place[])[seat] ?? "bottom";
    if (mine < 0) return (["left", "top", "right"] as Place[])[p];
    return (["bottom", "left", "right"] as Place[])[(p - mine + 3) % 3];
  };
}

/** The seats around the felt, the trick (or the last one) in the middle. */
export function ring(v: TableView, names: string[], mySeat: number | undefined): HTMLElement {
  const d = v.deal;
  const place = places(v, mySeat);
  const order = (seat: number) => { const p = d ? d.positionSeats.indexOf(seat) : -1; return p < 0 ? 9 + seat : p; };
  const box = h("div", { class: "ring" });
  for (const s of [...v.seatInfo].sort((a, b) => order(a.seat) - order(b.seat))) {
    box.append(seatBox(v, s.seat, names, place(s.seat), s.seat === mySeat));
  }
  if (d) box.append(centre(d, names, place));
  return box;
}

function seatBox(v: TableView, seat: number, names: string[], at: Place, mine: boolean): HTMLElement {
  const d = v.deal;
  const info = v.seatInfo.find((s) => s.seat === seat);
  const standing = v.standings.find((x) => x.seat === seat);
  const clock = v.clocks.find((c) => c.seat === seat);
  const position = d ? d.positionSeats.indexOf(seat) : -1;
  const moving = d?.seatToMove === seat;
  // The dealer: rearhand at three seats; at four the seat that sits the deal out (RULES.md, Seats and positions).
  const dealer = d && (v.seatInfo.length > 3 ? position < 0 : position === 2);
  const held = d && position >= 0 ? d.handSizes[position] ?? 0 : 0;
  const name = info?.name ? (v.tournamentId ? h("a", { href: `#/bot/${encodeURIComponent(info.name)}` }, info.name) : info.name) : names[seat];
  const deadline = Number(v.deadlineUnixMs);
  const total = Number(v.timeControl?.actionMs ?? 0n);
  return h("div", { class: `seat at-${at}${moving ? " to-move" : ""}`, "data-seat": seat, "aria-current": moving ? "true" : undefined },
    h("div", { class: "name" }, name, dealer ? h("span", { class: "dealer", title: t("seat.dealerLong") }, t("seat.dealer")) : "",
      moving ? h("span", { class: "move-mark" }, t("seat.toMove")) : ""),
    h("div", { class: "muted" }, position >= 0 ? positionName(position + 1) : t("seat.sitsOut"),
      d && position >= 0 ? ` · ${t("seat.cards", { n: held, cards: count(held, "one.card") })}` : ""),
    // The others' cards as backs (the person's own are its hand, below the felt).
    !mine && held ? h("div", { class: "backs", "aria-hidden": "true" }, ...Array.from({ length: held }, () => cardBack())) : "",
    standing ? h("div", {}, t("seat.points", { plain: standing.plain, sf: standing.seegerFabian })) : "",
    clock && v.timeControl?.dealMs ? h("div", { class: "muted" }, t("seat.dealClock", { s: (Number(clock.remainingMs) / 1000).toFixed(0) })) : "",
    moving && deadline ? h("div", { class: "clock" }, t("seat.toAct"), h("span", { "data-deadline": deadline, role: "timer" }, ""),
      total ? h("span", { class: "bar", "aria-hidden": "true" }, h("span", { "data-deadline-bar": deadline, "data-total": total })) : "") : "",
  );
}

/** The middle of the felt: the trick being played (each card in front of its player), or
 * the last trick until the next card is led; the skat; the last trick on demand. */
function centre(d: DealView, names: string[], place: (seat: number) => Place): HTMLElement {
  const nameAt = (p: Position) => names[d.positionSeats[p - 1]] ?? positionName(p);
  const placeOf = (p: Position) => place(d.positionSeats[p - 1]);
  const current = d.currentTrick?.cards.length ? d.currentTrick : undefined;
  const last = d.tricks[d.tricks.length - 1];
  const trick = h("div", { class: "trick", id: "trick", role: "group", "aria-live": "polite", "aria-label": t("table.trick").replace(":", "").trim() });
  acceptDrops(trick);
  if (current) {
    laid(trick, current, d.number, "trick", nameAt, placeOf, animate());
  } else if (last && d.phase === Phase.PLAYING) {
    // The trick just taken stays where it was played until the next card is led.
    laid(trick, last, d.number, "taken", nameAt, placeOf, false);
    trick.append(h("div", { class: "trick-caption", id: "last-taken" }, t("table.tookIt", { who: nameAt(last.winner) })));
  }
  const middle = h("div", { class: "at-trick" }, trick, skatDom(d));
  if (last) {
    const button = h("button", { type: "button", id: "last-trick-button", "aria-pressed": String(lastShown), "aria-keyshortcuts": "L" }, t("table.lastTrick"));
    button.onclick = () => toggleLast();
    middle.append(button);
    if (lastShown) {
      const panel = h("div", { class: "trick last", id: "last-trick", role: "region", "aria-label": t("table.lastTrick") });
      laid(panel, last, d.number, "taken", nameAt, placeOf, false);
      panel.append(h("div", { class: "trick-caption" }, t("table.tookIt", { who: nameAt(last.winner) })));
      middle.append(panel);
    }
  }
  return middle;
}

/** Lays a trick's cards, each in front of who played it. */
function laid(into: HTMLElement, trick: Trick, deal: number, where: string, nameAt: (p: Position) => string,
  placeOf: (p: Position) => Place, freshLast: boolean) {
  trick.cards.forEach((c, i) => {
    const pos = ((trick.leader - 1 + i) % 3) + 1;
    const fresh = freshLast && i === trick.cards.length - 1;
    into.append(h("div", { class: `trick-card from-${placeOf(pos)}${fresh ? " fresh" : ""}` }, cardSvg(c, where, deal), h("span", {}, nameAt(pos))));
  });
}

/** The skat: its faces once the rules show them, else two backs while it lies there. */
function skatDom(d: DealView): HTMLElement | string {
  if (d.skat.length) {
    return h("div", { class: "skat" }, h("span", {}, d.skatPickedUp && d.discards.length ? t("table.skatPicked") : t("table.skat")),
      h("span", { class: "cards small" }, ...d.skat.map((c) => cardSvg(c, "skat", d.number))));
  }
  if (d.discards.length) {
    return h("div", { class: "skat" }, h("span", {}, t("table.putAway")),
      h("span", { class: "cards small", id: "discards" }, ...d.discards.map((c) => cardSvg(c, "skat", d.number))));
  }
  const lying = !d.skatPickedUp || d.phase === Phase.PLAYING;
  return lying ? h("div", { class: "skat", role: "group", "aria-label": t("table.skatHidden") }, h("span", {}, d.skatPickedUp ? t("table.putAway") : t("table.skat")),
    h("span", { class: "backs" }, cardBack(), cardBack())) : "";
}

/** Shows or hides the last trick (the button, or L anywhere but in a field). */
function toggleLast() {
  lastShown = !lastShown;
  document.getElementById("last-trick-button")?.dispatchEvent(new CustomEvent("skat-redraw", { bubbles: true }));
}

/** Keys on the table: L shows the last trick. `redraw` draws the table again. */
export function tableKeys(redraw: () => void): () => void {
  const onKey = (e: KeyboardEvent) => {
    const field = e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.target instanceof HTMLTextAreaElement;
    if (field || e.ctrlKey || e.metaKey || e.altKey || e.key.toLowerCase() !== "l") return;
    if (!document.getElementById("last-trick-button")) return;
    lastShown = !lastShown;
    redraw();
  };
  const onRedraw = () => redraw();
  document.addEventListener("keydown", onKey);
  document.addEventListener("skat-redraw", onRedraw);
  return () => { document.removeEventListener("keydown", onKey); document.removeEventListener("skat-redraw", onRedraw); };
}

/** Whether a card played slides into the trick: the reader's choice (kept), off when the
 * system asks for reduced motion. */
export function animate(): boolean {
  return localStorage.getItem("skat-animate") !== "off" && !matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** The switches of the table: motion and sound, each saying whether it is on. */
export function switches(): HTMLElement {
  const on = localStorage.getItem("skat-animate") !== "off";
  const b = h("button", { type: "button", id: "animate", "aria-pressed": String(on) }, t(on ? "table.animateOn" : "table.animateOff"));
  b.onclick = () => {
    const now = localStorage.getItem("skat-animate") === "off";
    localStorage.setItem("skat-animate", now ? "on" : "off");
    b.setAttribute("aria-pressed", String(now));
    b.textContent = t(now ? "table.animateOn" : "table.animateOff");
  };
  return h("div", { class: "controls switches" }, b, soundSwitch());
}
