// Bundles src/main.ts (with the Connect-Web runtime and the generated stubs) into one
// minified app.js and copies static/ beside it, into SKAT_WEB_OUT (default dist/), each
// with a gzip copy.
import { build } from "esbuild";
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

const out = process.env.SKAT_WEB_OUT || "dist";
mkdirSync(out, { recursive: true });
await build({
  entryPoints: ["src/main.ts"],
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  outfile: `${out}/app.js`,
  legalComments: "none",
  logLevel: "warning",
});
cpSync("static", out, { recursive: true });
// Precompressed copies, served to browsers that accept gzip.
for (const name of readdirSync(out)) {
  if (/\.(js|css|html|svg)$/.test(name)) writeFileSync(`${out}/${name}.gz`, gzipSync(readFileSync(`${out}/${name}`), { level: 9 }));
}
