"""Random play from Python, per step and per complete deal: OpenSpiel's pyspiel Skat, this
package's Table (one call per step), its PettingZoo environment, and its Batch (one call
per step of n deals), all in one run. ``--skat-bench N`` also runs the Rust engine bench
(`skat bench`) for the batched form's target. Prints a Markdown table.

    python bench/speed.py --seconds 3 --skat-bin target/release/skat
"""

import argparse
import os
import random
import re
import subprocess
import time

# numpy's BLAS threads spin on the other core otherwise; nothing here multiplies matrices.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import skat_engine as se  # noqa: E402


def timed(seconds, body):
    """Runs ``body()`` (which returns (steps, deals) done) until ``seconds`` pass."""
    steps = deals = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        s, d = body()
        steps += s
        deals += d
    elapsed = time.perf_counter() - start
    return steps / elapsed, deals / elapsed, steps / max(deals, 1)


def pyspiel_random(observe):
    import pyspiel

    game = pyspiel.load_game("skat")
    rng = random.Random(1)

    def deal():
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                if observe:
                    state.observation_tensor(state.current_player())
                    state.legal_actions_mask()
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                steps += 1
            # Chance steps (dealing card by card) are not decisions: not counted.
        return steps, 1

    return deal


def table_random(observe):
    rng = random.Random(1)
    seed = [0]

    def deal():
        seed[0] += 1
        t = se.Table(3, 1, seed[0])
        steps = 0
        while not t.is_over:
            seat = t.to_move
            if observe:
                t.observe(seat)
                t.mask(seat)
            legal = t.legal_ids(seat)
            t.step(legal[rng.randrange(len(legal))])
            steps += 1
        return steps, 1

    return deal


def env_random():
    from skat_engine.env import SkatEnv

    env = SkatEnv(seats=3, deals=1)
    rng = np.random.default_rng(1)
    seed = [0]

    def deal():
        seed[0] += 1
        env.reset(seed=seed[0])
        steps = 0
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        return steps, 1

    return deal


def batch_random(n, observe):
    b = se.Batch(n, 1)
    rng = np.random.default_rng(1)
    rows = np.arange(n)

    def step():
        if observe:
            b.observe()
        k = (rng.random(n) * b.legal_count).astype(np.int64)
        b.step(b.legal_ids[rows, k].astype(np.int64))
        return n, int(b.done.sum())

    return step


def rust_bench(binary, deals):
    out = subprocess.run([binary, "bench", "--deals", str(deals), "--seed", "1"], capture_output=True, text=True, check=True)
    return float(re.search(r"^(\d+) deals/s", out.stdout, re.M).group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0, help="per measurement")
    ap.add_argument("--batch", type=int, default=1024, help="deals per Batch (1024 fits the caches; 4096 is a little slower per deal)")
    ap.add_argument("--skat-bin", help="the release `skat` binary, for the Rust engine bench in the same run")
    ap.add_argument("--skat-bench-deals", type=int, default=3_000_000)
    args = ap.parse_args()
    rows = []
    try:
        import pyspiel  # noqa: F401

        rows.append(("pyspiel Skat, random (C++ game, Python loop)", *timed(args.seconds, pyspiel_random(False))))
        rows.append(("pyspiel Skat, random + observation_tensor + mask", *timed(args.seconds, pyspiel_random(True))))
    except ImportError:
        print("pyspiel not installed (pip install open-spiel): no OpenSpiel rows")
    rows.append(("skat_engine.Table, random (one call per step)", *timed(args.seconds, table_random(False))))
    rows.append(("skat_engine.Table, random + observe + mask", *timed(args.seconds, table_random(True))))
    rows.append(("skat_engine.env (PettingZoo AEC), random from the mask", *timed(args.seconds, env_random())))
    rows.append((f"skat_engine.Batch({args.batch}), random from legal_ids", *timed(args.seconds, batch_random(args.batch, False))))
    rows.append((f"skat_engine.Batch({args.batch}), random + observe()", *timed(args.seconds, batch_random(args.batch, True))))
    rust = rust_bench(args.skat_bin, args.skat_bench_deals) if args.skat_bin else None
    base = rows[0][1] if rows and rows[0][0].startswith("pyspiel") else None
    base_deals = rows[0][2] if base else None
    print("| form | decisions/s | deals/s | decisions per deal | per decision vs pyspiel | per deal vs pyspiel |")
    print("|---|---|---|---|---|---|")
    for name, sps, dps, per in rows:
        vs = f"{sps / base:.1f}x" if base else "-"
        vd = f"{dps / base_deals:.1f}x" if base else "-"
        print(f"| {name} | {sps:,.0f} | {dps:,.0f} | {per:.1f} | {vs} | {vd} |")
    if rust:
        print(f"| Rust engine, `skat bench` (one thread, no Python) | - | {rust:,.0f} | - | - | - |")
        best = max(dps for name, _, dps, _ in rows if name.startswith("skat_engine.Batch"))
        print(f"\nBatched form: {best / rust:.2f} of the Rust engine bench's deals/s (target: at least 0.25).")


if __name__ == "__main__":
    main()
