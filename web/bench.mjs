// The spectator page's figures (docs/BENCHMARKS.md): time from an action to the page
// showing it, p50/p99 over a whole list of the demo at a fast pace (the event's server
// time to the render of the state that contains it, same machine clock), and the bytes
// the first load transfers.
//
//   cargo build --release -p skat-cli && (cd web && node bench.mjs)
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer from "puppeteer-core";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const skat = process.env.SKAT_BIN || path.join(repo, "target/release/skat");
const chromium = process.env.CHROMIUM || ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find(existsSync);
const delay = process.env.DEMO_DELAY || "30ms";

const port = () => new Promise((resolve) => { const s = createServer(); s.listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => resolve(p)); }); });
const [grpcPort, webPort] = [await port(), await port()];
const server = spawn(skat, ["serve", "--demo", "--demo-delay", delay, "--addr", `127.0.0.1:${grpcPort}`, "--web-addr", `127.0.0.1:${webPort}`, "--metrics-addr", "off"], { stdio: ["ignore", "ignore", "inherit"] });
const browser = await puppeteer.launch({ executablePath: chromium, headless: true, args: ["--no-sandbox", "--disable-gpu"] });
try {
  const base = `http://127.0.0.1:${webPort}/`;
  const page = await browser.newPage();
  let bytes = 0, raw = 0, files = 0;
  page.on("response", async (r) => {
    if (r.request().resourceType() === "fetch") return;
    files++;
    bytes += Number(r.headers()["content-length"] ?? 0);
    raw += (await r.buffer().catch(() => Buffer.alloc(0))).length;
  });
  for (let i = 0; ; i++) {
    try { await page.goto(base, { waitUntil: "networkidle0" }); break; } catch (e) { if (i > 50) throw e; await new Promise((r) => setTimeout(r, 200)); }
  }
  const first = { bytes, raw, files };
  await page.waitForSelector("table a[href^='#/table/']");
  const href = await page.$$eval("table a[href^='#/table/']", (as) => (as.find((a) => /demo/i.test(a.textContent)) ?? as[0]).getAttribute("href"));
  await page.goto(base + href, { waitUntil: "load" });
  await page.waitForSelector("#table");
  const started = Date.now();
  await page.waitForFunction(() => /finished/.test(document.querySelector("#table .status")?.textContent ?? ""), { timeout: 600000, polling: 500 });
  const lat = (await page.evaluate(() => window.__skat.latencies)).sort((a, b) => a - b);
  const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))];
  console.log(`first load: ${first.files} files, ${first.bytes} bytes transferred (${first.raw} bytes uncompressed)`);
  console.log(`action to page over one list (36 deals, demo delay ${delay}, ${((Date.now() - started) / 1000).toFixed(0)} s): ${lat.length} events, p50 ${q(0.5)} ms, p90 ${q(0.9)} ms, p99 ${q(0.99)} ms, max ${lat[lat.length - 1]} ms`);
} finally {
  await browser.close();
  server.kill("SIGTERM");
}
