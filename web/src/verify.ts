// Checks in the browser that a finished tournament's deals are the ones committed when it
// was created (docs/competitions.md, skat_league::deals): the revealed secret hashes to
// the commitment, and every deal's seed in the records is one of the list seeds the
// secret gives. That the cards are the seed's (the engine's dealing) is checked by
// `skat tournament verify`, which runs the engine.
import { api } from "./api";
import { RecordFormat, type Tournament } from "./gen/skat/v1/skat_pb";
import { t as say } from "./i18n";

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

/** The seed of list `list` of meeting `meeting`: the first 8 bytes (little-endian) of
 * SHA-256 of `skat-list-v1:SECRET:MEETING:LIST`. */
async function listSeed(secret: string, meeting: number, list: number): Promise<bigint> {
  const d = await sha256(`skat-list-v1:${secret}:${meeting}:${list}`);
  let seed = 0n;
  for (let i = 7; i >= 0; i--) seed = (seed << 8n) | BigInt(d[i]);
  return seed;
}

/** What the check found, in words. */
export async function verifyDeals(t: Tournament): Promise<{ ok: boolean; text: string }> {
  if (!t.dealsSecret) {
    return { ok: false, text: t.dealsCommitment ? say("deals.later").trim().replace(/^\(|\)$/g, "") : say("verify.old") };
  }
  if (!crypto?.subtle) return { ok: false, text: say("verify.insecure") };
  if (hex(await sha256(`skat-deals-v1:${t.dealsSecret}`)) !== t.dealsCommitment) {
    return { ok: false, text: say("verify.mismatch", { commitment: t.dealsCommitment }) };
  }
  const lists = Math.max(1, Math.floor((t.meetings[0]?.tables ?? t.seats) / Math.max(1, t.seats)));
  const seeds = new Set<string>();
  for (let m = 0; m < t.meetings.length; m++) {
    for (let k = 0; k < lists; k++) seeds.add((await listSeed(t.dealsSecret, m, k)).toString());
  }
  let deals = 0;
  const finished = t.tables.filter((x) => x.status === "finished");
  for (const table of finished) {
    const r = await api.getRecords({ tableId: table.tableId, format: RecordFormat.JSON });
    for (const line of r.records) {
      // Read as text: a seed is a 64-bit number, beyond what a JavaScript number holds.
      const seed = /"seed":\s*(\d+)/.exec(line)?.[1];
      if (!seed) return { ok: false, text: say("verify.noSeed", { table: table.tableId }) };
      if (!seeds.has(seed)) return { ok: false, text: say("verify.badSeed", { table: table.tableId, seed }) };
      deals++;
    }
  }
  return { ok: true, text: say("verify.ok", { deals, tables: finished.length, commitment: t.dealsCommitment.slice(0, 16) }) };
}
