//! Names that pass for another over the wire (issue 45): look-alikes in capital letters
//! (Greek and Cyrillic beside Latin) and with combining marks, each pair both ways round,
//! at every place a name is given: RegisterBot, UpdateBot's rename, CreateTournament's
//! entrants, CreateTable (its name and its bots) and JoinTable. And the start that keys
//! the names stored before names had several keys: an old colliding pair is logged, both
//! accounts keep working.

mod common;

use common::*;
use skat_proto::pb;
use skat_proto::pb::ErrorReason as R;
use skat_server::{Database, ServerConfig};
use tonic::Code;
use tonic_types::StatusExt as _;

/// The pairs: (a name, its look-alike).
const PAIRS: [(&str, &str); 7] = [
    ("HEAT", "\u{0397}\u{0395}\u{0391}\u{03A4}"), // Greek capitals
    ("HEAT", "\u{041D}\u{0415}\u{0410}\u{0422}"), // Cyrillic capitals
    ("TOP", "\u{03A4}\u{039F}\u{03A1}"),          // Greek
    ("TOP", "\u{0422}\u{041E}\u{0420}"),          // Cyrillic
    ("ABE", "\u{0391}\u{0392}\u{0395}"),          // Greek
    ("kermit", "kermit\u{0301}"),                 // a combining accent
    ("heat", "\u{0397}\u{0395}\u{0391}\u{03A4}"), // small Latin beside Greek capitals
];

const ADMIN: &str = "admin-secret";

async fn server(dir: &std::path::Path) -> TestServer {
    TestServer::start(ServerConfig {
        database: Database::Sqlite(dir.to_path_buf()),
        admin_token: Some(ADMIN.into()),
        ..config()
    })
    .await
}

fn reason(status: &tonic::Status) -> Option<R> {
    let info = status.get_error_details().error_info().cloned()?;
    R::from_str_name(&format!("ERROR_REASON_{}", info.reason))
}

fn metadata(status: &tonic::Status, key: &str) -> Option<String> {
    status.get_error_details().error_info().and_then(|i| i.metadata.get(key).cloned())
}

