"""A policy that learns, as a starting point (not a strong bot): a linear softmax policy
over the environment's observation, trained with REINFORCE against random players in the
batched simulator, then played on a server through the Python SDK with the same encoding.
numpy only; a few minutes on one core.

    python reinforce.py train --seconds 180 --out policy.npz
    python reinforce.py evaluate --policy policy.npz --skat-bin skat --lists 12

``train`` steps ``--tables`` deals at once (``skat_engine.Batch``); in each deal one
position is the learner (it rotates deal by deal), the others choose uniformly among their
legal ids. The learner samples from softmax(obs @ W + b) over its legal ids; when a deal
ends, every decision the learner made in it is pushed towards (or away from) its choice in
proportion to the learner's Seeger-Fabian points minus their running mean.

``evaluate`` runs ``skat arena`` with one open seat (``open:learned``) against the
built-in ``random`` bot on duplicate lists, seats a ``PolicyBot`` (greedy: the most likely
legal id) at every open seat over the wire, and prints the arena's paired difference per
list with its 95% interval. ``--bots`` seats it in another pool (every ``open:learned``
seat is the policy; the built-in bots by name) and prints every paired difference: so a
policy cloned from records (``imitate.py``) is an opponent for the house bots.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import skat_engine as se  # noqa: E402


def masked_softmax(logits, mask):
    z = np.where(mask > 0, logits, -1e9)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z) * (mask > 0)
    return e / e.sum(axis=1, keepdims=True)


def train(args):
    rng = np.random.default_rng(args.seed)
    W = np.zeros((se.OBS_LEN, se.N_ACTIONS), np.float32)
    b = np.zeros(se.N_ACTIONS, np.float32)
    n = args.tables
    batch = se.Batch(n, seed=args.seed)
    rows = np.arange(n)
    learner = rows % 3
    traj = [[] for _ in range(n)]
    done_obs, done_mask, done_act, done_ret = [], [], [], []
    baseline, deals, updates = 0.0, 0, 0
    recent = []
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        obs = batch.observe()
        mine = np.flatnonzero(batch.to_move == learner)
        k = (rng.random(n) * batch.legal_count).astype(np.int64)
        actions = batch.legal_ids[rows, k].astype(np.int64)
        if len(mine):
            x, m = obs[mine], batch.mask[mine]
            p = masked_softmax(x @ W + b, m)
            # Sample each row's action from its distribution.
            chosen = (p.cumsum(axis=1) > rng.random((len(mine), 1))).argmax(axis=1)
            actions[mine] = chosen
            for j, r in enumerate(mine):
                traj[r].append((x[j].copy(), m[j].copy(), chosen[j]))
        batch.step(actions)
        for r in np.flatnonzero(batch.done):
            ret = float(batch.rewards[r, learner[r]]) / 100.0
            recent.append(ret * 100.0)
            for o, m, a in traj[r]:
                done_obs.append(o)
                done_mask.append(m)
                done_act.append(a)
                done_ret.append(ret)
            traj[r] = []
            learner[r] = (learner[r] + 1) % 3
            deals += 1
        if len(done_act) >= args.update_every:
            X, M = np.stack(done_obs), np.stack(done_mask)
            A, R = np.array(done_act), np.array(done_ret, np.float32)
            baseline = 0.9 * baseline + 0.1 * float(R.mean())
            adv = R - baseline
            p = masked_softmax(X @ W + b, M)
            g = -p
            g[np.arange(len(A)), A] += 1.0
            g *= adv[:, None]
            W += args.lr * (X.T @ g) / len(A)
            b += args.lr * g.mean(axis=0)
            done_obs, done_mask, done_act, done_ret = [], [], [], []
            updates += 1
            if updates % args.report_every == 0:
                print(f"{time.perf_counter() - start:6.0f} s  {deals:8d} deals  learner's points per deal "
                      f"(last {len(recent)}): {np.mean(recent):+7.1f}", flush=True)
                recent = []
    np.savez(args.out, W=W, b=b)
    print(f"saved {args.out}: {deals} deals, {updates} updates in {time.perf_counter() - start:.0f} s")


def load_policy(path):
    data = np.load(path)
    W, b = data["W"], data["b"]

    def policy(observation, legal_ids):
        logits = np.asarray(observation, np.float32) @ W + b
        return int(legal_ids[int(np.argmax(logits[list(legal_ids)]))])

    return policy


LEARNED_VS_RANDOM = "open:learned,random,random"


def evaluate(args):
    from skat_sdk import play_with_token
    from skat_sdk.encoding import PolicyBot

    policy = load_policy(args.policy)
    cmd = [args.skat_bin, "arena", "--bots", args.bots, "--deals", str(args.deals),
           "--lists", str(args.lists), "--seed", str(args.seed), "--json", "--no-records"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    threads, server = [], None
    for line in proc.stderr:
        m = re.match(r"arena server: (\S+)", line)
        if m:
            server = m.group(1)
        m = re.match(r"open seat: table (\S+) seat (\d+) token (\S+)", line)
        if m:
            table, _, token = m.groups()
            t = threading.Thread(target=play_with_token, args=(server, table, token, PolicyBot(policy)), daemon=True)
            t.start()
            threads.append(t)
        elif line.startswith("arena:") or "error" in line.lower():
            sys.stderr.write(line)
    out = proc.stdout.read()
    if proc.wait() != 0:
        raise SystemExit(f"skat arena failed ({proc.returncode})")
    standings = json.loads(out)
    if args.bots != LEARNED_VS_RANDOM:
        # Another pool: every paired difference, and each entry's figures per class of game.
        print(json.dumps({"paired": standings["paired"], "bots": standings["bots"]}, indent=2))
        return standings
    pair = next(p for p in standings["paired"] if p["a"] == "learned" and p["b"].startswith("random"))
    print(json.dumps(pair, indent=2))
    return pair


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="learn a policy against random players")
    t.add_argument("--seconds", type=float, default=180)
    t.add_argument("--tables", type=int, default=256)
    t.add_argument("--lr", type=float, default=0.05)
    t.add_argument("--update-every", type=int, default=4096, help="learner decisions per update")
    t.add_argument("--report-every", type=int, default=100)
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--out", default="policy.npz")
    e = sub.add_parser("evaluate", help="the learned policy against the random bot over the wire (skat arena)")
    e.add_argument("--policy", default="policy.npz")
    e.add_argument("--skat-bin", default="skat")
    e.add_argument("--lists", type=int, default=12)
    e.add_argument("--deals", type=int, default=12)
    e.add_argument("--seed", type=int, default=100)
    e.add_argument("--bots", default=LEARNED_VS_RANDOM,
                   help="the arena's seats; the policy plays every open:learned seat (another pool prints "
                        "every paired difference, e.g. pimc-sim,open:learned,open:learned)")
    args = ap.parse_args()
    train(args) if args.command == "train" else evaluate(args)


if __name__ == "__main__":
    main()
