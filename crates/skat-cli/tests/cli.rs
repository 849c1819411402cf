//! The `skat` binary as users run it.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::skat;

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
    // Every row says how the deal ended, passed deals and penalties included.
    assert!(lines.iter().all(|v| v["end"].is_string()), "every row has `end`");
    assert!(lines.iter().filter(|v| v["passed"] == true).all(|v| v["end"] == "passed_in"));
    assert!(lines.iter().filter(|v| v["penalty"] == true).all(|v| v["end"] == "forfeit"));
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

/// `skat arena` over its embedded server: the JSON standings add up with the ISS records
/// it wrote, re-scored by `skat replay`.
#[test]
fn arena_standings_add_up_with_the_records_it_wrote() {
    let dir = std::env::temp_dir().join(format!("skat-arena-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = skat()
        .args([
            "arena",
            "--bots",
            "heuristic,random,random",
            "--deals",
            "12",
            "--lists",
            "2",
            "--seed",
            "3",
            "--json",
            "--records",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let standings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(standings["tables"], 6);
    assert_eq!(standings["deals"], 72);

    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert_eq!(files.len(), 6);
    let mut plain: std::collections::HashMap<String, i64> = Default::default();
    let mut sf: std::collections::HashMap<String, i64> = Default::default();
    let mut deals = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let replay = skat().arg("replay").arg(f).output().unwrap();
        assert!(replay.status.success());
        for (line, result) in text.lines().zip(String::from_utf8(replay.stdout).unwrap().lines()) {
            deals += 1;
            let r: serde_json::Value = serde_json::from_str(result).unwrap();
            assert_eq!(r["iss_agrees"], true);
            let name = |i: u64| {
                let key = format!("P{i}[");
                let start = line.find(&key).unwrap() + key.len();
                line[start..start + line[start..].find(']').unwrap()].to_string()
            };
            let value = r["value"].as_i64().unwrap();
            let who = if r["penalty"] == true { r["offender"].as_u64() } else { r["declarer"].as_u64() };
            if let Some(d) = who {
                *plain.entry(name(d)).or_default() += value;
                let won = r["won"] == true;
                *sf.entry(name(d)).or_default() += if won { value + 50 } else { value - 50 };
                if !won {
                    for other in (0..3).filter(|o| *o != d) {
                        *sf.entry(name(other)).or_default() += 40;
                    }
                }
            }
        }
    }
    assert_eq!(deals, 72);
    for bot in standings["bots"].as_array().unwrap() {
        let name = bot["bot"].as_str().unwrap();
        assert_eq!(
            bot["plain_total"].as_i64().unwrap(),
            plain.get(name).copied().unwrap_or(0),
            "{name} plain"
        );
        let sf_total: i64 =
            bot["seeger_fabian_per_table"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).sum();
        assert_eq!(sf_total, sf.get(name).copied().unwrap_or(0), "{name} Seeger-Fabian");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The README's main command: the server with its live demo prints the game as it happens
/// and how to connect a bot, and stops cleanly on SIGTERM.
#[test]
fn serve_demo_prints_the_live_game_and_stops_on_sigterm() {
    use std::io::{BufRead, BufReader};
    let mut child = skat()
        .args(["serve", "--addr", "127.0.0.1:0", "--metrics-addr", "off", "--demo", "--demo-delay", "0ms"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = String::new();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::time::Instant::now() < deadline {
        let Some(Ok(line)) = lines.next() else { break };
        seen.push_str(&line);
        seen.push('\n');
        if seen.contains("trick  1:") && seen.contains("deal 3/36") {
            break;
        }
    }
    assert!(seen.contains("three open seats"), "{seen}");
    assert!(seen.contains("bot --server http://127.0.0.1:"), "{seen}");
    assert!(seen.contains("deal 1/36"), "{seen}");
    assert!(seen.contains("trick  1:"), "{seen}");
    let pid = child.id().to_string();
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

#[test]
fn loadbench_stops_on_time_mid_deal_and_reports() {
    use std::time::{Duration, Instant};
    let mut child = skat()
        .args(["loadbench", "--tables", "3", "--deals", "144", "--duration", "1s"])
        .args(["--idle-tables", "0", "--baseline", "100ms"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("loadbench --duration 1s was still running after 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("stopped by --duration"), "{text}");
    assert!(text.contains("deals/s"), "{text}");
}

/// `--rounds` alternates the databases and summarises medians, each ratio against the
/// first database of the same round, with the CPU each deal cost.
#[test]
fn loadbench_rounds_alternate_databases_and_report_medians() {
    let out = skat()
        .args(["loadbench", "--tables", "2", "--deals", "2", "--duration", "20s", "--rounds", "2"])
        .args(["--idle-tables", "0", "--baseline", "50ms", "--database", "memory,sqlite"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("medians over 2 rounds"), "{text}");
    // Two rounds of two databases: four runs in the summary, memory first in each round.
    let summary = text.split("summary (").nth(1).expect("a summary");
    let runs: Vec<&str> = summary.lines().filter(|l| l.contains("deals/s (")).collect();
    assert_eq!(runs.len(), 4, "{text}");
    assert!(
        runs[0].trim_start().starts_with("memory") && runs[2].trim_start().starts_with("memory"),
        "{text}"
    );
    assert!(runs[0].contains("(100%)") && runs[2].contains("(100%)"), "{text}");
    assert!(text.contains("ms CPU/deal"), "{text}");
    // The out-of-range refusal names the bound.
    let bad = skat().args(["loadbench", "--rounds", "0"]).output().unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--rounds"));
    // An external server has one journal: rounds over databases are refused, not ignored.
    let external =
        skat().args(["loadbench", "--server", "http://127.0.0.1:9", "--rounds", "2"]).output().unwrap();
    assert!(!external.status.success());
    assert!(String::from_utf8_lossy(&external.stderr).contains("--server"));
}

/// The demo's open table can be played to the end, and then a fresh one opens (and is
/// announced); the finished one says so when joined.
#[test]
fn the_demo_opens_a_fresh_table_when_the_visitors_table_finishes() {
    use std::io::{BufRead, BufReader};
    let mut child = skat()
        .args(["serve", "--addr", "127.0.0.1:0", "--metrics-addr", "off", "--demo", "--demo-delay", "50ms"])
        .args(["--action-timeout", "20s"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(240);
    let next = |pattern: &str| -> String {
        while std::time::Instant::now() < deadline {
            if let Ok(line) = rx.recv_timeout(std::time::Duration::from_secs(1))
                && line.contains(pattern)
            {
                return line;
            }
        }
        panic!("no line with `{pattern}`");
    };
    let line = next("three open seats");
    let table = line.split_whitespace().find(|w| w.starts_with('t') && w.len() > 8).unwrap().to_string();
    let hint = next("bot --server http://");
    let server = hint.split_whitespace().find(|w| w.starts_with("http://")).unwrap().to_string();
    let bots: Vec<_> = (0..3)
        .map(|i| {
            skat()
                .args([
                    "bot",
                    "--strategy",
                    "heuristic",
                    "--server",
                    &server,
                    "--table",
                    &table,
                    "--seat",
                    &i.to_string(),
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut b in bots {
        assert!(b.wait().unwrap().success());
    }
    let fresh = next("is finished (36/36 deals). A fresh one");
    assert!(fresh.contains(&table), "{fresh}");
    let again = next("three open seats");
    assert!(!again.contains(&table), "a different table: {again}");
    // The finished table says so.
    let out = skat().args(["bot", "--server", &server, "--table", &table]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("finished (36/36 deals played)") && err.contains("TABLE_FINISHED"), "{err}");
    let pid = child.id().to_string();
    Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(child.wait().unwrap().success());
}

/// docs/writing-a-bot.md lists the whole bid ladder, as the engine has it.
#[test]
fn the_bot_guide_lists_the_whole_bid_ladder() {
    let guide =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/writing-a-bot.md")).unwrap();
    let start =
        guide.find("**The bid ladder**: ").expect("the ladder in the guide") + "**The bid ladder**: ".len();
    let text: String = guide[start..].chars().take_while(|c| *c != '(').collect();
    let listed: Vec<u16> =
        text.split(',').map(|v| v.trim().trim_end_matches('.').parse().expect("a number")).collect();
    assert_eq!(listed, skat_engine::bid::LADDER.to_vec());
}

/// `skat arena --sprt`: heuristic against random accepts H1 at the first lists it may
/// decide on; random against random accepts H0.
#[test]
fn arena_sprt_decides_a_real_pairing_both_ways() {
    let sprt = |bots: &str, d1: &str| -> serde_json::Value {
        let out = skat()
            .args(["arena", "--in-process", "--no-records", "--json", "--sprt", "--bots", bots])
            .args(["--d0", "0", "--d1", d1, "--seed", "9"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let better = sprt("heuristic,random,random", "20");
    assert_eq!(better["verdict"], "h1", "{better}");
    assert!(better["state"]["lists"].as_u64().unwrap() <= 20, "a handful of lists: {better}");
    let bounds = better["bounds"].as_array().unwrap();
    assert!(better["llr"].as_f64().unwrap() >= bounds[1].as_f64().unwrap());
    let same = sprt("random,random,random", "150");
    assert_eq!(same["verdict"], "h0", "{same}");
    assert!(same["llr"].as_f64().unwrap() <= same["bounds"][0].as_f64().unwrap());
    assert!(same["standings"]["bots"].as_array().unwrap().len() == 3);
}

/// `skat analyze`: real ISS records judged with all cards open and on what each player
/// knew: one line per record, the last a summary per player; some card of these humans'
/// and bots' games loses points.
#[test]
fn analyze_judges_real_records_card_by_card() {
    let text = std::fs::read_to_string(RECORDS).unwrap();
    let some: Vec<&str> = text.lines().filter(|l| l.starts_with("(;")).take(12).collect();
    let dir = std::env::temp_dir().join(format!("skat-analyze-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("some.sgf");
    std::fs::write(&file, some.join("\n")).unwrap();
    let out = skat()
        .args(["analyze", "--format", "json", "--worlds", "6", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), some.len() + 1);
    let cards: Vec<&serde_json::Value> =
        lines.iter().filter_map(|l| l["cards"].as_array()).flatten().collect();
    assert!(!cards.is_empty());
    assert!(cards.iter().all(|c| c["choices"].as_u64().unwrap() > 1), "a forced card is not judged");
    assert!(cards.iter().any(|c| c["loss"].as_u64().unwrap() > 0), "somebody lost points with cards open");
    // On what each player knew: every card with a choice judged over at most 6 worlds; a
    // mark only where the loss's interval lies above zero; some of these are marked.
    for c in &cards {
        let worlds = c["known"]["worlds"].as_u64().unwrap();
        assert!((1..=6).contains(&worlds), "{c}");
        if c["mark"] != "" {
            assert!(c["known"]["interval"][0].as_f64().unwrap() > 0.0, "{c}");
        }
    }
    assert!(cards.iter().any(|c| c["mark"] != ""), "no card marked");
    assert!(lines.last().unwrap()["summary"].as_object().is_some_and(|s| !s.is_empty()));
    // The same analysis for people (the default): a line per deal, the marked cards in
    // words with what they cost, and the accuracy table; no JSON.
    let text = skat().args(["analyze", "--worlds", "6", file.to_str().unwrap()]).output().unwrap();
    assert!(text.status.success());
    let text = String::from_utf8(text.stdout).unwrap();
    assert_eq!(text.lines().filter(|l| l.starts_with("deal ")).count(), some.len(), "{text}");
    assert!(text.contains("on what it knew") && text.contains("accuracy"), "{text}");
    assert!(!text.contains('{'), "no JSON in the report:\n{text}");
    // Every mark says what earned it: card points, or the winning chance.
    for c in cards.iter().filter(|c| c["mark"] != "") {
        let by = c["mark_by"].as_str().unwrap();
        assert!(by == "card points" || by == "winning chance", "{c}");
        if by == "card points" {
            assert!(c["known"]["loss"].as_f64().unwrap() >= 5.0, "{c}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `skat capacity` against a running server, as an operator sizes one: it ramps, reads the
/// server's own metrics (its p99, memory, descriptors, tasks) and names the capacity; a
/// think distribution it cannot read is refused with the forms it takes.
#[test]
fn capacity_ramps_against_a_running_server_and_reads_its_metrics() {
    let server = common::serve()
        .metrics()
        .args(["--database", "memory", "--max-tables-per-client", "1000", "--max-streams-per-client", "1000"])
        .start();
    let (port, metrics) = (server.port(), server.metrics.expect("metrics on").port());
    tokio::runtime::Runtime::new().unwrap().block_on(common::client(port));
    let out = skat()
        .args([
            "capacity",
            "--server",
            &format!("http://127.0.0.1:{port}"),
            "--metrics",
            &format!("127.0.0.1:{metrics}"),
        ])
        .args(["--tables", "3", "--step", "3", "--max-tables", "6", "--window", "3s", "--think", "fixed:5ms"])
        .args(["--deals", "2", "--p99", "10s"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<&str> =
        text.lines().filter(|l| l.trim_start().chars().next().is_some_and(|c| c.is_ascii_digit())).collect();
    assert_eq!(rows.len(), 2, "two windows, 3 then 6 tables:\n{text}");
    assert!(rows[1].split_whitespace().nth(1) == Some("6"), "{text}");
    // The server's own figures: its p99 (in µs, like the bots') next to the bots'.
    assert_eq!(rows[1].matches(" µs").count(), 3, "bot p50, bot p99, server p99:\n{text}");
    assert!(text.contains("capacity: 6 tables"), "{text}");
    let bad = skat().args(["capacity", "--think", "gauss:1s"]).output().unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("pareto:DURATION"));
}

/// `skat capacity`'s bots come back after a drop as the SDKs do, after the last event they
/// saw: a bot away for several deals (its seat forfeiting on a 100 ms clock) reads events
/// its table no longer holds, which the server derives from the inputs and counts; asked
/// to resume from the table as it is now, it reads nothing old. Both play on without
/// errors.
#[test]
fn capacity_bots_resume_after_the_last_event_they_saw() {
    let derived = |from: &str| {
        let out = skat()
            .args(["capacity", "--database", "memory", "--soak", "8s", "--window", "4s", "--warmup", "1s"])
            .args(["--tables", "3", "--think", "fixed:5ms", "--deals", "6", "--action-timeout", "100ms"])
            .args(["--disconnect", "1", "--away", "4s", "--resume-from", from])
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
        assert!(text.contains(" 0 errors, "), "{text}");
        let line = text.lines().find(|l| l.starts_with("server: ")).unwrap_or_else(|| panic!("{text}"));
        line.split_whitespace().nth(1).and_then(|n| n.parse::<u64>().ok()).unwrap_or_else(|| panic!("{line}"))
    };
    assert!(derived("last") >= 1, "a bot away for deals resumes from events the table derives");
    assert_eq!(derived("now"), 0);
}

/// The binary runs on the allocator its version names: mimalloc in the default build
/// (its own start-up line, asked for by `MIMALLOC_VERBOSE`, proves it is linked and in
/// use), the system's with `--no-default-features`.
#[test]
fn the_version_names_the_allocator_in_use() {
    let out = skat().arg("--version").env("MIMALLOC_VERBOSE", "1").output().unwrap();
    assert!(out.status.success());
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let mimalloc = cfg!(feature = "mimalloc");
    let named = if mimalloc { "(allocator: mimalloc)" } else { "(allocator: the system's)" };
    assert!(stdout.contains(named), "{stdout}");
    assert_eq!(stderr.contains("mimalloc: process init"), mimalloc, "{stderr}");
}

/// A seat survives its client's crash (issue 51): `skat bot --join-key K` killed with
/// SIGKILL in the middle of a list and started again with the same key and name gets
/// its seat back (no second seat), plays on and finishes the list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_killed_mid_list_gets_its_seat_back_with_its_join_key() {
    use std::process::Stdio;
    let server = common::serve().args(["--database", "memory", "--action-timeout", "20s"]).start();
    let port = server.port();
    let mut c = common::client(port).await;
    let table = c
        .create_table(skat_proto::pb::CreateTableRequest { deals: 4, seed: Some(11), ..Default::default() })
        .await
        .unwrap()
        .into_inner()
        .table_id;
    let server = format!("127.0.0.1:{port}");
    let bot = |key: &str| {
        skat()
            .args(["bot", "--strategy", "random", "--server", &server, "--table", &table, "--name", "crashy"])
            .args(["--join-key", key])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    const KEY: &str = "0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9";
    let mut first = common::Kill(bot(KEY));
    let _others: Vec<common::Kill> = (0..2)
        .map(|_| {
            common::Kill(
                skat()
                    .args(["bot", "--strategy", "heuristic", "--server", &server, "--table", &table])
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap(),
            )
        })
        .collect();
    // Killed while the list is being played.
    let view = |c: &mut skat_proto::pb::skat_service_client::SkatServiceClient<tonic::transport::Channel>| {
        let mut c = c.clone();
        let table = table.clone();
        async move {
            c.get_table(skat_proto::pb::GetTableRequest { table_id: table })
                .await
                .unwrap()
                .into_inner()
                .table
                .unwrap()
        }
    };
    for _ in 0..200 {
        if view(&mut c).await.seq > 12 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    first.0.kill().unwrap();
    first.0.wait().unwrap();
    let at_kill = view(&mut c).await;
    assert_eq!(at_kill.status, skat_proto::pb::TableStatus::Playing as i32, "killed mid-list");
    let again = bot(KEY).wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&again.stdout);
    assert!(again.status.success(), "{said}");
    assert!(said.contains("finished"), "{said}");
    let v = view(&mut c).await;
    assert_eq!(v.status, skat_proto::pb::TableStatus::Finished as i32, "the list was played to its end");
    let named: Vec<&str> = v.seat_info.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(named.iter().filter(|n| **n == "crashy").count(), 1, "one seat, not two: {named:?}");
}

/// `--huge-pages` (docs/deploy.md, "The allocator"): by default the server's process
/// turns transparent huge pages off with the memory journal and leaves them as it found
/// them with a durable one; `off` turns them off with any journal. Read from the kernel's
/// own view of each process (`THP_enabled` in /proc/PID/status), and the log says so.
#[test]
fn huge_pages_are_off_for_the_memory_journal_and_left_alone_for_a_durable_one() {
    let thp = |pid: &str| {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let line = status.lines().find(|l| l.starts_with("THP_enabled:")).expect("a kernel that shows THP");
        line.split_whitespace().nth(1).unwrap() == "1"
    };
    let inherited = thp("self");
    let dir = std::env::temp_dir().join(format!("skat-huge-pages-{}", std::process::id()));
    let cases: [(&[&str], bool, &str); 4] = [
        (&["--database", "memory"], false, "transparent huge pages off for this process"),
        (&["--database", "sqlite"], inherited, "left to the host and the allocator"),
        (
            &["--database", "sqlite", "--huge-pages", "off"],
            false,
            "transparent huge pages off for this process",
        ),
        (&["--database", "memory", "--huge-pages", "on"], inherited, "left to the host and the allocator"),
    ];
    for (args, enabled, said) in cases {
        let server = common::serve().data_dir(&dir).args(args.iter().copied()).start();
        assert_eq!(thp(&server.pid().to_string()), enabled, "{args:?}");
        assert!(server.log().contains(said), "{args:?}: {}", server.log());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
