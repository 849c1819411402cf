"""The examples that learn, as a bot author would run them: reinforce.py trained briefly,
imitate.py fitted to records, each then played over the wire through the SDK in `skat
arena` against the built-in random bot on duplicate lists; the arena's paired 95% interval
must lie above zero."""

import json
import os
import re
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[2]
SKAT = os.environ.get("SKAT_BIN", str(REPO / "target" / "debug" / "skat"))


@pytest.mark.skipif(not pathlib.Path(SKAT).exists() and not os.environ.get("SKAT_REQUIRE_ENGINE"), reason="no skat binary")
def test_the_example_learns_to_beat_random_over_the_wire(tmp_path):
    pytest.importorskip("skat_sdk")
    example = str(HERE.parent / "examples" / "reinforce.py")
    policy = str(tmp_path / "policy.npz")
    subprocess.run([sys.executable, example, "train", "--seconds", "25", "--out", policy], check=True, capture_output=True)
    out = subprocess.run(
        [sys.executable, example, "evaluate", "--policy", policy, "--skat-bin", SKAT, "--lists", "6", "--deals", "12"],
        check=True, capture_output=True, text=True,
    ).stdout
    pair = json.loads(out)
    assert pair["a"] == "learned" and pair["lists"] == 6
    assert pair["ci95"][0] > 0, f"the learned policy does not beat random: {pair}"


@pytest.mark.skipif(not pathlib.Path(SKAT).exists() and not os.environ.get("SKAT_REQUIRE_ENGINE"), reason="no skat binary")
def test_a_policy_cloned_from_records_plays_like_them(tmp_path):
    # Records of the heuristic bot, a policy fitted to its decisions (imitate.py), then
    # seated over the wire: it predicts most held-out decisions and beats random.
    pytest.importorskip("skat_sdk")
    records = tmp_path / "records"
    subprocess.run([SKAT, "arena", "--in-process", "--bots", "heuristic,heuristic,heuristic", "--lists", "4",
                    "--seed", "3", "--records", str(records)], check=True, capture_output=True)
    policy = str(tmp_path / "cloned.npz")
    out = subprocess.run([sys.executable, str(HERE.parent / "examples" / "imitate.py"), "train", "--records",
                          str(records), "--epochs", "3", "--out", policy], check=True, capture_output=True,
                         text=True).stdout
    last = [line for line in out.splitlines() if line.startswith("epoch 3:")][0]
    hit, uniform = (float(x) for x in re.findall(r"(\d+\.\d)%", last))
    assert hit > uniform + 20, f"the cloned policy predicts little: {last}"
    example = str(HERE.parent / "examples" / "reinforce.py")
    pair = json.loads(subprocess.run(
        [sys.executable, example, "evaluate", "--policy", policy, "--skat-bin", SKAT, "--lists", "6", "--deals", "12"],
        check=True, capture_output=True, text=True,
    ).stdout)
    assert pair["ci95"][0] > 0, f"the cloned policy does not beat random: {pair}"
