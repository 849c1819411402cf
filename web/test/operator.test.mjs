// The operator's page in a real headless Chromium: the admin token typed into the page
// (kept in session storage only; a wrong one says which token to give), accounts with
// their owner contact, who is online, an account registered, renamed, disabled, enabled,
// given a new token and removed from the page, a tournament paused, resumed and
// cancelled from its buttons, the audit log showing it in words (dates, the deals'
// commitment shortened with a copy button, nothing cut at the edge); and, on plain HTTP
// beyond this machine, the page refuses to send the token.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import puppeteer from "puppeteer-core";
import { chromium, freePort, skat, until } from "./support/env.mjs";

function cli(grpc, ...args) {
  const r = spawnSync(skat, [...args, "--server", `127.0.0.1:${grpc}`, "--admin-token", "op"], { encoding: "utf8" });
  assert.equal(r.status, 0, `skat ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

test("the operator's page in a real browser", { timeout: 180000 }, async () => {
  assert.ok(chromium, "Chromium is installed (scripts/test-all installs the Debian package)");
  const [grpcPort, webPort] = [await freePort(), await freePort()];
  const data = mkdtempSync(path.join(os.tmpdir(), "skat-operator-page-"));
  const server = spawn(skat, ["serve", "--addr", `127.0.0.1:${grpcPort}`, "--web-addr", `127.0.0.1:${webPort}`,
    "--metrics-addr", "off", "--admin-token", "op", "--registration", "admin", "--data-dir", data], { stdio: ["ignore", "pipe", "inherit"] });
  let printed = "";
  server.stdout.on("data", (d) => { printed += d; });
  const procs = [server];
  // skat.test resolves to this machine, but is not "this machine" to the page: plain
  // HTTP there must not carry the token.
  const browser = await puppeteer.launch({ executablePath: chromium, headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP skat.test 127.0.0.1"] });
  try {
    await until("the server is up", () => printed.includes(`http://127.0.0.1:${webPort}/`));
    const tokens = {};
    for (const [name, owner] of [["ada", "ada@example.org"], ["bea", "bea@example.org"], ["cy", ""]]) {
      const out = cli(grpcPort, "admin", "register-bot", "--name", name, "--owner", owner);
      tokens[name] = out.split("\n").find((l) => l.startsWith("bot token ")).slice("bot token ".length);
    }
    const bot = spawn(skat, ["bot", "--server", `127.0.0.1:${grpcPort}`, "--bot-token", tokens.ada], { stdio: "ignore" });
    procs.push(bot);
    const created = cli(grpcPort, "tournament", "create", "--name", "spring cup", "--entrants", "ada,bea,cy", "--start-in", "2h");
    assert.match(created, /deals committed: [0-9a-f]{64}/, created);
    const tid = created.split(/\s+/)[1];

    const page = await browser.newPage();
    // Dialogs: prompts answered from `answers` (in order), confirmations accepted.
    const answers = [];
    page.on("dialog", (d) => void (d.type() === "prompt" ? d.accept(answers.shift() ?? "") : d.accept()));
    const base = `http://127.0.0.1:${webPort}/`;
    await page.goto(base + "#/operator", { waitUntil: "load" });
    await page.waitForSelector("#token-form");
    assert.equal(await page.$("#insecure"), null, "no warning on this machine");
    // A wrong token is refused and forgotten.
    await page.type("#admin-token", "wrong");
    await page.click("#token-form button[type=submit]");
    await page.waitForSelector("#refused");
    assert.match(await page.$eval("#refused", (e) => e.textContent), /--admin-token.*SKAT_ADMIN_TOKEN/);
    assert.equal(await page.evaluate(() => sessionStorage.getItem("skat-admin-token")), null);
    await page.click("#try-again");
    await page.waitForSelector("#token-form");
    await page.type("#admin-token", "op");
    await page.click("#token-form button[type=submit]");
    await page.waitForSelector("#accounts table");
    const stored = await page.evaluate(() => [sessionStorage.getItem("skat-admin-token"), localStorage.length, location.href]);
    assert.deepEqual(stored.slice(0, 2), ["op", 0], "the token in session storage only");
    assert.ok(!stored[2].includes("op@") && !stored[2].includes("token"), stored[2]);
    const accounts = await page.$eval("#accounts", (e) => e.textContent);
    assert.match(accounts, /ada@example\.org/);
    assert.match(accounts, /bea/);
    await until("ada is online", async () => {
      await page.reload({ waitUntil: "load" });
      await page.waitForSelector("#online");
      return /ada/.test(await page.$eval("#online", (e) => e.textContent));
    });
    const status = () => page.$eval(`#op-tournaments [data-status]`, (e) => e.getAttribute("data-status"));
    assert.equal(await status(), "scheduled");
    for (const [button, after] of [["pause", "paused"], ["resume", "scheduled"], ["cancel", "cancelled"]]) {
      await page.click(`button[data-action=${button}][data-tournament=${tid}]`);
      await until(`${button} shows ${after}`, async () => (await page.$("#op-tournaments [data-status]")) && (await status()) === after);
    }
    const audit = await page.$eval("#audit", (e) => e.textContent);
    assert.match(audit, /update-tournament/);
    assert.match(audit, /cancelled before it started/);
    assert.match(audit, /round robin/);
    assert.doesNotMatch(audit, /RoundRobin|abandoned|\d{13}/, "words and dates, not enum names or milliseconds");
    assert.match(audit, /127\.0\.0\.1/);
    // The commitment: shortened on the page, copied whole by its button.
    const commitment = created.match(/deals committed: ([0-9a-f]{64})/)[1];
    const copied = await page.$eval(`#audit [data-copy="${commitment}"]`, (b) => b.closest(".copyable").textContent);
    assert.ok(copied.includes(commitment.slice(0, 12)) && !copied.includes(commitment), copied);
    // Nothing runs off the edge at 1280 px: the audit log's table fits its box.
    await page.setViewport({ width: 1280, height: 900 });
    const overflow = await page.$eval("#audit .scroll", (e) => e.scrollWidth - e.clientWidth);
    assert.ok(overflow <= 0, `the audit log is ${overflow} px wider than its box`);

    // Accounts from the page: register one (its token shown once), rename it, disable
    // and enable it, give it a new token, remove it.
    await page.type("#new-name", "dot");
    await page.type("#new-owner", "dot@example.org");
    await page.click("#register-form button[type=submit]");
    await page.waitForSelector("#new-token .copyable");
    const firstToken = await page.$eval("#new-token [data-copy]", (b) => b.getAttribute("data-copy"));
    assert.match(cli(grpcPort, "admin", "list", "--search", "dot"), /dot@example\.org/);
    const act = async (action, bot, check) => {
      // The list is drawn again after each change: wait for the button, then press it.
      const button = `button[data-action=${action}][data-bot="${bot}"]`;
      await page.waitForSelector(button);
      await page.click(button);
      await until(`${action} ${bot}`, async () => check(cli(grpcPort, "admin", "list", "--removed", "--search", "do")));
      await page.waitForSelector("#accounts table");
    };
    answers.push("dora");
    await act("rename", "dot", (out) => /^dora\s/m.test(out));
    await act("disable", "dora", (out) => /^dora\s.*disabled/m.test(out));
    await act("enable", "dora", (out) => /^dora\s.*offline/m.test(out));
    await page.waitForSelector(`button[data-action=rotate][data-bot="dora"]`);
    await page.click(`button[data-action=rotate][data-bot="dora"]`);
    await page.waitForFunction((old) => {
      const b = document.querySelector("#new-token [data-copy]");
      return b && b.getAttribute("data-copy") !== old;
    }, {}, firstToken);
    await act("remove", "dora", (out) => /^dora\s.*removed/m.test(out));
    const log = cli(grpcPort, "admin", "log", "--target", "dot");
    assert.match(log, /register-bot/);
    // The public tournament list shows the status and the start too.
    await page.goto(base + "#/tournaments", { waitUntil: "load" });
    // The hash changes at once, the view when its data is in: wait for the view itself.
    await page.waitForFunction(() => document.title.startsWith("Tournaments") && document.querySelector("table"));
    assert.match(await page.$eval("table", (e) => e.textContent), /cancelled/);
    await page.click("#sign-out").catch(() => undefined);

    // Plain HTTP beyond this machine: a warning, and no way to send the token.
    const remote = await browser.newPage();
    await remote.goto(`http://skat.test:${webPort}/#/operator`, { waitUntil: "load" });
    await remote.waitForSelector("#insecure");
    assert.ok(await remote.$eval("#token-form button[type=submit]", (b) => b.disabled), "sign-in is disabled");
  } finally {
    await browser.close();
    for (const p of procs) p.kill();
    rmSync(data, { recursive: true, force: true });
  }
});