async fn register(c: &mut Client, name: &str) -> Result<pb::RegisterBotResponse, tonic::Status> {
    c.register_bot(authed(pb::RegisterBotRequest { name: name.into(), owner: String::new() }, ADMIN))
        .await
        .map(tonic::Response::into_inner)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn look_alikes_are_refused_at_registration_and_rename() {
    for (first, second) in PAIRS.iter().flat_map(|&(a, b)| [(a, b), (b, a)]) {
        let dir = tempfile_dir();
        let s = server(&dir).await;
        let mut c = s.client().await;
        register(&mut c, first).await.unwrap_or_else(|e| panic!("{first}: {e}"));
        let refused = register(&mut c, second).await.expect_err(second);
        assert_eq!(refused.code(), Code::AlreadyExists, "{second} beside {first}");
        assert_eq!(reason(&refused), Some(R::AccountExists));
        assert_eq!(metadata(&refused, "existing").as_deref(), Some(first));
        // A rename to the look-alike is refused the same way, and changes nothing.
        register(&mut c, "other").await.unwrap();
        let renamed = c
            .update_bot(authed(
                pb::UpdateBotRequest { name: "other".into(), rename: second.into(), ..Default::default() },
                ADMIN,
            ))
            .await
            .expect_err(second);
        assert_eq!(reason(&renamed), Some(R::AccountExists), "rename to {second} beside {first}");
        let still = c.get_bot(pb::GetBotRequest { name: "other".into() }).await.unwrap().into_inner();
        assert_eq!(still.bot.unwrap().name, "other");
        std::fs::remove_dir_all(&dir).ok();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn look_alikes_cannot_name_entrants_bots_tables_or_players() {
    let dir = tempfile_dir();
    let s = server(&dir).await;
    let mut c = s.client().await;
    let registered = ["HEAT", "TOP", "kermit", "ABE"];
    for name in registered {
        register(&mut c, name).await.unwrap();
    }
    for (real, look_alike) in PAIRS {
        // The look-alike of a registered name names no account: a tournament's entrants
        // and a table's bots are refused rather than matched to the account it imitates.
        if registered.contains(&real) {
            let e = c
                .create_tournament(authed(
                    pb::CreateTournamentRequest {
                        name: "cup".into(),
                        entrants: vec![look_alike.into(), "TOP".into(), "ABE".into()],
                        ..Default::default()
                    },
                    ADMIN,
                ))
                .await
                .expect_err(look_alike);
            assert_eq!(reason(&e), Some(R::UnknownEntrant), "entrant {look_alike}");
            let e = c
                .create_table(pb::CreateTableRequest { bots: vec![look_alike.into()], ..Default::default() })
                .await
                .expect_err(look_alike);
            assert_eq!(reason(&e), Some(R::UnknownEntrant), "table's bot {look_alike}");
        }
        // A person at a hand-made table may not take a bot account's name, nor a
        // look-alike of it, whichever of the pair the account holds.
        let table = create(&mut c, 3, 1, 1).await;
        for player in [real, look_alike] {
            let e = c
                .join_table(pb::JoinTableRequest {
                    table_id: table.clone(),
                    name: player.into(),
                    ..Default::default()
                })
                .await
                .expect_err(player);
            assert_eq!(reason(&e), Some(R::InvalidName), "player {player}");
            assert_eq!(metadata(&e, "field").as_deref(), Some("player"));
            assert_eq!(metadata(&e, "rule").as_deref(), Some("account"));
        }
        // Nothing was seated.
        assert!(view(&mut c, &table, None).await.seat_info.iter().all(|s| !s.occupied));
    }
    // The house: a table or a player that passes for a house bot, in capitals of another
    // script, is refused without the admin token, and allowed with it.
    let greek_house = "\u{0397}OUSE-pimc";
    for name in [greek_house, "house-x"] {
        let request = pb::CreateTableRequest { name: name.into(), ..Default::default() };
        let e = c.create_table(request.clone()).await.expect_err(name);
        assert_eq!(reason(&e), Some(R::InvalidName));
        assert_eq!(metadata(&e, "field").as_deref(), Some("table"));
        assert_eq!(metadata(&e, "rule").as_deref(), Some("house"));
        c.create_table(authed(request, ADMIN)).await.expect("the operator's table");
    }
    let table = create(&mut c, 3, 1, 2).await;
    let e = c
        .join_table(pb::JoinTableRequest {
            table_id: table.clone(),
            name: greek_house.into(),
            ..Default::default()
        })
        .await
        .expect_err("house player");
    assert_eq!(metadata(&e, "rule").as_deref(), Some("house"));
    // A name that passes for nobody is seated.
    join(&mut c, &table, "Hans").await;
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_stored_before_their_keys_are_keyed_at_start_and_old_pairs_logged() {
    let capture = skat_testkit::CapturedLog::default();
    tracing_subscriber::fmt().with_env_filter("warn").with_ansi(false).with_writer(capture.writer()).init();
    let dir = tempfile_dir();
    let mut s = server(&dir).await;
    let mut c = s.client().await;
    register(&mut c, "HEAT").await.unwrap();
    register(&mut c, "spare").await.unwrap();
    s.stop();
    drop(s);
    // As a database from before the keys: the keys table empty, and a second account
    // whose name (Greek capitals) the old single key let in beside `HEAT`.
    let pool = pool(&dir).await;
    sqlx::query("DELETE FROM skat_account_name_keys").execute(&pool).await.unwrap();
    sqlx::query("UPDATE skat_accounts SET name = $1 WHERE name = 'spare'")
        .bind(PAIRS[0].1)
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query("UPDATE skat_account_names SET name = $1, name_key = $2 WHERE name = 'spare'")
        .bind(PAIRS[0].1)
        .bind(skat_league::primary_key(PAIRS[0].1))
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
    let s = server(&dir).await;
    let mut c = s.client().await;
    // Both old accounts are there and found by their names; the operator was told.
    for name in ["HEAT", PAIRS[0].1] {
        let bot = c.get_bot(pb::GetBotRequest { name: name.into() }).await.unwrap().into_inner();
        assert_eq!(bot.bot.unwrap().name, name);
    }
    let logged = capture.text();
    assert!(logged.contains("looks like another's"), "{logged}");
    assert!(logged.contains(PAIRS[0].1) && logged.contains("HEAT"), "{logged}");
    // The names are keyed now: the Cyrillic look-alike and the small letters are refused.
    for name in [PAIRS[1].1, "heat"] {
        assert_eq!(reason(&register(&mut c, name).await.expect_err(name)), Some(R::AccountExists));
    }
    std::fs::remove_dir_all(&dir).ok();
}

async fn pool(dir: &std::path::Path) -> sqlx::AnyPool {
    sqlx::any::install_default_drivers();
    sqlx::AnyPool::connect(&format!("sqlite://{}/skat.db", dir.display())).await.unwrap()
}

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("skat-names-{}-{}", std::process::id(), rand_u64()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn rand_u64() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64);
    h.finish()
}
