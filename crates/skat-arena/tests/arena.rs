//! Duplicate fairness and strength, straight on the engine.

use std::sync::Arc;

use skat_arena::run::{OpenSeat, run};
use skat_arena::{ArenaConfig, Entry, Mode};
use skat_engine::Position;
use skat_league::standings::{mean_sd, t975};

fn config(entries: &[&str], lists: u32, deals: u32, mode: Mode) -> ArenaConfig {
    ArenaConfig {
        entries: entries.iter().map(|e| Entry::parse(e).unwrap()).collect(),
        deals,
        lists,
        seed: 7,
        duplicate: true,
        parallel: 4,
        mode,
        records_dir: None,
        action_ms: 0,
        progress: false,
        census: None,
    }
}

fn no_open() -> Arc<dyn Fn(&OpenSeat) + Send + Sync> {
    Arc::new(|_| panic!("no open seats here"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duplicate_plays_the_same_deals_under_every_rotation() {
    for n in [3usize, 4] {
        let bots = ["heuristic", "random", "random", "heuristic"];
        // Records kept (the cards are compared), in a folder of their own.
        let folder = std::env::temp_dir().join(format!("skat-arena-duplicate-{}-{n}", std::process::id()));
        let cfg =
            ArenaConfig { records_dir: Some(folder.clone()), ..config(&bots[..n], 2, 8, Mode::InProcess) };
        let (outcomes, standings) = run(&cfg, no_open()).await.unwrap();
        let _ = std::fs::remove_dir_all(&folder);
        assert_eq!(outcomes.len(), 2 * n);
        assert_eq!(standings.tables, 2 * n);
        for list in 0..2 {
            let tables: Vec<_> = outcomes.iter().filter(|o| o.plan.list == list).collect();
            assert_eq!(tables.len(), n, "one table per rotation");
            for deal in 0..8 {
                let first = &tables[0].records[deal];
                let mut holders = vec![Vec::new(); 3];
                for t in &tables {
                    let r = &t.records[deal];
                    assert_eq!(r.dealt, first.dealt, "same cards in every rotation");
                    for p in Position::ALL {
                        holders[p.index()].push(t.plan.seating[usize::from(r.seats[p.index()])]);
                    }
                }
                // Over the rotations, each hand is held by as many different entries as
                // there are rotations: each bot gets each hand.
                for h in &holders {
                    let mut distinct = h.clone();
                    distinct.sort_unstable();
                    distinct.dedup();
                    assert_eq!(distinct.len(), n.min(h.len()));
                }
            }
        }
    }
}

/// The test: for each seeded list, the heuristic's mean Seeger-Fabian points over the
/// rotations minus the random bots' mean over the same deals is one paired observation.
/// Over 12 lists, a one-sample Student's t-test of those differences must reject "no
/// difference" far beyond the 0.1% level (t > 4.44 for 11 degrees of freedom), and the
/// mean margin must exceed 1,000 points per list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn heuristic_beats_random_by_a_significant_margin() {
    let cfg = config(&["heuristic", "random", "random"], 12, 36, Mode::InProcess);
    let (outcomes, standings) = run(&cfg, no_open()).await.unwrap();
    let mut diffs = Vec::new();
    for list in 0..12 {
        let tables: Vec<_> =
            outcomes.iter().enumerate().filter(|(_, o)| o.plan.list == list).map(|(i, _)| i).collect();
        let sf = |entry: usize| -> f64 {
            tables.iter().map(|i| standings.bots[entry].seeger_fabian_per_table[*i] as f64).sum::<f64>()
                / tables.len() as f64
        };
        diffs.push(sf(0) - (sf(1) + sf(2)) / 2.0);
    }
    let (mean, sd) = mean_sd(&diffs);
    let t = mean / (sd / (diffs.len() as f64).sqrt());
    println!("heuristic - random per list: mean {mean:.0}, sd {sd:.0}, t = {t:.1} (df 11)");
    assert!(mean > 1000.0, "margin {mean}");
    assert!(t > 4.437, "t = {t}");
    // The reported interval agrees: the heuristic's lies above both random bots'.
    let h = standings.bots[0].seeger_fabian_ci95.unwrap();
    for r in &standings.bots[1..] {
        assert!(h[0] > r.seeger_fabian_ci95.unwrap()[1]);
    }
    assert!(t975(11) > 2.0);
    // The standings' own paired differences: one per two entries, one observation per
    // list (12); the heuristic's against each random bot lies far above zero.
    assert_eq!(standings.paired.len(), 3);
    for (k, p) in standings.paired[..2].iter().enumerate() {
        assert_eq!(
            (p.a.as_str(), p.b.as_str(), p.lists),
            ("heuristic", standings.bots[k + 1].bot.as_str(), 12)
        );
        let [lo, hi] = p.ci95.expect("an interval over 12 lists");
        assert!(lo > 500.0 && lo < p.mean && p.mean < hi, "{p:?}");
    }
    // Their average is the hand-computed margin above.
    let both = (standings.paired[0].mean + standings.paired[1].mean) / 2.0;
    assert!((both - mean).abs() < 1e-6, "{both} against {mean}");
    assert!(standings.to_text().contains("paired, on the same deals"));
    // The figures per class of game add up to the totals: every game declared is in one
    // class, and the heuristic (which plays nulls and grands) shows more than one.
    for b in &standings.bots {
        let declared: u32 = b.classes.iter().map(|c| c.declared).sum();
        let won: u32 = b.classes.iter().map(|c| c.won).sum();
        assert_eq!((declared, won), (b.declared, b.won), "{}", b.bot);
    }
    let h = &standings.bots[0].classes;
    assert!(h.iter().filter(|c| c.declared > 0).count() >= 2, "{h:?}");
    // In a three-seat table each game has one declarer and two defenders.
    let (declared, defended): (u32, u32) = standings
        .bots
        .iter()
        .flat_map(|b| &b.classes)
        .fold((0, 0), |(a, d), c| (a + c.declared, d + c.defended));
    assert_eq!(defended, 2 * declared);
    assert!(standings.to_text().contains("SF/declared"));
}

/// A server of the test's own on loopback (the arena runs no server: `skat arena` starts
/// one like this when it is given neither `--in-process` nor `--server`).
async fn embedded() -> (Mode, skat_testkit::InProcess) {
    let cfg = skat_server::ServerConfig {
        max_tables_per_client: 1000,
        max_streams_per_client: usize::MAX,
        max_connections_per_client: usize::MAX,
        ..skat_testkit::InProcess::fast()
    };
    let running = skat_testkit::InProcess::start(cfg).await;
    (Mode::Remote(skat_sdk::ServerAddress::new(&running.url())), running)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedded_server_and_in_process_agree_on_the_same_competition() {
    // Random bots are seeded per seat and table, and the heuristic is deterministic, so
    // the same competition gives the same records over gRPC as on the engine.
    // With a records folder, the outcomes keep every move (without, only the results).
    let (server, _stop) = embedded().await;
    let folder =
        |name: &str| std::env::temp_dir().join(format!("skat-arena-agree-{}-{name}", std::process::id()));
    let kept = |mode, name| ArenaConfig {
        records_dir: Some(folder(name)),
        ..config(&["heuristic", "random", "heuristic"], 1, 6, mode)
    };
    let grpc = run(&kept(server, "grpc"), no_open()).await.unwrap();
    let local = run(&kept(Mode::InProcess, "local"), no_open()).await.unwrap();
    for (a, b) in grpc.0.iter().zip(&local.0) {
        assert_eq!(a.plan, b.plan);
        assert!(a.records.iter().all(|r| !r.moves.is_empty()), "the moves are kept with records");
        assert_eq!(a.records, b.records);
    }
    assert_eq!(grpc.1, local.1);
    let bare =
        run(&config(&["heuristic", "random", "heuristic"], 1, 6, Mode::InProcess), no_open()).await.unwrap();
    assert!(bare.0.iter().all(|t| t.records.is_empty() && t.iss.is_empty()), "no records without a folder");
    for (a, b) in bare.0.iter().zip(&local.0) {
        let results: Vec<_> = b.records.iter().map(skat_engine::DealRecord::result).collect();
        assert_eq!((a.results.len(), &a.results), (6, &results), "the same results");
    }
    assert_eq!(bare.1, local.1, "the same standings");
    for name in ["grpc", "local"] {
        let _ = std::fs::remove_dir_all(folder(name));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_census_plays_out_the_same_games_as_a_full_run() {
    // Deterministic bots: a deal's auction and declaration do not depend on how the
    // deals before it were played out, so a census has exactly the full run's games of
    // its family, move for move, and none of the others.
    use skat_arena::classes::Family;
    use skat_engine::Outcome;
    let folder =
        |name: &str| std::env::temp_dir().join(format!("skat-arena-census-{}-{name}", std::process::id()));
    let bots = ["heuristic", "pimc-fast", "heuristic"];
    let kept = |name: &str, census| ArenaConfig {
        records_dir: Some(folder(name)),
        census,
        ..config(&bots, 1, 24, Mode::InProcess)
    };
    let (full, _) = run(&kept("full", None), no_open()).await.unwrap();
    let mut played = 0;
    for family in [Family::Suit, Family::Grand, Family::Null] {
        let (census, standings) = run(&kept(&family.to_string(), Some(family)), no_open()).await.unwrap();
        for (f, c) in full.iter().zip(&census) {
            let expected: Vec<_> = f
                .records
                .iter()
                .filter(|r| matches!(&r.outcome, Outcome::Game(g) if Family::of(g.contract.game) == family))
                .cloned()
                .collect();
            assert!(c.records.iter().all(|r| !r.moves.is_empty()));
            assert_eq!(c.records, expected, "{family}");
            played += c.records.len();
        }
        let text = standings.census_text(family);
        assert!(text.starts_with(&format!("census of {family} games")), "{text}");
    }
    let games =
        full.iter().flat_map(|t| &t.records).filter(|r| matches!(r.outcome, Outcome::Game(_))).count();
    assert_eq!(played, games, "every game is in the census of its family");
    assert!(games > 0);
    for name in ["full", "suit", "grand", "null"] {
        let _ = std::fs::remove_dir_all(folder(name));
    }
}

#[tokio::test]
async fn bad_configurations_are_refused() {
    assert!(Entry::parse("chess").is_err());
    let mut cfg = config(&["heuristic", "random"], 1, 6, Mode::InProcess);
    assert!(run(&cfg, no_open()).await.is_err());
    cfg.entries.push(Entry::Open(Some("mybot".into())));
    assert!(run(&cfg, no_open()).await.is_err(), "open seats need a server");
    let remote = Mode::Remote(skat_sdk::ServerAddress::new("http://127.0.0.1:1"));
    let census = ArenaConfig {
        census: Some(skat_arena::classes::Family::Null),
        ..config(&["heuristic", "random", "random"], 1, 6, remote)
    };
    let refused = run(&census, no_open()).await.map(|_| ()).unwrap_err().to_string();
    assert!(refused.contains("in process"), "{refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_seat_played_from_outside_finishes_a_36_deal_list() {
    // The open seat's bot is started from the hint, as a user would: server, table, token.
    let on_open: Arc<dyn Fn(&OpenSeat) + Send + Sync> = Arc::new(|s: &OpenSeat| {
        let (server, table, token) = (s.server.clone(), s.table_id.clone(), s.token.clone());
        assert!(server.starts_with("http://127.0.0.1:"), "the hint names the server: {server}");
        tokio::spawn(async move {
            let mut bot = skat_bots::Strategy::by_name("random", 3).unwrap();
            skat_sdk::play::play_with_token(&server, &table, &token, &mut bot).await.unwrap();
        });
    });
    let (server, _stop) = embedded().await;
    let cfg = config(&["heuristic", "random", "open:mybot"], 1, 36, server);
    assert_eq!(cfg.label(2), "mybot", "an open seat carries its name into the standings");
    let (outcomes, standings) = tokio::time::timeout(std::time::Duration::from_secs(300), run(&cfg, on_open))
        .await
        .expect("the arena must finish, not hang at the end of the list")
        .unwrap();
    assert_eq!(outcomes.len(), 3, "one table per rotation");
    assert!(outcomes.iter().all(|o| o.results.len() == 36 && o.records.is_empty()));
    assert_eq!(standings.tables, 3);
    assert!(format!("{standings:?}").contains("mybot"));
}
