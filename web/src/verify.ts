// Checks in the browser that a finished tournament's deals are the ones committed when it
// was created (docs/competitions.md, skat_league::deals): the revealed secret hashes to
// the commitment, and every deal's seed in the records is one of the list seeds the
// secret gives. That the cards are the seed's (the engine's dealing) is checked by
// `skat tournament verify`, which runs the engine.
import { api } from "./api";
import { RecordFormat, type Tournament } from "./gen/skat/v1/skat_pb";

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
    return { ok: false, text: t.dealsCommitment ? "the secret is revealed when the tournament is over" : "made before deals were committed: nothing to verify" };
  }
  if (!crypto?.subtle) return { ok: false, text: "this page is not a secure context (https or this machine): use skat tournament verify" };
  if (hex(await sha256(`skat-deals-v1:${t.dealsSecret}`)) !== t.dealsCommitment) {
    return { ok: false, text: `the revealed secret does not match the commitment ${t.dealsCommitment}` };
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
      if (!seed) return { ok: false, text: `table ${table.tableId}: a record without its seed` };
      if (!seeds.has(seed)) return { ok: false, text: `table ${table.tableId}: seed ${seed} does not come from the secret` };
      deals++;
    }
  }
  return { ok: true, text: `verified: the ${deals} deals of ${finished.length} tables came from the secret committed at creation (${t.dealsCommitment.slice(0, 16)}…)` };
}
