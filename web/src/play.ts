// `#/play`: a person sits down against bots. The page creates a table naming the bots
// (CreateTable.bots: house bots, or accounts whose lobby offers itself to people's
// tables), takes the remaining seat with JoinTable like any bot, keeps the seat token in
// this tab's session storage, and goes to the table, where the seat's decisions are
// offered (seat.ts). Other seats may stay open for other people, who join from the table
// list. On a server that lets anonymous clients only watch (`--anonymous spectate`),
// CreateTable and JoinTable are refused: people play there only at tables the operator
// opens and hands out.
import { ConnectError } from "@connectrpc/connect";
import { api } from "./api";
import { h } from "./dom";
import { keepSeat } from "./seat";

/** The house bots a person may choose from, when online. */
const HOUSE = ["house-random", "house-heuristic", "house-pimc"];

export async function playView(show: (title: string, ...content: (Node | string)[]) => void) {
  const online = (await Promise.all(HOUSE.map((name) =>
    api.getBot({ name }).then((r) => (r.bot?.online ? name : undefined), () => undefined)))).filter((n): n is string => !!n);
  const opponent = (i: number) => {
    const select = h("select", { id: `opponent-${i}`, name: `opponent-${i}` },
      ...online.map((n) => h("option", { value: n }, n)),
      h("option", { value: "" }, "an open seat for another person"));
    (select as HTMLSelectElement).selectedIndex = Math.min(i, Math.max(0, online.length - 1));
    return h("label", {}, `Opponent ${i + 1} `, select);
  };
  const field = (id: string, label: string, value: string, attrs: Record<string, string>) =>
    h("label", {}, `${label} `, h("input", { id, name: id, value, ...attrs }));
  const error = h("p", { id: "play-error", role: "alert", class: "error" });
  const form = h("form", { id: "play-form", class: "stack" },
    field("player-name", "Your name", "guest", { maxlength: "32", required: "" }),
    opponent(0), opponent(1),
    field("deals", "Deals", "6", { type: "number", min: "1", max: "36" }),
    field("action-seconds", "Seconds per decision", "120", { type: "number", min: "10", max: "3600" }),
    h("button", { type: "submit", id: "start" }, "Sit down"),
    error);
  form.onsubmit = (e) => {
    e.preventDefault();
    const value = (id: string) => (document.getElementById(id) as HTMLInputElement).value;
    const bots = [value("opponent-0"), value("opponent-1")].filter((n) => n);
    const name = value("player-name").trim() || "guest";
    void (async () => {
      try {
        const created = await api.createTable({
          name: `${name} against ${bots.join(" and ") || "people"}`,
          seats: 3,
          deals: Number(value("deals")) || 6,
          timeControl: { actionMs: BigInt(Math.round(Number(value("action-seconds")) * 1000)), dealMs: 0n },
          bots,
        });
        const joined = await api.joinTable({ tableId: created.tableId, name, joinCode: created.joinCode });
        keepSeat(created.tableId, { token: joined.token, seat: joined.seat, name });
        location.hash = `#/table/${encodeURIComponent(created.tableId)}`;
      } catch (err) {
        error.textContent = err instanceof ConnectError ? err.rawMessage : String(err);
      }
    })();
  };
  show("Play", h("h1", {}, "Play a list against bots"),
    h("p", {}, online.length
      ? "Choose your opponents: the server's house bots, or an open seat another person can take from the table list."
      : "No house bot is online on this server: leave seats open for other people (or for bots you start yourself)."),
    form);
}
