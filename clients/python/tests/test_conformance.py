"""The knowledge corpus (``conformance/knowledge.jsonl``: streams exactly as the server
sends them, with the engine's knowledge after every message): this SDK's fold gives the
same knowledge after every event, as the Rust and TypeScript SDKs' do."""

import base64
import json
import pathlib

from skat.v1 import skat_pb2 as pb

from skat_sdk import Knowledge

CORPUS = pathlib.Path(__file__).resolve().parents[3] / "conformance" / "knowledge.jsonl"


def first_difference(path, got, want):
    if isinstance(got, dict) and isinstance(want, dict):
        for key in sorted(set(got) | set(want)):
            d = first_difference(f"{path}.{key}", got.get(key), want.get(key))
            if d:
                return d
        return None
    return None if got == want else f"{path}: {got!r} (SDK) != {want!r} (expected)"


def test_the_sdk_knows_what_the_engine_knows_after_every_event_of_the_corpus():
    checked = 0
    for line in CORPUS.read_text().splitlines():
        case = json.loads(line)
        k = Knowledge(seat=case["seat"])
        for i, message in enumerate(case["messages"]):
            if "event" in message:
                k.apply(pb.Event.FromString(base64.b64decode(message["event"])))
            else:
                k = Knowledge.from_view(pb.TableView.FromString(base64.b64decode(message["snapshot"])))
            d = first_difference("", k.to_dict(), case["expected"][i])
            assert d is None, f"{case['name']}, message {i}: {d}"
            checked += 1
    assert checked > 1000, f"the corpus holds the streams ({checked} messages)"


def test_the_shared_form_is_plain_json():
    k = Knowledge(seat=0)
    assert json.loads(json.dumps(k.to_dict())) == k.to_dict()
    assert k.to_dict()["phase"] == "bidding" and k.to_dict()["to_move"] == "middlehand"
