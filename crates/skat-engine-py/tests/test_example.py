"""The example that learns (examples/reinforce.py), as a bot author would run it: trained
briefly, then played over the wire through the SDK in `skat arena` against the built-in
random bot on duplicate lists; the arena's paired 95% interval must lie above zero."""

import json
import os
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
