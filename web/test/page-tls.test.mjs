// The page over HTTPS in a real headless Chromium: `skat serve --tls-cert` with a
// certificate from a CA made at run time (`skat certs`), three `skat bot`s playing over
// TLS; Chromium trusts exactly that certificate's key (--ignore-certificate-errors-spki-list,
// not every certificate), loads the page over HTTP/2 (ALPN), lists the table through
// gRPC-Web over TLS and shows it played; plain HTTP to the same port loads nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { X509Certificate, createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import puppeteer from "puppeteer-core";
import { chromium, freePort, skat, until } from "./support/env.mjs";

/** Chromium's pin for a certificate: the SHA-256 of its SubjectPublicKeyInfo, base64. */
function spki(pemFile) {
  const key = new X509Certificate(readFileSync(pemFile)).publicKey.export({ type: "spki", format: "der" });
  return createHash("sha256").update(key).digest("base64");
}

test("the page over HTTPS in a real browser", { timeout: 180000 }, async () => {
  assert.ok(chromium, "Chromium is installed (scripts/test-all installs the Debian package)");
  const dir = mkdtempSync(path.join(os.tmpdir(), "skat-page-tls-"));
  execFileSync(skat, ["certs", "--out", dir]);
  const [grpcPort, webPort] = [await freePort(), await freePort()];
  const server = spawn(skat, ["serve", "--addr", `127.0.0.1:${grpcPort}`, "--web-addr", `127.0.0.1:${webPort}`,
    "--metrics-addr", "off", "--database", "memory", "--action-timeout", "20s",
    "--tls-cert", path.join(dir, "server.pem"), "--tls-key", path.join(dir, "server-key.pem")], { stdio: ["ignore", "pipe", "inherit"] });
  let printed = "";
  server.stdout.on("data", (d) => { printed += d; });
  const env = { ...process.env, SKAT_CA_FILE: path.join(dir, "ca.pem") };
  const bots = [];
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", `--ignore-certificate-errors-spki-list=${spki(path.join(dir, "server.pem"))}`],
  });
  try {
    const base = `https://localhost:${webPort}/`;
    await until("the server prints the page's https:// address", () => printed.includes(`https://127.0.0.1:${webPort}/`));
    const grpc = `https://localhost:${grpcPort}`;
    const created = execFileSync(skat, ["table", "create", "--server", grpc, "--deals", "36", "--name", "over-tls"], { env }).toString();
    const table = created.match(/^table (\S+)/m)[1];
    for (let i = 0; i < 3; i++) {
      bots.push(spawn(skat, ["bot", "--server", grpc, "--table", table, "--name", `tls${i}`], { env, stdio: "ignore" }));
    }

    const page = await browser.newPage();
    const response = await page.goto(base, { waitUntil: "load" });
    assert.equal(response.status(), 200);
    assert.equal(response.securityDetails()?.subjectName(), "skat server", "the page came over TLS with our certificate");
    const protocol = await page.evaluate(() => performance.getEntriesByType("navigation")[0].nextHopProtocol);
    assert.equal(protocol, "h2", "HTTP/2 by ALPN");
    // The table list comes through gRPC-Web over TLS.
    await page.waitForSelector(`a[href='#/table/${table}']`, { timeout: 30000 });
    await page.goto(`${base}#/table/${table}`);
    await page.waitForSelector("#table");
    await until("the table is played", () => page.evaluate(() => window.__skat && window.__skat.renders > 5));

    // Plain HTTP to the TLS port: nothing loads.
    const plain = await browser.newPage();
    await assert.rejects(plain.goto(`http://localhost:${webPort}/`, { timeout: 10000 }));
  } finally {
    for (const b of bots) b.kill();
    await browser.close();
    server.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
});
