// A person plays from the page in a real headless Chromium, against the server's house
// bots (`skat serve --house-bots random,heuristic`): `#/play` makes a table with both bots
// and takes the last seat; the person bids, picks up or passes, puts two cards away,
// declares and plays cards by clicking, the page is reloaded in the middle of the deal and
// the seat goes on; a second table is played at phone width by touch (cards tapped) and
// keys (every other decision), with a reload mid-deal, in German
// (the language switch: the seat's words and the cards' spoken names). At every
// step no card of another seat is in the DOM: every card shown as the person's hand is,
// by the records after the deal, in the person's hand as dealt (or the skat it picked up),
// and no other card is shown but those the rules reveal (the trick, tricks taken, an open
// hand, the skat to its declarer, a finished deal). The card table: the hand is sorted
// for the game declared (jacks, the trump suit, the other suits, each high to low; null
// in its own order); every legal bid value can be said (one from the box); claim and
// resign ask once (a single press changes nothing); the last trick stays in place and
// comes back with L; the end-of-deal sheet's card points add up to 120 and agree with
// the server's; no third opponent is asked for at a table of three. A screenshot of
// every phase at both widths goes to target/web-screenshots/.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import puppeteer from "puppeteer-core";
import { chromium, freePort, repo, skat, until } from "./support/env.mjs";

const shots = process.env.SKAT_SCREENSHOTS || path.join(repo, "target", "web-screenshots");

/** The ladder of bid values (ISkO). */
const LADDER = [18, 20, 22, 23, 24, 27, 30, 33, 35, 36, 40, 44, 45, 46, 48, 50, 54, 55, 59, 60, 63, 66, 70, 72, 77, 80, 81, 84, 88,
  90, 96, 99, 100, 108, 110, 117, 120, 121, 126, 130, 132, 135, 140, 143, 144, 150, 153, 154, 156, 160, 162, 165, 168, 170, 176, 180,
  187, 192, 198, 204, 216, 240, 264];

/** Whether `codes` (ISS codes as the hand shows them, e.g. CJ, HA, DT) are sorted for
 * `game` (GAME_TYPE name): jacks first from clubs down (not in null), then one suit after
 * another, the trump suit first, each high to low (A 10 K Q 9 8 7, or null's A K Q J 10 9 8 7). */
