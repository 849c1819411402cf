// Lighthouse's accessibility audit (the `lighthouse` npm package, run against the test's
// Chromium) of the pages a player uses: `#/play` and a live table at the player's own
// seat, with its hand and decisions, at 1280 px and at 390 px. Each must score at least
// 95; the scores go to target/web-screenshots/lighthouse.json for the benchmarks page.
//
// Lighthouse is installed by scripts/test-all into .tools/lighthouse (LIGHTHOUSE_DIR);
// without it this test says so and is skipped, unless SKAT_REQUIRE_LIGHTHOUSE=1 (the test
// command sets it), where a missing Lighthouse fails.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import puppeteer from "puppeteer-core";
import { chromium, freePort, repo, skat, until } from "./support/env.mjs";

const dir = process.env.LIGHTHOUSE_DIR || path.join(repo, ".tools", "lighthouse");
const entry = path.join(dir, "node_modules", "lighthouse", "core", "index.js");
const required = process.env.SKAT_REQUIRE_LIGHTHOUSE === "1";
const shots = process.env.SKAT_SCREENSHOTS || path.join(repo, "target", "web-screenshots");

test("Lighthouse: #/play and a live table score 95 or more for accessibility", { timeout: 240000, skip: !existsSync(entry) && !required && "Lighthouse is not installed (scripts/test-all installs it)" }, async () => {
  assert.ok(existsSync(entry), `Lighthouse at ${entry} (scripts/test-all installs it)`);
  const { startFlow } = await import(pathToFileURL(entry).href);
  const data = mkdtempSync(path.join(os.tmpdir(), "skat-lighthouse-"));
  const [grpcPort, webPort] = [await freePort(), await freePort()];
  const server = spawn(skat, ["serve", "--addr", `127.0.0.1:${grpcPort}`, "--web-addr", `127.0.0.1:${webPort}`,
    "--metrics-addr", "off", "--admin-token", "op", "--data-dir", data, "--house-bots", "random,heuristic"], { stdio: "ignore" });
  const browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
  const scores = {};
  try {
    const base = `http://127.0.0.1:${webPort}/`;
    const page = await browser.newPage();
    for (const [width, height] of [[1280, 900], [390, 844]]) {
      await page.setViewport({ width, height, isMobile: width < 600 });
      await until("the house bots are offered", async () => {
        await page.goto(base + "#/play", { waitUntil: "load" }).catch(() => undefined);
        await page.waitForSelector("#play-form", { timeout: 5000 }).catch(() => undefined);
        return (await page.$$eval("#opponent-0 option", (o) => o.map((x) => x.value)).catch(() => [])).includes("house-heuristic");
      }, 60000);
      scores[`play ${width}px`] = await audit(startFlow, page, `#/play at ${width} px`);
      // A table at the player's seat, waiting for its decision (bidding or a card).
      await page.click("#start");
      await page.waitForSelector("#my-seat");
      await until("the player's turn", async () => (await page.$("#my-actions button:not([disabled]), #my-hand .card-button:not([disabled])")), 30000);
      scores[`table ${width}px`] = await audit(startFlow, page, `a live table at ${width} px`);
    }
    mkdirSync(shots, { recursive: true });
    writeFileSync(path.join(shots, "lighthouse.json"), JSON.stringify(scores, null, 2));
    console.log(`# Lighthouse accessibility: ${JSON.stringify(scores)}`);
    for (const [what, score] of Object.entries(scores)) assert.ok(score >= 95, `${what}: accessibility ${score} (at least 95)`);
  } finally {
    await browser.close();
    server.kill("SIGTERM");
    rmSync(data, { recursive: true, force: true });
  }
});

/** Lighthouse's accessibility score (0-100) of the page as it stands (a snapshot: the
 * seat held in this tab's session storage stays held); the failing audits are printed. */
async function audit(startFlow, page, what) {
  const flow = await startFlow(page, { config: { extends: "lighthouse:default", settings: { onlyCategories: ["accessibility"] } } });
  await flow.snapshot({ name: what });
  const result = await flow.createFlowResult();
  const lhr = result.steps[0].lhr;
  const score = Math.round((lhr.categories.accessibility.score ?? 0) * 100);
  for (const a of Object.values(lhr.audits)) {
    if (a.score !== null && a.score < 1 && a.scoreDisplayMode === "binary") {
      const nodes = (a.details?.items ?? []).slice(0, 3).map((i) => i.node?.snippet ?? "").join(" ");
      console.log(`# ${what}: ${a.id}: ${a.title} ${nodes}`);
    }
  }
  return score;
}
