// On a server that lets visitors only watch (`--anonymous spectate`), `#/play` says so
// before offering a form the server would refuse, and offers what works there: the seat
// the operator hands out. `skat table create --take-seats --page URL` prints a seat link
// per seat; opening it takes the seat into the tab and leaves no token in the address or
// the history; a table id and seat token pasted into the form do the same.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import puppeteer from "puppeteer-core";
import { chromium, freePort, skat, until } from "./support/env.mjs";

test("a watch-only server: seats from the operator, by link or by token", { timeout: 120000 }, async () => {
  assert.ok(chromium, "Chromium is installed (scripts/test-all installs the Debian package)");
  const data = mkdtempSync(path.join(os.tmpdir(), "skat-watch-only-"));
  const [grpcPort, webPort] = [await freePort(), await freePort()];
  const server = spawn(skat, ["serve", "--addr", `127.0.0.1:${grpcPort}`, "--web-addr", `127.0.0.1:${webPort}`,
    "--metrics-addr", "off", "--admin-token", "op", "--anonymous", "spectate", "--data-dir", data], { stdio: ["ignore", "pipe", "inherit"] });
  let printed = "";
  server.stdout.on("data", (d) => { printed += d; });
  const browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
  try {
    await until("the server is up", () => printed.includes(`http://127.0.0.1:${webPort}/`));
    const base = `http://127.0.0.1:${webPort}/`;
    const page = await browser.newPage();
    await page.goto(base + "#/play", { waitUntil: "load" });
    await page.waitForSelector("#watch-only");
    assert.equal(await page.$("#play-form"), null, "no form the server would refuse");
    assert.match(await page.$eval("#watch-only", (e) => e.textContent), /watch/);
    assert.ok(await page.$("#seat-form"), "the way in: a seat token");

    const made = spawnSync(skat, ["table", "create", "--server", `127.0.0.1:${grpcPort}`, "--create-token", "op", "--deals", "1",
      "--take-seats", "--seat-names", "Hans,Grete,Karl", "--page", base], { encoding: "utf8" });
    assert.equal(made.status, 0, made.stderr);
    const tableId = made.stdout.match(/^table (\S+)/m)[1];
    const links = [...made.stdout.matchAll(/^\s+link\s+(http\S+)/gm)].map((m) => m[1]);
    const tokens = [...made.stdout.matchAll(/token (\S+)/g)].map((m) => m[1]);
    assert.equal(links.length, 3, made.stdout);

    // Hans opens his link: the seat is his, and the token is gone from the address.
    await page.goto(links[0], { waitUntil: "load" });
    await page.waitForFunction(() => location.hash.startsWith("#/table/"));
    await page.waitForSelector("#my-seat");
    assert.ok(!page.url().includes(tokens[0]), page.url());
    const kept = await page.evaluate((id) => JSON.parse(sessionStorage.getItem(`skat-seat:${id}`)), tableId);
    assert.deepEqual([kept.seat, kept.name], [0, "Hans"]);
    // Back does not lead to the link: it was replaced in the history.
    const history = await page.evaluate(() => history.length);
    await page.goBack().catch(() => undefined);
    assert.ok(!page.url().includes(tokens[0]), `after back: ${page.url()} (history ${history})`);

    // Grete pastes the table id and her token into the form.
    const grete = await browser.newPage();
    await grete.goto(base + "#/play", { waitUntil: "load" });
    await grete.waitForSelector("#seat-form");
    await grete.type("#seat-table", tableId);
    await grete.type("#seat-token", tokens[1]);
    await grete.click("#seat-form button[type=submit]");
    await grete.waitForSelector("#my-seat");
    const hers = await grete.evaluate((id) => JSON.parse(sessionStorage.getItem(`skat-seat:${id}`)), tableId);
    assert.deepEqual([hers.seat, hers.name], [1, "Grete"]);
    // A wrong token is refused in words.
    const stranger = await browser.newPage();
    await stranger.goto(base + "#/play", { waitUntil: "load" });
    await stranger.waitForSelector("#seat-form");
    await stranger.type("#seat-table", tableId);
    await stranger.type("#seat-token", "not-a-token");
    await stranger.click("#seat-form button[type=submit]");
    await stranger.waitForFunction(() => document.querySelector("#seat-error")?.textContent);
  } finally {
    await browser.close();
    server.kill();
    rmSync(data, { recursive: true, force: true });
  }
});
