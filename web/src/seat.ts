// A person's seat: the page sits down at a table like any bot (JoinTable, the seat token,
// the same RPCs and the same redaction) and offers every decision the rules allow now,
// from the seat's own `legal` actions: every bid up the ladder (the next three as buttons,
// any from a box), hold, pass, pick up or play hand, two cards to put away on the fan,
// the legal contracts with their values (an overbid marked), a legal card by click, tap,
// keys or drag, and resign and claim, which ask once. The token lives in this tab's
// session storage, so a reload resumes the seat.
import { api } from "./api";
import { h } from "./dom";
import { cardName, cardSvg, sortHand } from "./cards";
import { gameValue } from "./value";
import { Announcement, BidCall, GameType, type TableView } from "./gen/skat/v1/skat_pb";
import { gameWords, t } from "./i18n";

/** A seat this tab holds. */
/** A table this tab made (play.ts): what "play again" makes once more. */
export interface Again { seats: number; deals: number; actionMs: number; bots: string[] }

export interface SeatAuth { token: string; seat: number; name: string; again?: Again }

const KEY = (tableId: string) => `skat-seat:${tableId}`;

/** The seat this tab holds at `tableId`, if any. */
export function seatOf(tableId: string): SeatAuth | undefined {
  try {
    const raw = sessionStorage.getItem(KEY(tableId));
    return raw ? (JSON.parse(raw) as SeatAuth) : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps the seat for this tab (and a reload of it); never in local storage or a URL. */
export function keepSeat(tableId: string, auth: SeatAuth) {
  sessionStorage.setItem(KEY(tableId), JSON.stringify(auth));
}

/** Forgets the seat (the table is over, or the token no longer holds it). */
export function dropSeat(tableId: string) {
  sessionStorage.removeItem(KEY(tableId));
}

/** Call options with the seat token. */
export function authed(auth: SeatAuth, signal?: AbortSignal) {
  return { headers: { authorization: `Bearer ${auth.token}` }, signal };
}

/** The bid ladder: every value a suit, grand or null game can be worth (ISkO). */
const LADDER = [18, 20, 22, 23, 24, 27, 30, 33, 35, 36, 40, 44, 45, 46, 48, 50, 54, 55, 59, 60, 63, 66, 70, 72, 77, 80, 81, 84, 88,
  90, 96, 99, 100, 108, 110, 117, 120, 121, 126, 130, 132, 135, 140, 143, 144, 150, 153, 154, 156, 160, 162, 165, 168, 170, 176, 180,
  187, 192, 198, 204, 216, 240, 264];

/** A contract in words: "grand", "clubs hand schneider", "null ouvert". */
export function contractName(game: GameType, announcement: Announcement, hand: boolean): string {
  return gameWords(GameType[game] ?? "", hand, Announcement[announcement] ?? "");
}

/** Cards chosen to put away, by table and deal (kept across renders). */
const chosen = new Map<string, Set<number>>();

/** How long an armed claim or resign waits for its second press. */
const CONFIRM_MS = 5000;

type Act = (send: () => Promise<unknown>) => void;

/** The seat's hand and its decisions now. `act` sends one action and reports a refusal. */
export function seatControls(v: TableView, auth: SeatAuth, tableId: string, act: Act): HTMLElement {
  const d = v.deal;
  const box = h("section", { id: "my-seat", "aria-label": t("me.seat") });
  if (!d) return box;
  const legal = d.legal;
  const key = `${tableId}/${d.number}`;
  const picked = chosen.get(key) ?? new Set<number>();
  chosen.set(key, picked);
  const discarding = (legal?.discardFrom.length ?? 0) > 0;
  for (const c of [...picked]) if (!legal?.discardFrom.includes(c)) picked.delete(c);
  const actions = h("div", { class: "controls", id: "my-actions", role: "group", "aria-label": t("me.decision") });
  const button = (id: string, text: string, send: () => Promise<unknown>, disabled = false) => {
    const b = h("button", { type: "button", id, disabled }, text);
    b.onclick = () => act(send);
    actions.append(b);
    return b;
  };
  const call = (c: BidCall, value = 0) => () => api.bid({ tableId, call: c, value, expectedSeq: v.seq }, authed(auth));
  if (legal?.minBid) bidBox(actions, legal.minBid, button, (value) => call(BidCall.SAY, value), act);
  if (legal?.hold) button("hold", t("me.hold"), call(BidCall.HOLD));
  if (legal?.mayPass) button("pass", t("me.pass"), call(BidCall.PASS));
  const seq = v.seq;
  if (legal?.pickUpSkat) button("pick-up", t("me.pickUp"), () => api.takeSkat({ tableId, pickUp: true, expectedSeq: seq }, authed(auth)));
  if (legal?.playHand) button("play-hand", t("me.playHand"), () => api.takeSkat({ tableId, pickUp: false, expectedSeq: seq }, authed(auth)));
  if (discarding) {
    button("discard", t("me.discard"),
      () => api.discard({ tableId, cards: [...picked], expectedSeq: seq }, authed(auth)), picked.size !== 2);
  }
  const contracts = legal?.contracts ?? [];
  const known = [...d.hand, ...d.discards];
  for (const [i, c] of contracts.entries()) {
    const value = gameValue(c.game, c.hand, c.announcement, known);
    const over = value < d.bid;
    const b = button(`declare-${i}`, t(over ? "me.declareOver" : "me.declareValue", { game: contractName(c.game, c.announcement, c.hand), value }),
      () => api.declare({ tableId, game: c.game, announcement: c.announcement, expectedSeq: seq }, authed(auth)));
    b.dataset.value = String(value);
    if (over) b.classList.add("overbid");
  }
  if (legal?.claim) confirmed(button("claim", t("me.claim"), () => api.claim({ tableId, expectedSeq: seq }, authed(auth))), t("me.claimSure"));
  if (legal?.resign) confirmed(button("resign", t("me.resign"), () => api.resign({ tableId, expectedSeq: seq }, authed(auth))), t("me.resignSure"));
  const turn = actions.childElementCount > 0 || (legal?.cards.length ?? 0) > 0;
  box.append(
    h("h2", { class: "sr-only" }, t("me.hand", { name: auth.name })),
    h("p", { id: "my-turn", "aria-live": "assertive", class: turn ? "your-turn" : "muted" },
      turn ? (discarding ? t("me.turnDiscard") : (legal?.cards.length ?? 0) > 0 ? t("me.turnCard") : t("me.turn")) : t("me.waiting")),
    handFan(v, auth, tableId, picked, act), actions,
    contracts.length ? h("p", { class: "muted", id: "contracts-help" }, t("me.contractsHelp", { bid: d.bid })) : "",
    h("p", { id: "my-error", role: "alert", class: "error" }));
  return box;
}

/** The hand as a fan sorted for the game: legal cards lifted, the others dimmed; a card is
 * played by click, tap, keys, or dragged onto the trick; two cards to put away are chosen
 * on the fan. */
function handFan(v: TableView, auth: SeatAuth, tableId: string, picked: Set<number>, act: Act): HTMLElement {
  const d = v.deal!;
  const legal = d.legal;
  const discarding = (legal?.discardFrom.length ?? 0) > 0;
  const cards = sortHand(d.hand, d.contract?.game || undefined);
  const hand = h("div", { class: "cards hand fan", id: "my-hand", role: "group", "aria-label": t("me.hand", { name: auth.name }), style: `--n: ${cards.length}` });
  for (const c of cards) {
    const playable = legal?.cards.includes(c) ?? false;
    const choosable = discarding && (legal?.discardFrom.includes(c) ?? false);
    const live = (legal?.cards.length ?? 0) > 0 || discarding;
    // The button is named by its words (a screen reader says "play jack of clubs"); the
    // face is a picture of them, hidden from the reader so that the name is not said twice.
    const face = cardSvg(c, "hand", d.number);
    face.setAttribute("aria-hidden", "true");
    const words = playable ? t("me.play", { card: cardName(c) }) : choosable ? t("me.putAway", { card: cardName(c) }) : cardName(c);
    const b = h("button", {
      type: "button", class: `card-button${playable || choosable ? " legal" : live ? " dimmed" : ""}`, id: `card-${c}`, "data-card-button": c,
      disabled: !(playable || choosable), draggable: playable ? "true" : undefined,
      "aria-pressed": choosable ? String(picked.has(c)) : undefined,
    }, face, h("span", { class: "sr-only" }, words));
    if (playable) {
      const play = () => act(() => api.playCard({ tableId, card: c, expectedSeq: v.seq }, authed(auth)));
      b.onclick = play;
      b.ondragstart = (e) => { e.dataTransfer?.setData("text/x-skat-card", String(c)); };
      dropTargets.set(c, play);
    }
    if (choosable) b.onclick = () => {
      if (picked.has(c)) picked.delete(c); else if (picked.size < 2) picked.add(c);
      b.setAttribute("aria-pressed", String(picked.has(c)));
      const go = document.getElementById("discard") as HTMLButtonElement | null;
      if (go) go.disabled = picked.size !== 2;
    };
    hand.append(b);
  }
  return hand;
}

/** What a card dropped on the trick does (the last drawing's legal cards). */
const dropTargets = new Map<number, () => void>();

/** Makes `trick` take a card dragged from the hand. */
export function acceptDrops(trick: HTMLElement) {
  trick.ondragover = (e) => { if (e.dataTransfer?.types.includes("text/x-skat-card")) e.preventDefault(); };
  trick.ondrop = (e) => {
    e.preventDefault();
    dropTargets.get(Number(e.dataTransfer?.getData("text/x-skat-card")))?.();
  };
}

/** Every legal bid: the next three values as buttons, and any value up the ladder from a box. */
function bidBox(actions: HTMLElement, minBid: number, button: (id: string, text: string, send: () => Promise<unknown>) => HTMLElement,
  say: (value: number) => () => Promise<unknown>, act: Act) {
  const values = LADDER.filter((x) => x >= minBid);
  for (const value of values.slice(0, 3)) button(`say-${value}`, t("me.say", { value }), say(value));
  const select = h("select", { id: "bid-value" }, ...values.map((x) => h("option", { value: String(x) }, String(x)))) as HTMLSelectElement;
  const go = h("button", { type: "button", id: "say-chosen" }, t("me.sayChosen"));
  go.onclick = () => act(say(Number(select.value)));
  actions.append(h("span", { class: "bid-box" }, h("label", { for: "bid-value" }, `${t("me.bidValue")} `), select, " ", go));
}

/** An irreversible action asks once: the first press arms it (and says so), the second
 * within a few seconds acts; anything else disarms it. */
function confirmed(b: HTMLElement, sure: string) {
  const send = b.onclick as (() => void) | null;
  const label = b.textContent ?? "";
  let timer: number | undefined;
  b.onclick = () => {
    if (b.dataset.armed === "1") { clearTimeout(timer); send?.(); return; }
    b.dataset.armed = "1";
    b.textContent = sure;
    b.classList.add("armed");
    timer = window.setTimeout(() => { b.dataset.armed = ""; b.textContent = label; b.classList.remove("armed"); }, CONFIRM_MS);
  };
}
