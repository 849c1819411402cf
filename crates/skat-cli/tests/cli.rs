//! The `skat` binary as users run it.

use std::io::Write;
use std::process::{Command, Stdio};

fn skat() -> Command {
    Command::new(env!("CARGO_BIN_EXE_skat"))
}

const RECORDS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../skat-engine/tests/data/records.sgf");

#[test]
fn replay_rescores_the_iss_records() {
    let out = skat().args(["replay", RECORDS]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 37);
    assert!(lines.iter().all(|v| v["iss_agrees"] == true));
    let first = &lines[0];
    assert_eq!(first["id"], "110012");
    assert_eq!(first["game"], "G");
    assert_eq!(first["declarer"], 0);
    assert_eq!(first["matadors"], -4);
    assert_eq!(first["value"], 120);
    assert_eq!(lines.iter().filter(|v| v["penalty"] == true).count(), 1);
    assert_eq!(lines.iter().filter(|v| v["passed"] == true).count(), 3);
}

#[test]
fn a_bad_record_is_reported_and_the_others_still_run() {
    let good = std::fs::read_to_string(RECORDS).unwrap();
    let first = good.lines().next().unwrap();
    let input = format!("{first}\n(;GM[Skat]ID[9]MV[w CJ 1 18]R[];)\n{first}\n");
    let mut child =
        skat().args(["replay", "-"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(!out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[1]["id"], "9");
    assert!(lines[1]["error"].as_str().unwrap().contains("32"));
    assert_eq!(lines[2]["value"], 120);
}

#[test]
fn selfplay_records_replay_to_the_same_results() {
    let out = skat().args(["selfplay", "--games", "300", "--seed", "7"]).output().unwrap();
    assert!(out.status.success());
    let records = String::from_utf8(out.stdout).unwrap();
    assert_eq!(records.lines().count(), 300);
    let mut child =
        skat().args(["replay", "-"]).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(records.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 300);
    assert!(text.lines().all(|l| l.contains("\"iss_agrees\":true")));
    // Every kind of declaration shows up among random players.
    for kind in ["\"game\":\"G\"", "\"game\":\"NO\"", "\"hand\":true", "\"passed\":true", "O\""] {
        assert!(text.contains(kind), "no {kind} in 300 random deals");
    }
    // Same seed, same output.
    let again = skat().args(["selfplay", "--games", "300", "--seed", "7"]).output().unwrap();
    assert_eq!(String::from_utf8(again.stdout).unwrap(), records);
}

#[test]
fn selfplay_json_and_bench_run() {
    let out = skat().args(["selfplay", "--games", "3", "--format", "json"]).output().unwrap();
    assert!(out.status.success());
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(v["moves"].is_array());
        assert!(v["dealt"]["skat"].is_array());
    }
    let out = skat().args(["bench", "--deals", "2000"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().last().unwrap().ends_with("deals/s"));
}
