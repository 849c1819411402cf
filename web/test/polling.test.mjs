// One timer or stream per view (issue 67): every view of the page is opened in its own tab
// of a real headless Chromium against `skat serve --demo` with house bots and a
// tournament, and its calls to the server are counted in two windows of 30 s over a minute: a page
// left open asks as often later as it did at first, and no more than its one timer
// allows. Then the reader moves between views while answers are in flight: the view it
// ends on is the one shown, and no other view's calls go on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import puppeteer from "puppeteer-core";
import { chromium, freePort, skat, until } from "./support/env.mjs";

/** The views, the most calls each may make in 30 s once drawn (its one timer; a live
 * table's one stream, opened again only when it breaks), and the fewest a view that polls
 * makes. */
const VIEWS = [
  ["#/", 12, 7],
  ["#/tables/live", 12, 7],
  ["#/tournaments", 2],
  ["#/leaderboard", 2],
  ["#/play", 2],
  ["#/operator", 2],
  ["#/my-bot", 2],
];

test("every view asks at one steady rate, and leaves nothing behind", { timeout: 300000 }, async () => {
  assert.ok(chromium, "Chromium is installed (scripts/test-all installs the Debian package)");
  const data = mkdtempSync(path.join(os.tmpdir(), "skat-polling-"));
  const [grpcPort, webPort] = [await freePort(), await freePort()];
  const server = spawn(skat, ["serve", "--demo", "--demo-delay", "300ms", "--addr", `127.0.0.1:${grpcPort}`,
    "--web-addr", `127.0.0.1:${webPort}`, "--metrics-addr", "off", "--admin-token", "op", "--data-dir", data,
    "--house-bots", "random,heuristic"], { stdio: ["ignore", "pipe", "inherit"] });
  let printed = "";
  server.stdout.on("data", (d) => { printed += d; });
  const browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
  try {
    await until("the server prints the page's address", () => printed.includes(`http://127.0.0.1:${webPort}/`), 120000);
    const base = `http://127.0.0.1:${webPort}/`;
    // A tournament of the house bots with a third account, so that its view polls.
    const cli = (...args) => spawnSync(skat, [...args, "--server", `http://127.0.0.1:${grpcPort}`], { encoding: "utf8", env: { ...process.env, SKAT_ADMIN_TOKEN: "op" } });
    cli("admin", "register-bot", "--name", "third");
    await until("the house bots are online", () => /house-random/.test(cli("admin", "online").stdout), 60000);
    const made = cli("tournament", "create", "--name", "polled", "--entrants", "house-random,house-heuristic,third", "--deals", "36");
    const tid = /^tournament (\S+)/m.exec(made.stdout)?.[1];
    assert.ok(tid, `a tournament: ${made.stdout} ${made.stderr}`);
    const live = /^demo table: (\S+)/m.exec(printed)?.[1] ?? (await until("a live table", async () => {
      const l = cli("table", "list", "--filter", "live").stdout.split("\n").slice(1).find((x) => /playing/.test(x));
      return l?.split(/\s+/)[0];
    }));
    const views = [...VIEWS, [`#/tournament/${tid}`, 7, 3], [`#/table/${live}`, 4], ["#/tv", 20]];

    const opened = await Promise.all(views.map(async ([hash, most, least = 0]) => {
      const page = await browser.newPage();
      await page.setViewport({ width: 1100, height: 900 });
      // Every tab is measured as the one a reader has in front: Chromium shows one tab at a
      // time, and the page does not poll in a hidden one.
      await page.evaluateOnNewDocument(() => {
        Object.defineProperty(document, "visibilityState", { get: () => "visible" });
        Object.defineProperty(document, "hidden", { get: () => false });
      });
      const calls = [];
      page.on("request", (r) => { if (r.url().includes("/skat.v1.")) calls.push(Date.now()); });
      await page.goto(base + hash, { waitUntil: "load" });
      return { hash, most, least, page, calls, from: Date.now() };
    }));
    await new Promise((r) => setTimeout(r, 65000));
    for (const v of opened) {
      const window = (a, b) => v.calls.filter((at) => at >= v.from + a && at < v.from + b).length;
      // Two windows of 30 s over a minute, after the first draw.
      const first = window(5000, 35000);
      const later = window(35000, 65000);
      assert.ok(first <= v.most && later <= v.most, `${v.hash}: ${first} then ${later} calls in 30 s (at most ${v.most})`);
      assert.ok(first >= v.least && later >= v.least, `${v.hash}: ${first} then ${later} calls in 30 s (at least ${v.least}: it keeps polling)`);
      // A timer that multiplies grows; a steady one does not (a live table's events vary).
      if (v.most < 100) assert.ok(later <= first + 1, `${v.hash}: ${first} calls in the first 30 s, ${later} in the next`);
      console.log(`  ${v.hash}: ${first} calls in 30 s, then ${later}`);
      await v.page.close();
    }

    // Moving between views while answers are in flight: the last one asked for is shown,
    // and the tables' timer does not outlive its view.
    const page = await browser.newPage();
    const listed = [];
    page.on("request", (r) => { if (r.url().includes("ListTables")) listed.push(Date.now()); });
    await page.goto(base + "#/", { waitUntil: "load" });
    for (const hash of ["#/tournaments", "#/", "#/leaderboard", "#/", "#/play"]) {
      await page.evaluate((h) => { location.hash = h; }, hash);
      await new Promise((r) => setTimeout(r, 150));
    }
    await page.waitForSelector("#play-form, form", { timeout: 20000 });
    await new Promise((r) => setTimeout(r, 1000));
    const settled = Date.now();
    await new Promise((r) => setTimeout(r, 8000));
    assert.equal(await page.evaluate(() => location.hash), "#/play", "the address stays where the reader went");
    assert.ok(await page.$("#play-form, form"), "the play view is shown, not the tables drawn over it");
    assert.equal(listed.filter((at) => at > settled).length, 0, "the tables' timer stopped with its view");
  } finally {
    await browser.close();
    server.kill("SIGTERM");
    rmSync(data, { recursive: true, force: true });
  }
});
