// The ladder of built-in strengths (docs/bots.md, "The ladder of levels"): the server's
// house bots, weakest first. An account named `house-NAME` can only be registered with
// the operator's token (the server refuses it to anyone else), so a name here is a level
// and not somebody posing as one; the leaderboard marks them, and a newcomer's place
// among them says how strong it is.

/** The built-in strategies of the ladder, weakest first (level = index + 1). */
export const LADDER = ["random", "heuristic", "pimc-fast", "pimc", "pimc-bold", "pimc-sim"] as const;

/** The house bot accounts of the ladder, weakest first. */
export const HOUSE_BOTS = LADDER.map((s) => `house-${s}`);

/** The ladder's level of an account (1 = weakest), or undefined when it is not a house bot of the ladder. */
export function levelOf(account: string): { level: number; strategy: string } | undefined {
  const i = HOUSE_BOTS.indexOf(account);
  return i < 0 ? undefined : { level: i + 1, strategy: LADDER[i] };
}
