// The package as a stranger installs it: `npm pack` gives a tarball that installs in an
// empty project far from the repository (the typed stubs are inside it) and works; and
// its public types name no `any`.

import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { execFileSync } from "child_process";

const PACKAGE = path.resolve(__dirname, "..", "..");

function declarations(dir: string, out: string[] = []): string[] {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) declarations(p, out);
    else if (entry.name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

test("the public types name no `any`", () => {
  const files = declarations(path.join(PACKAGE, "dist", "src"));
  assert.ok(files.length > 5, "the declarations are built");
  const offending: string[] = [];
  for (const f of files) {
    fs.readFileSync(f, "utf8")
      .split("\n")
      .forEach((line, i) => {
        const code = line.replace(/\/\/.*$/, "").replace(/\/\*.*?\*\//g, "").replace(/^\s*\*.*$/, "");
        if (/\bany\b/.test(code)) offending.push(`${path.relative(PACKAGE, f)}:${i + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(offending, []);
});

test("npm pack gives a package that installs and works without the repository", { timeout: 300_000 }, () => {
  const away = fs.mkdtempSync(path.join(os.tmpdir(), "skat-ts-package-"));
  try {
    const packed = execFileSync("npm", ["pack", "--silent", "--ignore-scripts", "--pack-destination", away, PACKAGE], { encoding: "utf8" })
      .trim()
      .split("\n")
      .pop();
    assert.ok(packed, "a tarball");
    const listing = execFileSync("tar", ["-tzf", path.join(away, packed)], { encoding: "utf8" });
    assert.match(listing, /package\/dist\/src\/gen\/skat\/v1\/skat_pb\.js/, "the stubs are inside");
    assert.doesNotMatch(listing, /\.proto$/m, "the proto files are not needed");
    const project = path.join(away, "project");
    fs.mkdirSync(project);
    execFileSync("npm", ["init", "-y"], { cwd: project, stdio: "ignore" });
    execFileSync("npm", ["install", "--no-audit", "--no-fund", path.join(away, packed)], { cwd: project, stdio: "ignore" });
    fs.writeFileSync(
      path.join(project, "check.js"),
      `const sdk = require("skat-sdk");
const k = new sdk.Knowledge(0);
const { create } = require("@bufbuild/protobuf");
k.apply(create(sdk.pb.EventSchema, { seq: 1n, kind: { case: "dealStarted", value: { number: 0, positionSeats: [0, 1, 2], hand: [sdk.Card.CJ] } } }));
console.log(JSON.stringify(k.toJSON().hand), sdk.Position[k.position]);
`,
    );
    const out = execFileSync("node", ["check.js"], { cwd: project, encoding: "utf8" });
    assert.equal(out.trim(), `["CJ"] FOREHAND`);
  } finally {
    fs.rmSync(away, { recursive: true, force: true });
  }
});
