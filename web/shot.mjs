import puppeteer from "puppeteer-core";
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
const data = mkdtempSync("/tmp/skat-shot-");
const server = spawn("/work/main/target/debug/skat", ["serve", "--addr", "127.0.0.1:55123", "--web-addr", "127.0.0.1:55124", "--metrics-addr", "off", "--admin-token", "op", "--data-dir", data, "--house-bots", "random,heuristic"], { stdio: "ignore" });
await new Promise((r) => setTimeout(r, 3000));
const b = await puppeteer.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox"] });
const p = await b.newPage();
p.on("pageerror", (e) => console.log("pageerror:", e.message));
for (const w of [1280, 390]) {
  await p.setViewport({ width: w, height: 900 });
  await p.goto("http://127.0.0.1:55124/#/play", { waitUntil: "load" });
  await p.waitForSelector("#play-form");
  await new Promise((r) => setTimeout(r, 500));
  await p.click("#start");
  await p.waitForSelector("#table");
  for (let i = 0; i < 40; i++) {
    await new Promise((r) => setTimeout(r, 400));
    const choice = await p.evaluate(() => {
      const en = (sel) => Array.from(document.querySelectorAll(sel)).filter((b) => !b.disabled).map((b) => `#${CSS.escape(b.id)}`);
      const discard = document.getElementById("discard");
      if (discard) { const n = document.querySelectorAll("#my-hand [aria-pressed=true]").length; return n < 2 ? en("#my-hand [aria-pressed=false]")[0] : "#discard"; }
      return en("#my-hand .card-button")[0] || en("[id^=say-2]")[0] || en("#hold")[0] || en("#pick-up")[0] || en("[id^=declare-]")[0] || en("#pass")[0] || null;
    });
    if (i === 3 || i === 12 || i === 25) await p.screenshot({ path: `/tmp/shots/${w}-${i}.png`, fullPage: true });
    if (choice) await p.click(choice).catch(() => {});
  }
  await p.screenshot({ path: `/tmp/shots/${w}-end.png`, fullPage: true });
}
await b.close();
server.kill();
