"""A policy learned from records (behaviour cloning): a linear softmax policy over the
environment's observation, fitted to the decisions in ISS records by cross-entropy, so
that it bids, declares and plays the way the recorded players did. numpy only.

    skat arena --in-process --bots pimc-sim,pimc-bold,pimc-bold --lists 40 --records recs
    python imitate.py train --records recs --out cloned.npz
    python reinforce.py evaluate --policy cloned.npz --skat-bin skat \\
        --bots pimc-sim,open:learned,open:learned --lists 12 --deals 36

``train`` reads every record (one per line) of every ``.sgf`` file under ``--records``
(``skat_engine.examples_from_iss`` replays each through the engine: an example exists only
for a move the rules accept), holds out every tenth deal, and fits W and b by mini-batch
gradient descent on the cross-entropy of the recorded choice among the legal ids; it
prints the share of held-out decisions it predicts, beside the share a uniform choice
would. ``--winners-only`` keeps the decisions of the side that won its deal. The policy
is saved in ``reinforce.py``'s format, so that ``reinforce.py evaluate`` seats it (greedy:
the most likely legal id) at every ``open:learned`` seat over the wire: a pool opponent
that bids and declares as the records did, not as the built-in bots do.
"""

import argparse
import os
import pathlib
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import skat_engine as se  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from reinforce import masked_softmax  # noqa: E402


def load(folder, winners_only):
    """The examples of every record under `folder`, with each one's deal number."""
    obs, masks, actions, deals = [], [], [], []
    n = 0
    for path in sorted(pathlib.Path(folder).rglob("*.sgf")):
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            ex = se.examples_from_iss(line)
            keep = ex["won"] if winners_only else np.ones(len(ex["actions"]), bool)
            obs.append(ex["observations"][keep])
            masks.append(ex["masks"][keep])
            actions.append(ex["actions"][keep])
            deals.append(np.full(int(keep.sum()), n))
            n += 1
    if n == 0:
        raise SystemExit(f"no records under {folder}")
    return np.concatenate(obs), np.concatenate(masks), np.concatenate(actions), np.concatenate(deals), n


def accuracy(W, b, X, M, A):
    """The share of decisions whose recorded id is the policy's most likely legal id, and
    the share a uniform choice among the legal ids would hit."""
    logits = np.where(M > 0, X @ W + b, -1e9)
    return float((logits.argmax(axis=1) == A).mean()), float((1.0 / M.sum(axis=1)).mean())


def train(args):
    X, M, A, deal, n = load(args.records, args.winners_only)
    held = deal % 10 == 9
    print(f"{n} deals, {len(A)} decisions ({int(held.sum())} held out)", flush=True)
    rng = np.random.default_rng(args.seed)
    W = np.zeros((se.OBS_LEN, se.N_ACTIONS), np.float32)
    b = np.zeros(se.N_ACTIONS, np.float32)
    Xt, Mt, At = X[~held], M[~held], A[~held]
    start = time.perf_counter()
    for epoch in range(args.epochs):
        order = rng.permutation(len(At))
        for i in range(0, len(order), args.batch):
            rows = order[i:i + args.batch]
            x, m, a = Xt[rows], Mt[rows], At[rows]
            g = -masked_softmax(x @ W + b, m)
            g[np.arange(len(a)), a] += 1.0
            W += args.lr * (x.T @ g) / len(a)
            b += args.lr * g.mean(axis=0)
        hit, uniform = accuracy(W, b, X[held], M[held], A[held])
        print(f"epoch {epoch + 1}: held-out decisions predicted {hit:.1%} (uniform {uniform:.1%}), "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    np.savez(args.out, W=W, b=b)
    print(f"saved {args.out}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train", help="fit a policy to the decisions in ISS records")
    t.add_argument("--records", required=True, help="a folder of .sgf files (one record per line)")
    t.add_argument("--epochs", type=int, default=8)
    t.add_argument("--batch", type=int, default=512)
    t.add_argument("--lr", type=float, default=0.5)
    t.add_argument("--winners-only", action="store_true")
    t.add_argument("--seed", type=int, default=1)
    t.add_argument("--out", default="cloned.npz")
    train(ap.parse_args())


if __name__ == "__main__":
    main()