function sortedFor(codes, game) {
  const nullGame = game === "NULL";
  const trump = { DIAMONDS: "D", HEARTS: "H", SPADES: "S", CLUBS: "C" }[game];
  const order = nullGame ? "AKQJT987" : "AT KQ987".replace(" ", "");
  let i = 0;
  if (!nullGame) {
    const jacks = codes.filter((c) => c[1] === "J");
    if (jacks.join() !== codes.slice(0, jacks.length).join()) return false;
    if (jacks.join() !== ["CJ", "SJ", "HJ", "DJ"].filter((j) => jacks.includes(j)).join()) return false;
    i = jacks.length;
  }
  const rest = codes.slice(i);
  const suits = [];
  for (const c of rest) if (suits[suits.length - 1] !== c[0]) suits.push(c[0]);
  if (new Set(suits).size !== suits.length) return false; // each suit in one group
  if (trump && rest.some((c) => c[0] === trump) && suits[0] !== trump) return false;
  for (const s of suits) {
    const ranks = rest.filter((c) => c[0] === s).map((c) => order.indexOf(c[1]));
    if (ranks.some((r, k) => k > 0 && r < ranks[k - 1])) return false;
  }
  return true;
}

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
    await page.setViewport({ width: 1280, height: 800 });

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
      assert.ok(await page.$eval("#opponent-2-label", (e) => e.hidden), "no third opponent at a table of three");
      // The strongest level online is offered first and chosen for both seats; every
      // option names its level.
      assert.deepEqual(await page.$$eval("#opponent-0, #opponent-1", (s) => s.map((x) => x.value)), ["house-heuristic", "house-heuristic"]);
      const offered = await page.$$eval("#opponent-0 option", (o) => o.map((x) => x.textContent));
      assert.ok(/2.*heuristic/.test(offered[0]) && /1.*random/.test(offered[1]), `levels named, strongest first: ${offered}`);
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
      const checked = { inWindow: 0, sorted: 0, bidBox: false, jumped: false, confirm: false, lastTrick: false, sheet: 0, phases: new Set() };
      for (;;) {
        // Nothing but the person's own hand and what the rules reveal.
        const cards = await page.$$eval("[data-card]", (els) => els.map((e) => [e.getAttribute("data-card"), e.getAttribute("data-where")]));
        for (const [card, where] of cards) {
          if (where === "hand") seen.add(card);
          else assert.ok(PUBLIC.has(where), `a card shown as ${where}: ${card}`);
        }
        const status = await page.$eval("#table .status", (e) => e.getAttribute("data-status")).catch(() => "");
        if (status === "FINISHED") {
          // The last deal's sheet comes with the end of the list.
          await page.waitForSelector("#sheet-points", { timeout: 15000 });
          await until("the last record is read", async () => (await page.$("#sheet-points[data-server]")) || checked.sheet, 5000).catch(() => undefined);
          await tableChecks(name, checked);
          break;
        }
        await tableChecks(name, checked);
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
        if (choice && choice.startsWith("#say-") && !checked.jumped && (await page.$("#bid-value"))) {
          // A jump bid from the box: the fourth legal value (no button of its own).
          const value = await page.$eval("#bid-value", (e) => e.options[Math.min(3, e.options.length - 1)].value);
          await page.select("#bid-value", value);
          const seq = await page.$eval("#table", (t) => t.getAttribute("data-seq"));
          await press("#say-chosen");
          await until("the jump bid is taken", async () =>
            (await page.$eval("#table", (t) => t.getAttribute("data-seq")).catch(() => seq)) !== seq, 30000);
          const auction = await page.$eval(".auction", (e) => e.textContent);
          assert.ok(auction.includes(` ${value}`), `the jump to ${value} is in the bidding: ${auction}`);
          checked.jumped = true;
          said++;
          continue;
        }
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
      assert.ok(checked.sorted > 0, `${name}: the hand was seen sorted for a declared game`);
      assert.ok(checked.inWindow >= 8, `${name}: the window was checked at its decisions (${checked.inWindow})`);
      assert.ok(checked.bidBox && checked.jumped, `${name}: every legal bid was offered, and one said from the box`);
      assert.ok(checked.confirm, `${name}: resign or claim asked once`);
      assert.ok(checked.lastTrick, `${name}: the last trick stayed in place and came back on demand`);
      assert.ok(checked.sheet > 0, `${name}: an end-of-deal sheet was read`);
      if (deals > 1) {
        assert.ok(checked.sheetReload, `${name}: a sheet between deals was reloaded`);
        assert.ok(checked.paused, `${name}: the person's clock was seen waiting for the pause`);
      }
      return { tableId, seen };
    };

    /** End-of-deal sheets whose card points the page counted from the tricks. */
    let counted = 0;
    /** What the card table promises, checked whenever it applies (`checked` counts). */
    const tableChecks = async (name, checked) => {
      const phase = await page.$eval("#table", (t) => t.getAttribute("data-phase")).catch(() => "");
      if (phase && !checked.phases.has(phase)) {
        checked.phases.add(phase);
        await page.screenshot({ path: path.join(shots, `20-${name}-${phase.toLowerCase()}.png`), fullPage: true });
      }
      // The decision at hand in one window, without scrolling: the hand, the trick, the seat
      // to move with its clock, the controls and the words saying what to do.
      if (!(await page.$("#sheet-points")) && (await page.$("#my-turn.your-turn"))) {
        const outside = await page.evaluate(() => {
          const [width, height] = [window.innerWidth, window.innerHeight];
          const parts = { hand: "#my-hand", trick: "#trick", mover: ".seat.to-move", clock: ".seat.to-move .clock", turn: "#my-turn", actions: "#my-actions" };
          return Object.entries(parts).flatMap(([part, sel]) => {
            const e = document.querySelector(sel);
            if (!e) return [`${part}: missing`];
            const r = e.getBoundingClientRect();
            const inside = r.top >= 0 && r.bottom <= height && r.left >= 0 && r.right <= width;
            return inside ? [] : [`${part} at ${Math.round(r.top)}..${Math.round(r.bottom)} of ${height}`];
          });
        });
        if (outside.length) await page.screenshot({ path: path.join(shots, `fail-${name}-window.png`) });
        assert.deepEqual(outside, [], `${name}: the decision in one window (${await page.$eval("#table", (t) => t.getAttribute("data-phase"))})`);
        checked.inWindow++;
      }
      // The hand sorted for the game declared.
      const game = await page.$eval("#table", (t) => t.getAttribute("data-game")).catch(() => null);
      const hand = await page.$$eval("#my-hand [data-card]", (els) => els.map((e) => e.getAttribute("data-card")));
      if (game && hand.length > 1) {
        assert.ok(sortedFor(hand, game), `${name}: the hand in a ${game} game is sorted for it: ${hand.join(" ")}`);
        checked.sorted++;
      }
      // Every legal bid value is offered.
      if (!checked.bidBox && (await page.$("#bid-value"))) {
        const offered = await page.$$eval("#bid-value option", (o) => o.map((x) => Number(x.value)));
        const quick = await page.$$eval("[id^=say-]:not(#say-chosen)", (b) => b.map((x) => Number(x.id.slice(4))));
        const from = LADDER.indexOf(quick[0]);
        assert.ok(from >= 0, `quick bids are ladder values: ${quick}`);
        assert.deepEqual(offered, LADDER.slice(from), "every value up the ladder from the next one");
        checked.bidBox = true;
      }
      // Resign (or claim) asks once: one press changes nothing at the table.
      const risky = (await page.$("#resign:not([disabled])")) ? "#resign" : (await page.$("#claim:not([disabled])")) ? "#claim" : null;
      if (!checked.confirm && risky) {
        const seq = await page.$eval("#table", (t) => t.getAttribute("data-seq"));
        await page.click(risky);
        assert.equal(await page.$eval(risky, (b) => b.getAttribute("data-armed")), "1", `${risky} armed by one press`);
        await new Promise((r) => setTimeout(r, 400));
        assert.equal(await page.$eval("#table", (t) => t.getAttribute("data-seq")), seq, `one press of ${risky} sent nothing`);
        assert.notEqual(await page.$eval("#table .status", (e) => e.getAttribute("data-status")), "FINISHED");
        checked.confirm = true;
      }
      // The last trick: in place until the next card is led, and again with L.
      if (!checked.lastTrick && (await page.$("#last-taken"))) {
        const inPlace = await page.$$eval("#trick [data-card]", (els) => els.map((e) => e.getAttribute("data-where")));
        assert.deepEqual(inPlace, ["taken", "taken", "taken"], "the trick just taken lies where it was played");
        await page.keyboard.press("l");
        await page.waitForSelector("#last-trick");
        assert.equal((await page.$$("#last-trick [data-card]")).length, 3, "L shows the last trick");
        await page.screenshot({ path: path.join(shots, `21-${name}-last-trick.png`), fullPage: true });
        await page.keyboard.press("l");
        await until("L hides it again", async () => !(await page.$("#last-trick")), 5000);
        checked.lastTrick = true;
      }
      // The end-of-deal sheet: card points counted from the tricks add up to 120 and
      // agree with the server's.
      // (Counted by the page when the deal went to its last trick; after a claim or a
      // resignation the server's count is shown.)
      // A deal's end waits for the person: no decision under the sheet, no clock running
      // for the seat while it is read (the table's pause), and a reload brings it back.
      const listOver = (await page.$eval("#table .status", (e) => e.getAttribute("data-status")).catch(() => "")) === "FINISHED";
      if (!listOver && (await page.$("#end-sheet"))) {
        assert.equal(await page.$("#my-seat"), null, `${name}: no decision is offered under the sheet`);
        assert.ok(await page.$("#sheet-grace"), `${name}: the sheet says how long no clock runs`);
        const left = await page.$eval(".seat.to-move.at-bottom [data-deadline]", (e) => {
          const bar = document.querySelector(".seat.to-move [data-deadline-bar]");
          return [Number(e.getAttribute("data-deadline")) - Date.now(), Number(bar?.getAttribute("data-total") ?? 0)];
        }).catch(() => undefined);
        if (left && left[1] > 0 && !checked.paused) {
          assert.ok(left[0] > left[1], `${name}: the person's time waits for the pause: ${left[0]} ms left of a ${left[1]} ms turn`);
          checked.paused = true;
        }
        if (!checked.sheetReload) {
          const deal = await page.$eval("#end-sheet h2", (e) => e.textContent);
          await page.reload({ waitUntil: "load" });
          await page.waitForSelector("#end-sheet", { timeout: 30000 });
          assert.equal(await page.$eval("#end-sheet h2", (e) => e.textContent), deal, `${name}: the sheet came back after a reload`);
          checked.sheetReload = true;
        }
      }
      if (await page.$("#sheet-points")) {
        // The record arrives a moment after the deal ends.
        await until("the sheet counts from the record", async () => page.$("#sheet-points[data-server]"), 3000).catch(() => undefined);
        const [mine, theirs, server] = await page.$eval("#sheet-points", (e) => [e.dataset.declarer, e.dataset.defenders, e.dataset.server].map(Number));
        assert.equal(mine + theirs, 120, `the sheet's card points add up to 120: ${mine} + ${theirs}`);
        if (!Number.isNaN(server)) {
          assert.equal(mine, server, "the page's count is the server's");
          counted++;
        }
        if (!checked.sheet) await page.screenshot({ path: path.join(shots, `22-${name}-end-sheet.png`), fullPage: true });
        checked.sheet++;
      }
      if (await page.$("#sheet-continue")) await page.click("#sheet-continue");
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
    await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
    await page.select("#lang", "de");
    await page.waitForFunction(() => document.querySelector("a[href='#/play']")?.textContent === "Spielen");
    words.lang = "de";
    // Cards by touch (taps on the fan), every other decision by keys; a reload mid-deal.
    const key = async (sel) => {
      if (sel.startsWith("#card-")) { await page.tap(sel); return; }
      await page.focus(sel);
      await page.keyboard.press("Enter");
    };
    const second = await playTable("keys", 2, key, 9);
    // The list's end: the final standings (every seat, Seeger-Fabian totals that add up to
    // the deals table's columns) and "play again" with the same opponents.
    await page.waitForSelector("#final-standings");
    const final = await page.$$eval("#final-standings tbody tr", (rows) => rows.map((r) => Array.from(r.cells).map((c) => c.textContent)));
    assert.equal(final.length, 3, `a row per seat: ${JSON.stringify(final)}`);
    const perDeal = await page.$$eval("#deals tbody tr", (rows) => rows.map((r) => Array.from(r.cells).slice(4).map((c) => Number(c.textContent))));
    assert.equal(perDeal.length, 2, "a row per deal, with each player's Seeger-Fabian points");
    const totals = perDeal.reduce((sum, row) => sum.map((x, i) => x + row[i]), [0, 0, 0]).sort((a, b) => b - a);
    assert.deepEqual(final.map((r) => Number(r[2])), totals, "the standings are the deals' Seeger-Fabian points added up");
    await page.screenshot({ path: path.join(shots, "13-phone-final.png"), fullPage: true });
    const before = await page.evaluate(() => location.hash);
    await page.click("#play-again");
    await page.waitForFunction((h) => location.hash.startsWith("#/table/") && location.hash !== h, {}, before);
    await page.waitForSelector("#my-seat");
    const opponents = await page.$$eval(".seat .name", (n) => n.map((x) => x.textContent));
    assert.ok(opponents.some((n) => /house-random/.test(n)) && opponents.some((n) => /house-heuristic/.test(n)), `the same opponents again: ${opponents}`);
    assert.ok(counted > 0, "a sheet's card points were counted from the tricks and agreed with the server's");
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
