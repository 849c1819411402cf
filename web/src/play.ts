// `#/play`: a person sits down against bots. The page creates a table naming the bots
// (CreateTable.bots: house bots, or accounts whose lobby offers itself to people's
// tables), takes the remaining seat with JoinTable like any bot, keeps the seat token in
// this tab's session storage, and goes to the table, where the seat's decisions are
// offered (seat.ts). Other seats may stay open for other people, who join from the table
// list. Only on HTTPS or this machine: the seat token must not travel in plain text.
//
// On a server that lets anonymous clients only watch (`--anonymous spectate`, told by
// GetServerInfo), CreateTable and JoinTable would be refused: the page says so before
// offering anything, and offers what works there: a seat the operator hands out (`skat
// table create --take-seats --page URL` prints a seat link, `#/sit/TABLE/TOKEN`, or the
// token to paste here). A seat link puts the token into this tab's session storage and
// replaces itself in the history at once, so the token stays neither in the address bar
// nor in the history.
import { ConnectError } from "@connectrpc/connect";
import { api } from "./api";
import { AnonymousAccess } from "./gen/skat/v1/skat_pb";
import { h } from "./dom";
import { keepSeat, type Again } from "./seat";
import { safeOrigin } from "./operator";
import { t } from "./i18n";
import { HOUSE_BOTS, levelOf } from "./ladder";

type Show = (title: string, ...content: (Node | string)[]) => void;

/** The pause after each deal at a person's table, in which no clock runs. */
const BETWEEN_DEALS_MS = 30000;

export async function playView(show: Show) {
  // A seat token is a secret: not over plain HTTP beyond this machine.
  if (!safeOrigin()) {
    show(t("nav.play"), h("h1", {}, t("play.title")), h("p", { class: "error", role: "alert", id: "insecure" }, t("play.insecure")));
    return;
  }
  const info = await api.getServerInfo({});
  if (info.anonymous !== AnonymousAccess.PLAY) {
    show(t("nav.play"), h("h1", {}, t("play.title")),
      h("p", { id: "watch-only", role: "status" }, t("play.watchOnly")), seatTokenForm());
    return;
  }
  // The house bots a person may choose from, when online: the ladder's levels, strongest
  // first, each named with its level.
  const online = (await Promise.all(HOUSE_BOTS.map((name) =>
    api.getBot({ name }).then((r) => (r.bot?.online ? name : undefined), () => undefined))))
    .filter((n): n is string => !!n).reverse();
  const opponent = (i: number) => {
    const select = h("select", { id: `opponent-${i}`, name: `opponent-${i}` },
      ...online.map((n) => {
        const l = levelOf(n);
        return h("option", { value: n }, l ? t("play.level", { n: l.level, s: l.strategy }) : n);
      }),
      h("option", { value: "" }, t("play.openSeat")));
    // Every opponent the strongest house bot online (one bot may play two seats); with
    // none online, open seats.
    (select as HTMLSelectElement).selectedIndex = 0;
    return h("label", { id: `opponent-${i}-label` }, `${t("play.opponent", { n: i + 1 })} `, select);
  };
  // A table of three has two opponents: the third is asked for only at a table of four.
  const seatsSelect = h("select", { id: "seats", name: "seats" },
    h("option", { value: "3" }, "3"), h("option", { value: "4" }, t("play.four"))) as HTMLSelectElement;
  const third = opponent(2);
  third.hidden = true;
  seatsSelect.onchange = () => { third.hidden = seatsSelect.value !== "4"; };
  const field = (id: string, label: string, value: string, attrs: Record<string, string>) =>
    h("label", {}, `${label} `, h("input", { id, name: id, value, ...attrs }));
  const error = h("p", { id: "play-error", role: "alert", class: "error" });
  const form = h("form", { id: "play-form", class: "stack" },
    field("player-name", t("play.name"), "guest", { maxlength: "32", required: "" }),
    h("label", {}, `${t("play.seats")} `, seatsSelect),
    opponent(0), opponent(1), third,
    field("deals", t("play.deals"), "6", { type: "number", min: "1", max: "36" }),
    field("action-seconds", t("play.seconds"), "120", { type: "number", min: "10", max: "3600" }),
    h("button", { type: "submit", id: "start" }, t("play.start")),
    error);
  form.onsubmit = (e) => {
    e.preventDefault();
    const value = (id: string) => (document.getElementById(id) as HTMLInputElement).value;
    const seats = Number(value("seats")) === 4 ? 4 : 3;
    // At a table of three the third opponent is not asked for.
    const bots = [value("opponent-0"), value("opponent-1"), value("opponent-2")].slice(0, seats - 1).filter((n) => n);
    const name = value("player-name").trim() || "guest";
    const again: Again = { seats, deals: Number(value("deals")) || 6, actionMs: Math.round(Number(value("action-seconds")) * 1000), bots };
    sitDown(name, again).catch((err) => {
      error.textContent = err instanceof ConnectError ? err.rawMessage : String(err);
    });
  };
  show(t("nav.play"), h("h1", {}, t("play.title")),
    h("p", {}, online.length ? t("play.intro") : t("play.noHouse")),
    form);
}

