// The author's page of a hosted bot (`#/my-bot`), with the bot's own token: its versions
// (digest, state, which is active, why one failed), its sandboxes (the table, how each
// ended, exit status, CPU seconds, peak memory, in words) and each sandbox's output. It
// reads what `skat bot versions` and `skat bot logs` read, through the same calls
// (skat.v1.HostingService), so an author sees nothing another account's token would not.
//
// | rule | why |
// |---|---|
// | the token is kept in this tab's session storage only, and sent only over HTTPS or to this machine | as the operator's page: a shared machine keeps no token, plain text gives none away |
// | a refused token is forgotten and the page says which token it wants | an author knows what to type |
// | output is shown as text, never as markup | a bot's output is a stranger's bytes |
import { Code, ConnectError } from "@connectrpc/connect";
import { hosting } from "./api";
import { h, link, table, when } from "./dom";
import { t } from "./i18n";
import { copyable, safeOrigin, tokenForm } from "./operator";
import { SandboxOutcome, VersionState, type BotVersion, type Sandbox } from "./gen/skat/v1/hosting_pb";

const KEY = "skat-bot-token";

type Show = (title: string, ...content: (Node | string)[]) => void;

function auth(token: string) {
  return { headers: { authorization: `Bearer ${token}` } };
}

const OUTCOMES: Record<number, string> = {
  [SandboxOutcome.RUNNING]: "mine.running",
  [SandboxOutcome.EXITED]: "mine.exited",
  [SandboxOutcome.STOPPED]: "mine.stopped",
  [SandboxOutcome.OUT_OF_MEMORY]: "mine.oom",
  [SandboxOutcome.TIMED_OUT]: "mine.timedOut",
  [SandboxOutcome.FAILED_TO_START]: "mine.failedToStart",
};

function outcome(s: Sandbox): string {
  return t((OUTCOMES[s.outcome] ?? "mine.running") as "mine.running");
}

function versionState(v: BotVersion): string {
  switch (v.state) {
    case VersionState.PENDING: return t("mine.pending");
    case VersionState.FAILED: return t("mine.failed");
    default: return t("mine.approved");
  }
}

/** Draws the page; `again` redraws it. */
export async function myBotView(show: Show, again: () => void) {
  const title = h("h1", {}, t("mine.title"));
  const token = sessionStorage.getItem(KEY);
  if (!token || !safeOrigin()) {
    if (!safeOrigin()) sessionStorage.removeItem(KEY);
    const warning = safeOrigin() ? null : h("p", { class: "error", role: "alert", id: "insecure" }, t("mine.insecure"));
    show(t("mine.title"), title, ...(warning ? [warning] : []), h("p", { class: "muted" }, t("mine.kept")),
      tokenForm(KEY, ["bot-token", "bot-token-form"], [t("mine.token"), t("mine.whichToken")], again));
    return;
  }
  let versions: BotVersion[];
  let sandboxes: Sandbox[];
  try {
    [versions, sandboxes] = await Promise.all([
      hosting.listBotVersions({}, auth(token)).then((r) => r.versions),
      hosting.listSandboxes({ limit: 100 }, auth(token)).then((r) => r.sandboxes),
    ]);
  } catch (e) {
    if (e instanceof ConnectError && [Code.PermissionDenied, Code.Unauthenticated].includes(e.code)) {
      sessionStorage.removeItem(KEY);
      const retry = h("button", { type: "button", id: "try-again" }, t("op.tryAgain"));
      retry.addEventListener("click", again);
      show(t("mine.title"), title, h("p", { class: "error", role: "alert", id: "refused" }, t("mine.refused", { why: e.rawMessage })), retry);
      return;
    }
    throw e;
  }
  const signOut = h("button", { type: "button", id: "sign-out" }, t("op.signOut"));
  signOut.addEventListener("click", () => { sessionStorage.removeItem(KEY); again(); });
  const name = versions[0]?.botName || sandboxes[0]?.botName || "";
  const output = h("section", { id: "output", "aria-live": "polite" });
  show(t("mine.title"), title,
    h("p", {}, name ? link(`#/bot/${encodeURIComponent(name)}`, name) : "", name ? " · " : "", signOut),
    h("h2", {}, t("mine.versions")), h("section", { id: "versions" }, versionsTable(versions)),
    h("h2", {}, t("mine.sandboxes")), h("section", { id: "sandboxes" }, sandboxesTable(sandboxes, token, output)),
    output);
}

function versionsTable(versions: BotVersion[]): HTMLElement {
  if (!versions.length) return h("p", {}, t("mine.noVersions"));
  return table([t("mine.digest"), t("mine.submitted"), t("op.state"), t("mine.active"), t("mine.image"), t("op.detail")],
    versions.map((v) => [
      copyable(v.digest.replace(/^sha256:/, "")), when(v.submittedUnixMs), versionState(v), v.active ? "✓" : "",
      v.imageRef || t("mine.archive", { mib: (Number(v.sizeBytes) / 1048576).toFixed(1) }),
      h("span", { class: "wrap" }, v.failure),
    ]));
}

function sandboxesTable(sandboxes: Sandbox[], token: string, output: HTMLElement): HTMLElement {
  if (!sandboxes.length) return h("p", {}, t("mine.noSandboxes"));
  return table([t("mine.started"), t("mine.table"), t("op.state"), t("mine.exit"), t("mine.cpu"), t("mine.memory"), t("op.detail"), ""],
    sandboxes.map((s) => {
      const read = h("button", { type: "button", "data-sandbox": s.id }, t("mine.output", { kib: Math.ceil(Number(s.logBytes) / 1024) }));
      read.addEventListener("click", () => void showOutput(s, token, output));
      const ended = s.outcome !== SandboxOutcome.RUNNING;
      return [
        when(s.startedUnixMs),
        link(`#/table/${encodeURIComponent(s.tableId)}`, `${s.tableId} · ${t("mine.seat", { n: s.seat + 1 })}`),
        outcome(s),
        ended && s.outcome !== SandboxOutcome.FAILED_TO_START ? String(s.exitCode) : "",
        ended ? (Number(s.cpuMs) / 1000).toFixed(1) : "",
        ended && s.memoryPeakBytes ? (Number(s.memoryPeakBytes) / 1048576).toFixed(0) : "",
        h("span", { class: "wrap" }, s.detail),
        ended ? read : "",
      ];
    }));
}

async function showOutput(s: Sandbox, token: string, output: HTMLElement) {
  const r = await hosting.getSandboxLog({ sandboxId: s.id }, auth(token));
  const text = new TextDecoder().decode(r.log);
  output.replaceChildren(
    h("h2", {}, t("mine.outputOf", { id: s.id })),
    s.logTruncated ? h("p", { class: "muted", id: "output-cut" }, t("mine.cut")) : "",
    h("pre", { id: "output-text", tabindex: 0 }, text || t("mine.silent")));
  output.scrollIntoView({ block: "nearest" });
}
