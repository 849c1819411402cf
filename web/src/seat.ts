// A person's seat: the page sits down at a table like any bot (JoinTable, the seat token,
// the same RPCs and the same redaction) and offers every decision the rules allow now,
// from the seat's own `legal` actions: bids of the next ladder values, hold, pass, pick
// up or play hand, two cards to put away, the legal contracts, a legal card, resign,
// claim. The token lives in this tab's session storage, so a reload resumes the seat.
import { api } from "./api";
import { h } from "./dom";
import { cardName, cardSvg, sortHand } from "./cards";
import { Announcement, BidCall, GameType, type TableView } from "./gen/skat/v1/skat_pb";
import { gameWords, t } from "./i18n";

/** A seat this tab holds. */
export interface SeatAuth { token: string; seat: number; name: string }

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

/** The seat's hand and its decisions now. `act` sends one action and reports a refusal. */
export function seatControls(v: TableView, auth: SeatAuth, tableId: string, act: (send: () => Promise<unknown>) => void): HTMLElement {
  const d = v.deal;
  const box = h("section", { id: "my-seat", "aria-label": t("me.seat") });
  if (!d) return box;
  const legal = d.legal;
  const seq = v.seq;
  const dealNo = d.number;
  const key = `${tableId}/${dealNo}`;
  const picked = chosen.get(key) ?? new Set<number>();
  chosen.set(key, picked);
  const discarding = (legal?.discardFrom.length ?? 0) > 0;
  for (const c of [...picked]) if (!legal?.discardFrom.includes(c)) picked.delete(c);
  const hand = h("div", { class: "cards hand", id: "my-hand", role: "group", "aria-label": t("me.hand", { name: auth.name }) });
  for (const c of sortHand(d.hand)) {
    const playable = legal?.cards.includes(c) ?? false;
    const choosable = discarding && (legal?.discardFrom.includes(c) ?? false);
    const b = h("button", {
      type: "button", class: "card-button", id: `card-${c}`, "data-card-button": c,
      disabled: !(playable || choosable),
      "aria-pressed": choosable ? String(picked.has(c)) : undefined,
      "aria-label": playable ? t("me.play", { card: cardName(c) }) : choosable ? t("me.putAway", { card: cardName(c) }) : cardName(c),
    }, cardSvg(c, "hand", dealNo));
    if (playable) b.onclick = () => act(() => api.playCard({ tableId, card: c, expectedSeq: seq }, authed(auth)));
    if (choosable) b.onclick = () => {
      if (picked.has(c)) picked.delete(c); else if (picked.size < 2) picked.add(c);
      b.setAttribute("aria-pressed", String(picked.has(c)));
      const go = document.getElementById("discard") as HTMLButtonElement | null;
      if (go) go.disabled = picked.size !== 2;
    };
    hand.append(b);
  }
  const actions = h("div", { class: "controls", id: "my-actions", role: "group", "aria-label": t("me.decision") });
  const button = (id: string, text: string, send: () => Promise<unknown>, disabled = false) => {
    const b = h("button", { type: "button", id, disabled }, text);
    b.onclick = () => act(send);
    actions.append(b);
  };
  if (legal?.minBid) {
    for (const value of LADDER.filter((x) => x >= legal.minBid).slice(0, 3)) {
      button(`say-${value}`, t("me.say", { value }), () => api.bid({ tableId, call: BidCall.SAY, value, expectedSeq: seq }, authed(auth)));
    }
  }
  if (legal?.hold) button("hold", t("me.hold"), () => api.bid({ tableId, call: BidCall.HOLD, expectedSeq: seq }, authed(auth)));
  if (legal?.mayPass) button("pass", t("me.pass"), () => api.bid({ tableId, call: BidCall.PASS, expectedSeq: seq }, authed(auth)));
  if (legal?.pickUpSkat) button("pick-up", t("me.pickUp"), () => api.takeSkat({ tableId, pickUp: true, expectedSeq: seq }, authed(auth)));
  if (legal?.playHand) button("play-hand", t("me.playHand"), () => api.takeSkat({ tableId, pickUp: false, expectedSeq: seq }, authed(auth)));
  if (discarding) {
    button("discard", t("me.discard"),
      () => api.discard({ tableId, cards: [...picked], expectedSeq: seq }, authed(auth)), picked.size !== 2);
  }
  for (const [i, c] of (legal?.contracts ?? []).entries()) {
    button(`declare-${i}`, t("me.declare", { game: contractName(c.game, c.announcement, c.hand) }),
      () => api.declare({ tableId, game: c.game, announcement: c.announcement, expectedSeq: seq }, authed(auth)));
  }
  if (legal?.claim) button("claim", t("me.claim"), () => api.claim({ tableId, expectedSeq: seq }, authed(auth)));
  if (legal?.resign) button("resign", t("me.resign"), () => api.resign({ tableId, expectedSeq: seq }, authed(auth)));
  const turn = actions.childElementCount || (legal?.cards.length ?? 0) > 0;
  box.append(
    h("h2", {}, t("me.hand", { name: auth.name })),
    h("p", { id: "my-turn", "aria-live": "assertive", class: turn ? "your-turn" : "muted" },
      turn ? (discarding ? t("me.turnDiscard") : (legal?.cards.length ?? 0) > 0 ? t("me.turnCard") : t("me.turn")) : t("me.waiting")),
    hand, actions, h("p", { id: "my-error", role: "alert", class: "error" }));
  return box;
}