/** Makes a table with `again`'s bots and settings, takes the last seat as `name`, keeps
 * it in this tab (with the settings, for "play again") and goes to the table. */
export async function sitDown(name: string, again: Again) {
  const created = await api.createTable({
    name: t("play.against", { name, who: again.bots.join(t("play.and")) || t("play.people") }),
    seats: again.seats,
    deals: again.deals,
    // A deal's end waits for the person: no clock runs while it reads the sheet, for a
    // grace the table states (bots act at once anyway).
    timeControl: { actionMs: BigInt(again.actionMs), dealMs: 0n, betweenDealsMs: BigInt(BETWEEN_DEALS_MS) },
    bots: again.bots,
  });
  const joined = await api.joinTable({ tableId: created.tableId, name, joinCode: created.joinCode });
  keepSeat(created.tableId, { token: joined.token, seat: joined.seat, name, again });
  location.hash = `#/table/${encodeURIComponent(created.tableId)}`;
}

/** A seat the operator handed out: the table and its seat token, pasted. */
function seatTokenForm(): HTMLElement {
  const error = h("p", { id: "seat-error", role: "alert", class: "error" });
  const field = (id: string, label: string, attrs: Record<string, string> = {}) =>
    h("label", {}, `${label} `, h("input", { id, name: id, required: "", autocomplete: "off", ...attrs }));
  const form = h("form", { id: "seat-form", class: "stack" },
    field("seat-table", t("play.tableId")), field("seat-token", t("play.seatToken"), { type: "password" }),
    h("button", { type: "submit" }, t("play.takeSeat")), error);
  form.onsubmit = (e) => {
    e.preventDefault();
    const value = (id: string) => (document.getElementById(id) as HTMLInputElement).value.trim();
    sit(value("seat-table"), value("seat-token"), false).catch((err) => {
      error.textContent = err instanceof ConnectError ? err.rawMessage : String(err);
    });
  };
  return form;
}

/** Takes the seat `token` holds at `tableId` into this tab and goes to the table; from a
 * seat link, the link's history entry is replaced (the token leaves the address). */
export async function sit(tableId: string, token: string, fromLink: boolean) {
  const view = (await api.getTable({ tableId }, { headers: { authorization: `Bearer ${token}` } })).table;
  if (!view || view.yourSeat === undefined) throw new Error(t("play.notYourSeat"));
  const seat = view.seatInfo.find((s) => s.seat === view.yourSeat);
  keepSeat(tableId, { token, seat: view.yourSeat, name: seat?.name ?? "" });
  const to = `#/table/${encodeURIComponent(tableId)}`;
  if (fromLink) location.replace(to);
  else location.hash = to;
}

/** `#/sit/TABLE/TOKEN`: a seat link. */
export async function sitView(show: Show, tableId: string, token: string) {
  if (!safeOrigin()) {
    location.replace("#/play");
    return;
  }
  try {
    await sit(tableId, token, true);
  } catch (e) {
    location.replace("#/play");
    show(t("nav.play"), h("h1", {}, t("play.title")),
      h("p", { class: "error", role: "alert", id: "seat-error" }, e instanceof ConnectError ? e.rawMessage : String(e)));
  }
}
