// A person plays from the page in a real headless Chromium, against the server's house
// bots (`skat serve --house-bots random,heuristic`): `#/play` makes a table with both bots
// and takes the last seat; the person bids, picks up or passes, puts two cards away,
// declares and plays cards by clicking, the page is reloaded in the middle of the deal and
// the seat goes on; a second table is played by keyboard alone at phone width, in German
// (the language switch: the seat's words and the cards' spoken names). At every
// step no card of another seat is in the DOM: every card shown as the person's hand is,
// by the records after the deal, in the person's hand as dealt (or the skat it picked up),
// and no other card is shown but those the rules reveal (the trick, tricks taken, an open
// hand, the skat to its declarer, a finished deal).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import puppeteer from "puppeteer-core";
import { chromium, freePort, repo, skat, until } from "./support/env.mjs";

const shots = process.env.SKAT_SCREENSHOTS || path.join(repo, "target", "web-screenshots");

/** Where the page may show a card during a deal besides the person's own hand. */
const PUBLIC = new Set(["trick", "taken", "open", "skat", "dealt", "replay"]);

test("a person plays the bots from the page", { timeout: 300000 }, async () => {
  assert.ok(chromium, "Chromium is installed (scripts/test-all installs the Debian package)");
  mkdirSync(shots, { recursive: true });
  const data = mkdtempSync(path.join(os.tmpdir(), "skat-play-"));
  const [grpcPort, webPort] = [await freePort(), await freePort()];
  const server = spawn(skat, ["serve", "--addr", `127.0.0.1:${grpcPort}`, "--web-addr", `127.0.0.1:${webPort}`,
    "--metrics-addr", "off", "--admin-token", "op", "--data-dir", data, "--house-bots", "random,heuristic"],
  { stdio: ["ignore", "ignore", "inherit"] });
  // skat.test resolves to this machine but is not "this machine" to the page (plain HTTP).
  const browser = await puppeteer.launch({ executablePath: chromium, headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP skat.test 127.0.0.1"] });
  try {
    const base = `http://127.0.0.1:${webPort}/`;
    const page = await browser.newPage();
    await page.setViewport({ width: 1100, height: 900 });

    // The house bots come online; the play form offers them.
    await until("the house bots are offered", async () => {
      await page.goto(base + "#/play", { waitUntil: "load" }).catch(() => undefined);
      await page.waitForSelector("#play-form", { timeout: 5000 }).catch(() => undefined);
      return (await page.$$eval("#opponent-0 option", (o) => o.map((x) => x.value)).catch(() => [])).includes("house-heuristic");
    }, 60000);
    await page.screenshot({ path: path.join(shots, "10-play-form.png"), fullPage: true });
    // Over plain HTTP beyond this machine nobody sits down: the token would travel in clear.
    const remote = await browser.newPage();
    await remote.goto(`http://skat.test:${webPort}/#/play`, { waitUntil: "load" });
    await remote.waitForSelector("#insecure");
    assert.equal(await remote.$("#play-form"), null, "no form on an insecure origin");
    await remote.close();

    /** Plays the table the form makes to its end; `press` clicks or uses the keyboard. */
    const playTable = async (name, deals, press, reloadAfter) => {
      await page.goto(base + "#/play", { waitUntil: "load" });
      await page.waitForSelector("#play-form");
      await page.select("#opponent-0", "house-random");
      await page.select("#opponent-1", "house-heuristic");
      await page.$eval("#player-name", (e, v) => { e.value = v; }, name);
      await page.$eval("#deals", (e, v) => { e.value = v; }, String(deals));
      await press("#start");
      await page.waitForSelector("#table");
      const tableId = decodeURIComponent(page.url().split("#/table/")[1]);
      const seen = new Set(); // cards shown as this person's hand
      let steps = 0;
      let discarded = false;
      let said = 0; // the person bids on until it declares (the bots pass at their limits)
      let shot = false;
      for (;;) {
        // Nothing but the person's own hand and what the rules reveal.
        const cards = await page.$$eval("[data-card]", (els) => els.map((e) => [e.getAttribute("data-card"), e.getAttribute("data-where")]));
        for (const [card, where] of cards) {
          if (where === "hand") seen.add(card);
          else assert.ok(PUBLIC.has(where), `a card shown as ${where}: ${card}`);
        }
        const status = await page.$eval("#table .status", (e) => e.getAttribute("data-status")).catch(() => "");
        if (status === "FINISHED") break;
        // The person's move, if it is its turn: a card, two cards to put away, a bid
        // (once), hold, pick up, a contract; else pass.
        const choice = await page.evaluate((said) => {
          const enabled = (sel) => Array.from(document.querySelectorAll(sel)).filter((b) => !b.disabled).map((b) => `#${CSS.escape(b.id)}`);
          const discard = document.getElementById("discard");
          if (discard) {
            const pressed = document.querySelectorAll("#my-hand [aria-pressed=true]").length;
            if (pressed < 2) return enabled("#my-hand [aria-pressed=false]")[0];
            return "#discard";
          }
          return enabled("#my-hand .card-button")[0] || (said < 40 && enabled("[id^=say-]")[0]) || enabled("#hold")[0] ||
            enabled("#pick-up")[0] || enabled("[id^=declare-]")[0] || enabled("#pass")[0] || null;
        }, said);
        // The seat's words are the page's language.
        const turn = await page.$eval("#my-turn", (e) => e.textContent).catch(() => null);
        if (turn) words.all.add(turn);
        const spoken = await page.$$eval("#my-hand [data-card]", (els) => els.map((e) => e.getAttribute("aria-label")));
        for (const label of spoken) words.all.add(label);
        if (choice) {
          if (process.env.SKAT_PLAY_TRACE) console.log(`${name}: ${choice}`);
          if (choice.startsWith("#say-")) said++;
          if (choice === "#discard") discarded = true;
          const seq = await page.$eval("#table", (t) => t.getAttribute("data-seq"));
          await press(choice);
          steps++;
          if (!shot && steps >= 8) {
            shot = true;
            await page.screenshot({ path: path.join(shots, `11-${name}-playing.png`), fullPage: true });
          }
          // Wait for the table to move on (or for the choice to change, when it was a card
          // chosen to put away).
          await until("the table moves on", async () =>
            choice.startsWith("#card-") && (await page.$("#discard")) ? true
              : (await page.$eval("#table", (t) => t.getAttribute("data-seq")).catch(() => seq)) !== seq, 30000);
          if (steps === reloadAfter) {
            // A reload mid-deal: the seat is held by this tab and the game goes on.
            await page.reload({ waitUntil: "load" });
            await page.waitForSelector("#my-seat", { timeout: 30000 });
          }
        } else {
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      assert.ok(steps > 10, `${name} made its decisions (${steps})`);
      assert.ok(words[words.lang].some((w) => words.all.has(w)), `${name} saw its turn in ${words.lang}: ${[...words.all].slice(0, 5)}`);
      assert.ok(discarded, `${name} declared a game: it put two cards away`);
      return { tableId, seen };
    };

    // Words each language must show at a seat (a turn, a card's spoken name).
    const words = {
      lang: "en",
      all: new Set(),
      en: ["Your turn: play a card.", "Your turn.", "Your turn: choose two cards to put away.", "Waiting for the others."],
      de: ["Du bist dran: spiel eine Karte.", "Du bist dran.", "Du bist dran: wähle zwei Karten zum Drücken.", "Warte auf die anderen."],
    };
    const click = async (sel) => page.click(sel);
    const first = await playTable("clicker", 1, click, 6);
    await page.screenshot({ path: path.join(shots, "12-played.png"), fullPage: true });

    // English by default (this browser prefers it): the seat's words.
    assert.equal(await page.$eval("html", (e) => e.lang), "en");
    // By keyboard alone, at phone width, in German (the switch, kept for the next visit).
    await page.setViewport({ width: 390, height: 844, isMobile: true });
    await page.select("#lang", "de");
    await page.waitForFunction(() => document.querySelector("a[href='#/play']")?.textContent === "Spielen");
    words.lang = "de";
    const key = async (sel) => { await page.focus(sel); await page.keyboard.press("Enter"); };
    const second = await playTable("keys", 2, key, -1);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `no horizontal scrolling on a phone (${overflow} px)`);
    await page.screenshot({ path: path.join(shots, "13-phone-played.png"), fullPage: true });

    // The hands the person saw are its own: checked against the records (the deals as
    // dealt; the skat too, which it holds after picking it up as declarer).
    for (const [who, played] of [["clicker", first], ["keys", second]]) {
      const records = await recordsOf(grpcPort, played.tableId);
      assert.ok(records.length > 0, `${who}'s table has its records`);
      const mine = new Set();
      for (const r of records) {
        const at = r.position_names.indexOf(who);
        assert.ok(at >= 0, `${who} sat at every deal: ${r.position_names}`);
        for (const c of r.dealt.hands[at]) mine.add(c);
        const declared = r.moves.some((m) => m.action === "pick_up_skat" && r.position_names[["Forehand", "Middlehand", "Rearhand"].indexOf(m.position)] === who);
        if (declared) for (const c of r.dealt.skat) mine.add(c);
      }
      assert.ok(played.seen.size >= 10, `${who} saw its hand`);
      for (const c of played.seen) assert.ok(mine.has(c), `${who} was shown ${c}, not its card`);
    }
    // Cards were named in each language: "jack of clubs" in English, "Kreuz Bube" in German.
    assert.ok([...words.all].some((w) => / of (clubs|spades|hearts|diamonds)$/.test(w)), "English card names");
    assert.ok([...words.all].some((w) => /^(Kreuz|Pik|Herz|Karo) (Sieben|Acht|Neun|Zehn|Bube|Dame|König|Ass)$/.test(w)), "German card names");

    // The house bots are marked as the ladder's levels on their pages (and on the
    // leaderboard, by the same mark).
    for (const [bot, level] of [["house-random", "1"], ["house-heuristic", "2"]]) {
      await page.goto(base + `#/bot/${bot}`, { waitUntil: "load" });
      await page.waitForSelector("#level .level");
      assert.equal(await page.$eval("#level .level", (e) => e.getAttribute("data-level")), level, bot);
      assert.match(await page.$eval("#level .level", (e) => e.textContent), new RegExp(`^Stufe ${level} · `));
    }
  } finally {
    await browser.close();
    server.kill("SIGTERM");
    rmSync(data, { recursive: true, force: true });
  }
});

/** A table's JSON records, through `skat` (GetRecords). */
async function recordsOf(port, tableId) {
  const text = await new Promise((resolve, reject) => {
    const p = spawn(skat, ["table", "records", tableId, "--format", "json", "--server", `127.0.0.1:${port}`], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    p.stdout.on("data", (d) => { out += d; });
    p.on("exit", (code) => (code === 0 ? resolve(out) : reject(new Error(`skat table records: ${code}`))));
  });
  return text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
}
