"""The SDK's observation equals the research environment's: three PolicyBots play a list
over the wire on the real server; afterwards the same list is replayed in the engine's
Python package (``skat_engine``, same seed, so the same cards) with the ids they chose, and
at every decision the observation and the legal ids the SDK computed from its folded
stream must be exactly what the environment gives that seat."""

import os
import random
import threading
from collections import defaultdict

import pytest

from skat.v1 import skat_pb2 as pb
from skat_sdk import Seat, play
from skat_sdk.encoding import LAYOUT, OBS_LEN, PolicyBot

from test_e2e import server  # noqa: F401  (the fixture: a real `skat serve`)

try:
    import numpy as np
    import skat_engine
except ImportError:  # pragma: no cover - the test command installs both
    skat_engine = None


def test_the_layout_is_the_environments():
    if skat_engine is None:
        if os.environ.get("SKAT_REQUIRE_ENGINE"):
            pytest.fail("skat_engine is required (SKAT_REQUIRE_ENGINE) but not installed")
        pytest.skip("skat_engine not installed")
    assert OBS_LEN == skat_engine.OBS_LEN
    assert [(n, o, k) for n, o, k, _ in skat_engine.LAYOUT] == [(n, o, k) for n, (o, k) in LAYOUT.items()]


@pytest.mark.skipif(skat_engine is None and not os.environ.get("SKAT_REQUIRE_ENGINE"), reason="skat_engine not installed")
def test_observations_over_the_wire_equal_the_environments(server):  # noqa: F811
    addr, stub = server
    deals, seed = 9, 2026
    table = stub.CreateTable(pb.CreateTableRequest(name="encoding", seats=3, deals=deals, seed=seed)).table_id
    # Per seat and deal, the decisions in order: (observation, legal ids, chosen id).
    log = defaultdict(list)
    lock = threading.Lock()

    def seat_thread(index):
        rng = random.Random(index)

        def record(k, pending, obs, ids, choice):
            with lock:
                log[(index, k.frame.number)].append((obs, ids, choice))

        # Mostly low bids and passes, so that games are declared and played out.
        def policy(obs, ids):
            low = [i for i in ids if i >= 64 and i < 127]
            if low and rng.random() < 0.6:
                return rng.choice([i for i in ids if i >= 127] or low)
            return rng.choice(ids)

        play(Seat.join(addr, table, f"policy{index}", index), PolicyBot(policy, on_decision=record))

    threads = [threading.Thread(target=seat_thread, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "the list did not finish"

    env = skat_engine.Table(seats=3, deals=deals, seed=seed)
    compared = forced = 0
    while not env.is_over:
        s = env.to_move
        ids = env.legal_ids(s)
        queue = log[(s, env.deal_number)]
        obs = env.observe(s)
        if queue and np.array_equal(np.asarray(queue[0][0], dtype=np.float32), obs):
            sdk_obs, sdk_ids, choice = queue.pop(0)
            assert sdk_ids == ids, f"seat {s}, deal {env.deal_number}: legal ids differ"
            compared += 1
        else:
            # A decision the SDK does not ask a bot (one legal action): it must be forced.
            assert len(ids) == 1, f"seat {s}, deal {env.deal_number}: observation differs\n{queue[:1]}\n{obs.tolist()}"
            choice = ids[0]
            forced += 1
        env.step(choice)
    assert all(not q for q in log.values()), "every decision the bots made was replayed"
    assert compared > 150, compared
    # The same list: the environment's scores are the server's.
    view = stub.GetTable(pb.GetTableRequest(table_id=table)).table
    assert [s.seeger_fabian for s in view.standings] == [s[2] for s in env.standings()]


def test_a_finished_list_prints_as_a_table_of_seats_points_and_places():
    from skat.v1 import skat_pb2 as pb
    from skat_sdk.play import Finished

    standings = [
        pb.Standing(seat=0, name="heuristic", plain=210, seeger_fabian=820, declared=9, won=7),
        pb.Standing(seat=1, name="mine", plain=150, seeger_fabian=410, declared=8, won=5),
        pb.Standing(seat=2, name="random", plain=-120, seeger_fabian=-300, declared=6, won=2),
    ]
    f = Finished(seat=1, standings=standings, reconnects=0, decisions=40, table_id="t1")
    text = str(f)
    lines = text.splitlines()
    assert lines[0] == "table t1, seat 1: place 2 of 3"
    # Seat 0 is there (protobuf's text form leaves out fields at zero), best first.
    assert [line.split()[0] for line in lines[2:]] == ["0", ">", "2"]
    assert "heuristic" in lines[2] and "820" in lines[2]
    assert lines[3].startswith("> ") and "5/8" in lines[3]
    assert "seeger_fabian:" not in text and f.place == 2
