// The spectator page in a real headless Chromium (the Debian package; puppeteer-core
// downloads no browser) against a running `skat serve --demo`: the table list shows the
// demo table, the live table advances (a card appears in the trick), a finished deal
// replays move by move, and during a deal no card of a hand is in the DOM. Screenshots
// of every view go to a folder printed at the end; the action-to-page latency and the
// page's transferred size are printed too (docs/BENCHMARKS.md).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import path from "node:path";
import puppeteer from "puppeteer-core";
import { chromium, freePort, repo, skat, until } from "./support/env.mjs";

const shots = process.env.SKAT_SCREENSHOTS || path.join(repo, "target", "web-screenshots");

test("the spectator page in a real browser", { timeout: 240000 }, async () => {
  assert.ok(chromium, "Chromium is installed (scripts/test-all installs the Debian package)");
  mkdirSync(shots, { recursive: true });
  const [grpcPort, webPort] = [await freePort(), await freePort()];
  const server = spawn(skat, ["serve", "--demo", "--demo-delay", "150ms", "--addr", `127.0.0.1:${grpcPort}`,
    "--web-addr", `127.0.0.1:${webPort}`, "--metrics-addr", "off", "--admin-token", "op"], { stdio: ["ignore", "pipe", "inherit"] });
  const bots = [];
  let printed = "";
  server.stdout.on("data", (d) => { printed += d; });
  const browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
  try {
    await until("the server prints the page's address", () => printed.includes(`http://127.0.0.1:${webPort}/`));
    const base = `http://127.0.0.1:${webPort}/`;
    const page = await browser.newPage();
    await page.setViewport({ width: 1100, height: 900 });
    const requests = [];
    let transferred = 0;
    page.on("request", (r) => requests.push(r.url()));
    let firstLoad = true;
    page.on("response", (r) => {
      if (firstLoad && r.request().resourceType() !== "fetch") transferred += Number(r.headers()["content-length"] ?? 0);
    });

    // The table list shows the demo table.
    await page.goto(base, { waitUntil: "load" });
    await page.waitForSelector("table a[href^='#/table/']");
    const tables = await page.$$eval("table a[href^='#/table/']", (as) => as.map((a) => ({ href: a.getAttribute("href"), text: a.textContent })));
    const demo = tables.find((t) => /demo/i.test(t.text)) ?? tables[0];
    assert.ok(demo, `the demo table is listed: ${JSON.stringify(tables)}`);
    firstLoad = false;
    await page.screenshot({ path: path.join(shots, "1-tables.png"), fullPage: true });
    assert.ok(requests.every((u) => u.startsWith(base)), `no third-party request: ${requests.filter((u) => !u.startsWith(base))}`);

    // The live table advances: a card appears in the trick; no hand is in the DOM.
    await page.goto(base + demo.href, { waitUntil: "load" });
    await page.waitForSelector("#table");
    let checks = 0;
    const noCommentInDom = async () => assert.equal(await page.$$eval("q.comment", (q) => q.length), 0, "no comment during the deal");
    const noHandInDom = async () => {
      const seen = await page.evaluate(() => {
        const t = document.querySelector("#table");
        if (!t) return null;
        const deal = t.getAttribute("data-deal");
        const phase = t.getAttribute("data-phase");
        const cards = Array.from(document.querySelectorAll("[data-card]"))
          .filter((c) => c.getAttribute("data-deal") === deal)
          .map((c) => c.getAttribute("data-where"));
        return { phase, cards };
      });
      if (!seen || seen.phase === "NONE" || seen.phase === "FINISHED") return;
      checks++;
      for (const where of seen.cards) {
        assert.ok(["trick", "taken", "open", "skat"].includes(where), `a card of the current deal shown as ${where} during ${seen.phase}`);
      }
    };
    await until("a card appears in the trick", async () => {
      await noHandInDom();
      return (await page.$$("#trick [data-card]")).length > 0;
    }, 120000);
    await page.screenshot({ path: path.join(shots, "2-live-table.png"), fullPage: true });
    // Keep watching for a while: every render keeps hands out of the DOM.
    const start = await page.evaluate(() => window.__skat.renders);
    await until("the table advances", async () => {
      await noHandInDom();
      return (await page.evaluate(() => window.__skat.renders)) > start + 20;
    }, 120000);
    assert.ok(checks > 10, `the DOM was checked during deals (${checks} times)`);

    // A finished deal that was played (not passed in) replays move by move.
    const played = () => page.evaluate(() => {
      for (const row of Array.from(document.querySelectorAll("tr"))) {
        const a = row.querySelector("a[href^='#/replay/']");
        const game = row.children[1]?.textContent ?? "";
        if (a && game && !game.includes("passed in")) return a.getAttribute("href");
      }
      return null;
    });
    const replay = await until("a played deal finished", async () => {
      await noHandInDom();
      await noCommentInDom();
      return await played();
    }, 180000);
    await page.screenshot({ path: path.join(shots, "3-after-a-deal.png"), fullPage: true });
    const latencies = await page.evaluate(() => window.__skat.latencies);
    await page.goto(base + replay, { waitUntil: "load" });
    await page.waitForSelector("#next, .error, h1 + p", { timeout: 30000 });
    await page.screenshot({ path: path.join(shots, "4-replay-start.png"), fullPage: true });
    const moves = await page.$$eval(".moves li", (li) => li.length);
    // The declarer's comment (the demo's heuristic players say why they declared) shows
    // beside its move once the deal is over; the random player says nothing.
    const comments = await page.$$eval(".moves q.comment", (q) => q.map((e) => e.textContent));
    assert.ok(comments.every((c) => /^declared on \d jacks/.test(c)), `comments: ${comments}`);
    assert.ok(moves > 3, "the deal has its moves");
    // The demo table is still in play: no analysis of any of its deals yet.
    await page.waitForFunction(() => /still in play/.test(document.querySelector("#analysis-status")?.textContent ?? ""), { timeout: 30000 });
    assert.equal(await page.$$eval(".moves .mark", (m) => m.length), 0, "no mark while the table plays");
    assert.equal(await page.$eval("#step", (e) => e.textContent), `move 0 of ${moves}`);
    let trickCardsSeen = 0;
    for (let i = 1; i <= moves; i++) {
      await page.keyboard.press("ArrowRight");
      assert.equal(await page.$eval("#step", (e) => e.textContent), `move ${i} of ${moves}`);
      trickCardsSeen = Math.max(trickCardsSeen, (await page.$$("#replay-trick [data-card]")).length);
      if (i === Math.min(moves, 12)) await page.screenshot({ path: path.join(shots, "4-replay.png"), fullPage: true });
    }
    assert.ok(trickCardsSeen > 0, "cards appear in the replayed tricks");
    await page.click("#prev");
    assert.equal(await page.$eval("#step", (e) => e.textContent), `move ${moves - 1} of ${moves}`);
    await page.click("#first");
    assert.equal(await page.$eval("#step", (e) => e.textContent), `move 0 of ${moves}`);

    // A small tournament of three lobby bots, then its page, the leaderboard and a bot's page.
    const cli = (...args) => new Promise((resolve, reject) => {
      const p = spawn(skat, args, { stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      p.stdout.on("data", (d) => { out += d; });
      p.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`skat ${args.join(" ")}: ${code}`))));
    });
    const server_ = ["--server", `127.0.0.1:${grpcPort}`];
    for (const [name, strategy] of [["Ada", "heuristic"], ["Bo", "heuristic"], ["Cy", "random"]]) {
      const out = await cli("admin", "register-bot", "--name", name, ...server_);
      const token = out.split("\n").find((l) => l.startsWith("bot token ")).slice("bot token ".length);
      bots.push(spawn(skat, ["bot", "--strategy", strategy, ...server_, "--bot-token", token], { stdio: "ignore" }));
    }
    const created = await cli("tournament", "create", "--name", "browser cup", "--entrants", "Ada,Bo,Cy", "--deals", "2",
      "--action-timeout", "5s", "--deal-clock", "0s", "--admin-token", "op", ...server_);
    const tid = created.split(/\s+/)[1];
    await page.goto(base + "#/tournaments", { waitUntil: "load" });
    await page.waitForSelector(`a[href="#/tournament/${tid}"]`);
    await page.screenshot({ path: path.join(shots, "5-tournaments.png"), fullPage: true });
    await page.goto(base + `#/tournament/${tid}`, { waitUntil: "load" });
    await until("the tournament finishes", async () => {
      await page.reload({ waitUntil: "load" });
      await page.waitForSelector("h1");
      return (await page.$eval("#tournament-status", (m) => m.textContent)).includes(" · finished · ");
    }, 120000);
    const standings = await page.$$eval("table", (ts) => ts[0].querySelectorAll("tbody tr").length);
    assert.equal(standings, 3, "three entrants in the standings");
    // The deals played are the ones committed at creation, checked in the browser.
    await page.click("#verify-deals");
    await page.waitForFunction(() => /^verified: the \d+ deals of 3 tables/.test(document.querySelector("#deals-verified")?.textContent ?? ""), { timeout: 30000 });
    await page.screenshot({ path: path.join(shots, "6-tournament.png"), fullPage: true });
    // A finished table's replay carries its analysis: the curve with the current card,
    // every player's accuracy, marks whose titles give both verdicts.
    const finished = await page.$eval("a[href^='#/table/']", (a) => a.getAttribute("href").slice("#/table/".length));
    let analysed = null;
    for (const d of [1, 2]) {
      await page.goto(base + `#/replay/${finished}/${d}`, { waitUntil: "load" });
      await until("the table's analysis is ready", async () => (await page.$("#analysis h3")) !== null, 90000);
      if (await page.$("#analysis-curve")) { analysed = d; break; }
    }
    assert.notEqual(analysed, null, "a deal of the table was played and analysed");
    assert.ok((await page.$$eval("#analysis tbody tr", (r) => r.length)) >= 2, "accuracy of the declarer and a defender");
    // The bidding and the game, judged by simulation: the game declared, with its value.
    const choice = await page.$eval("#game-choice", (e) => e.textContent);
    assert.match(choice, /Bidding and game.*Declared .*\(worth \d+, won \d+%, expected [+-]?[\d.]+ SF\)/, choice);
    const titles = await page.$$eval(".moves .mark", (m) => m.map((e) => e.getAttribute("title")));
    assert.ok(titles.every((t) => t.startsWith("With all cards open")), `marks: ${titles}`);
    const before = await page.$eval("#analysis-now", (c) => c.getAttribute("cx"));
    await page.click("#last");
    assert.notEqual(await page.$eval("#analysis-now", (c) => c.getAttribute("cx")), before, "the curve follows the replay");
    await page.screenshot({ path: path.join(shots, "6b-analysis.png"), fullPage: true });
    await page.goto(base + "#/leaderboard", { waitUntil: "load" });
    await page.waitForSelector("a[href='#/bot/Ada']");
    // Only house bots carry a level of the ladder: these are bot authors' accounts.
    assert.equal((await page.$$("span.level")).length, 0, "no bot of this tournament is marked as a level");
    await page.screenshot({ path: path.join(shots, "7-leaderboard.png"), fullPage: true });
    await page.click("a[href='#/bot/Ada']");
    await page.waitForSelector("svg.chart");
    assert.match(await page.$eval("svg.chart", (s) => s.getAttribute("aria-label")), /Rating over 3 lists/);
    assert.ok((await page.$$("svg.chart text.axis")).length >= 2, "the rating chart has a time axis");
    assert.ok((await page.$$eval("a[href^='#/tournament/']", (as) => as.map((a) => a.textContent))).includes("browser cup"),
      "recent lists name their tournament");
    await page.screenshot({ path: path.join(shots, "8-bot.png"), fullPage: true });

    // A tournament's table names its tournament and links its players.
    await page.goto(base + `#/table/${encodeURIComponent(finished)}`, { waitUntil: "load" });
    await page.waitForSelector(`#table a[href="#/tournament/${tid}"]`);
    assert.ok((await page.$$("#table a[href^='#/bot/']")).length >= 3, "the players link to their pages");
    // TV follows the demo table, which is still being played.
    await page.goto(base + "#/tv", { waitUntil: "load" });
    await page.waitForSelector("#tv");
    await page.waitForSelector("#table");

    // A phone screen: the live table fits its width.
    await page.setViewport({ width: 390, height: 844, isMobile: true });
    await page.goto(base + demo.href, { waitUntil: "load" });
    await page.waitForSelector("#table");
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `no horizontal scrolling on a phone (${overflow} px)`);
    await page.screenshot({ path: path.join(shots, "9-phone.png"), fullPage: true });

    // A slow answer never covers the page asked for since: the tables list is asked for
    // and left at once for the operator's page (whose form draws without waiting); the
    // list's answer, arriving after, must not draw, nor start refreshing.
    await page.goto(base + "#/", { waitUntil: "load" });
    await page.waitForSelector("#app h1");
    await page.evaluate(() => {
      location.hash = "#/tables/all";
      setTimeout(() => { location.hash = "#/operator"; }, 0);
    });
    await page.waitForSelector("#token-form");
    await new Promise((r) => setTimeout(r, 3500));
    assert.ok(await page.$("#token-form"), "the operator's page is still shown");
    assert.equal(await page.$eval("#app h1", (e) => e.textContent), "Operator");

    const sorted = [...latencies].sort((a, b) => a - b);
    const q = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    console.log(`action to page: p50 ${q(0.5)} ms, p99 ${q(0.99)} ms over ${sorted.length} events; page transferred ${transferred} bytes`);
    console.log(`screenshots: ${shots}`);
  } finally {
    for (const b of bots) b.kill();
    await browser.close();
    server.kill("SIGTERM");
  }
});
