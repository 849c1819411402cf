//! The knowledge corpus (`conformance/knowledge.jsonl`, streams exactly as the server
//! sends them, with the engine's knowledge after every message): this SDK's fold gives
//! the same knowledge after every event, as the Python and TypeScript SDKs' do.

use base64::Engine as _;
use prost::Message as _;
use serde_json::Value;
use skat_proto::pb;
use skat_sdk::Knowledge;
use skat_sdk::knowledge::{fold, from_view, to_json};

/// The first field where two knowledge objects differ, for the failure message.
fn first_difference(path: &str, a: &Value, b: &Value) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| {
                first_difference(
                    &format!("{path}.{k}"),
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                )
            })
        }
        _ if a == b => None,
        _ => Some(format!("{path}: {a} (SDK) != {b} (expected)")),
    }
}

#[test]
fn the_sdk_knows_what_the_engine_knows_after_every_event_of_the_corpus() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../conformance/knowledge.jsonl");
    let text = std::fs::read_to_string(path).expect("the corpus");
    let b64 = base64::engine::general_purpose::STANDARD;
    let mut checked = 0;
    for line in text.lines() {
        let case: Value = serde_json::from_str(line).expect("a case");
        let name = case["name"].as_str().expect("a name");
        let seat = case["seat"].as_u64().map(|s| skat_engine::Seat::new(s as u8));
        let mut k = Knowledge::new(seat);
        let expected = case["expected"].as_array().expect("expected");
        for (i, message) in case["messages"].as_array().expect("messages").iter().enumerate() {
            if let Some(e) = message["event"].as_str() {
                let event = pb::Event::decode(b64.decode(e).expect("base64").as_slice()).expect("an event");
                fold(&mut k, &event).expect("folds");
            } else {
                let s = message["snapshot"].as_str().expect("an event or a snapshot");
                let view = pb::TableView::decode(b64.decode(s).expect("base64").as_slice()).expect("a view");
                k = from_view(&view).expect("a knowledge from the view");
            }
            let got = to_json(&k);
            if let Some(d) = first_difference("", &got, &expected[i]) {
                panic!("{name}, message {i}: {d}");
            }
            checked += 1;
        }
    }
    assert!(checked > 1000, "the corpus holds the streams ({checked} messages)");
}
