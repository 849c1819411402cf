// The author's page of hosted bots (`#/my-bot`) in a real headless Chromium, against the
// sandboxes deploy/test-hosted.sh has just run on podman: each author signs in with their
// own bot token and sees how their sandbox ended, its exit status and CPU time, and its
// output; a wrong token is refused and forgotten; signing out forgets the token; the page
// reads in German too.
//
// (Run by deploy/test-hosted.sh; not a test file of its own: it needs sandboxes that ran.)
//
// Usage: node web/checks/bot-page.mjs PAGE_URL CRASH_TOKEN OOM_TOKEN UNPULLED_TOKEN
import assert from "node:assert/strict";
import puppeteer from "puppeteer-core";
import { chromium } from "../test/support/env.mjs";

const [base, crash, oom, unpulled] = process.argv.slice(2);
assert.ok(base && crash && oom && unpulled, "usage: bot-page.mjs PAGE_URL CRASH_TOKEN OOM_TOKEN UNPULLED_TOKEN");
assert.ok(chromium, "Chromium is installed (scripts/test-all installs the Debian package)");

const browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  await page.goto(`${base}#/my-bot`, { waitUntil: "load" });
  const text = (sel) => page.$eval(sel, (e) => e.textContent ?? "");
  async function signIn(token) {
    // A refusal leaves no form: "try again" draws it.
    if (await page.$("#try-again")) await page.click("#try-again");
    await page.waitForSelector("#bot-token-form");
    await page.type("#bot-token", token);
    await page.click("#bot-token-form button[type=submit]");
  }
  async function signOut() {
    await page.click("#sign-out");
    await page.waitForSelector("#bot-token-form");
    assert.equal(await page.evaluate(() => sessionStorage.getItem("skat-bot-token")), null, "signed out, the token is gone");
  }

  // A wrong token: refused, forgotten, and the page says which token it wants.
  await signIn("not-a-token");
  await page.waitForSelector("#refused");
  assert.match(await text("#refused"), /--bot-token/);
  assert.equal(await page.evaluate(() => sessionStorage.getItem("skat-bot-token")), null);

  // The crashing bot: exited with status 3, its output readable.
  await signIn(crash);
  await page.waitForSelector("#sandboxes table");
  const rows = await text("#sandboxes tbody");
  assert.match(rows, /exited with status 3/, rows);
  assert.match(await text("#versions tbody"), /may play/);
  assert.equal(await page.evaluate(() => sessionStorage.getItem("skat-bot-token")), crash, "kept in session storage");
  assert.equal(await page.evaluate(() => localStorage.getItem("skat-bot-token")), null, "never in local storage");
  await page.click("#sandboxes button[data-sandbox]");
  await page.waitForSelector("#output-text");
  assert.match(await text("#output-text"), /giving up at start/);
  await signOut();

  // The bot that ran out of memory: said in words, with its CPU seconds; nothing of the
  // crashing bot's sandboxes on its page.
  await signIn(oom);
  await page.waitForSelector("#sandboxes table");
  const oomRows = await text("#sandboxes tbody");
  assert.match(oomRows, /out of memory/, oomRows);
  assert.doesNotMatch(oomRows, /exited with status 3/, "another account's sandbox on this page");
  const cpu = await page.$$eval("#sandboxes tbody tr td:nth-child(5)", (tds) => tds.map((td) => td.textContent));
  assert.ok(cpu.some((c) => /^\d+\.\d$/.test(c ?? "")), `CPU seconds shown: ${cpu}`);
  await signOut();

  // An image that cannot be pulled: the version says why, in German as well.
  await page.evaluate(() => localStorage.setItem("skat-lang", "de"));
  await page.reload({ waitUntil: "load" });
  await signIn(unpulled);
  await page.waitForSelector("#versions table");
  const versions = await text("#versions tbody");
  assert.match(versions, /gescheitert/, versions);
  assert.match(versions, /pulled|pull/i, versions);
  assert.equal(await text("h1"), "Mein Bot");
  await signOut();
  console.log("  the bot page: each author signs in with their own token and reads how their sandboxes ended and their output (English and German)");
} finally {
  await browser.close();
}
