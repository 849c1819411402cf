//! Every refusal carries a `google.rpc.ErrorInfo` reason a bot can branch on, and the
//! Rust SDK exposes it (`SdkError::reason`). One case per reason of the contract's
//! `ErrorReason`; the test fails when a reason is added without a case here (or a note
//! why no client can cause it).

mod common;

use std::collections::BTreeSet;
use std::time::Duration;

use common::*;
use skat_engine::{Action, Announcement, Bid, Contract, GameType};
use skat_proto::convert;
use skat_proto::pb::{self, ErrorReason as R};
use skat_sdk::SdkError;
use skat_server::ServerConfig;
use tonic::{Code, Request, Status};
use tonic_types::StatusExt as _;

/// Reasons no client can cause: the server answers them only when the machine fails
/// (no randomness), or the server moves on before a client could ask (a finished deal
/// is replaced by the next one in the same step).
/// Not reachable from a client here (a server without a database): STORAGE_UNAVAILABLE
/// needs a failing database (skat-cli/tests/durability.rs makes one fail); the account
/// and tournament reasons need a database (skat-cli/tests/competition.rs and
/// skat-cli/tests/operator.rs), the challenge and people's-table reasons too
/// (skat-cli/tests/challenges.rs), the hosting reasons too (skat-server/tests/hosting.rs,
/// and deploy/test-hosted.sh with podman), and a sandbox's door's (skat-server/tests/doors.rs).
const UNREACHABLE: [R; 27] = [
    R::Unspecified,
    R::Internal,
    R::DealOver,
    R::StorageUnavailable,
    R::AccountExists,
    R::BotTokenInvalid,
    R::AccountDisabled,
    R::AdminRequired,
    R::TournamentNotFound,
    R::UnknownEntrant,
    R::BotNotFound,
    R::TournamentState,
    R::InvalidTournament,
    R::EntrantDisabled,
    R::Embargoed,
    R::ChallengeNotFound,
    R::ChallengeState,
    R::BotUnavailable,
    R::NotAnImage,
    R::ImageTooLarge,
    R::VersionNotFound,
    R::RunnerTokenInvalid,
    R::HostingUnavailable,
    R::NotHosted,
    R::SandboxNotFound,
    R::AccountHosted,
    R::SandboxScope,
];

struct Cases {
    seen: BTreeSet<i32>,
}

impl Cases {
    /// Checks that `result` is refused with `code` and `reason`, through the SDK.
    fn check<T: std::fmt::Debug>(&mut self, result: Result<T, Status>, code: Code, reason: R) {
        let status = result.expect_err(&format!("{reason:?} expected"));
        assert_eq!(status.code(), code, "{reason:?}: {status:?}");
        let sdk = SdkError::from(status);
        assert_eq!(sdk.reason(), Some(reason), "{sdk}");
        self.seen.insert(reason as i32);
    }
}

fn bid(v: u16) -> Action {
    Action::Bid { value: Bid::new(v).unwrap() }
}

/// The token of the seat to move, with its view.
async fn mover(client: &mut Client, table: &str, tokens: &[String]) -> (usize, pb::TableView) {
    let public = view(client, table, None).await;
    let seat = public.deal.unwrap().seat_to_move.expect("a seat to move") as usize;
    (seat, view(client, table, Some(&tokens[seat])).await)
}

/// Plays random legal moves until `stop` says the mover's view is the one wanted.
async fn advance_until(
    client: &mut Client,
    table: &str,
    tokens: &[String],
    rng: &mut RandomClient,
    stop: impl Fn(&pb::TableView) -> bool,
) -> (usize, pb::TableView) {
    for _ in 0..5000 {
        let (seat, own) = mover(client, table, tokens).await;
        if stop(&own) {
            return (seat, own);
        }
        let legal = convert::legal_from(own.deal.as_ref().unwrap().legal.as_ref().unwrap()).unwrap();
        let mut action = rng.choose(&own).unwrap();
        // Keep the deal going: no resignations or claims here.
        while matches!(action, Action::Resign | Action::Claim) {
            action =
                skat_engine::random::RandomPlayer::new(rng.below(1000) as u64).choose_from(&legal).unwrap();
        }
        send(client, table, &tokens[seat], action, Some(own.seq)).await.unwrap();
    }
    panic!("the wanted position never came");
}

fn phase(v: &pb::TableView) -> i32 {
    v.deal.as_ref().map_or(0, |d| d.phase)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_refusal_carries_its_reason() {
    let mut cases = Cases { seen: BTreeSet::new() };
    let server = TestServer::start(ServerConfig {
        max_message_bytes: 1024,
        max_deals: 40,
        max_spectators_per_table: 1,
        stream_stall_timeout: Duration::from_millis(200),
        ..config()
    })
    .await;
    let mut client = server.client().await;
    let mut raw = RawClient::connect(server.server.addr).await;

    // Names under the name policy, refused rather than cleaned.
    cases.check(
        client.create_table(pb::CreateTableRequest { name: "x".repeat(65), ..Default::default() }).await,
        Code::InvalidArgument,
        R::InvalidName,
    );
    let named = client.create_table(pb::CreateTableRequest::default()).await.unwrap().into_inner().table_id;
    let bidi = pb::JoinTableRequest { table_id: named, name: "\u{202E}evil".into(), ..Default::default() };
    let refused = client.join_table(bidi).await.unwrap_err();
    assert_eq!(SdkError::from(refused.clone()).reason(), Some(R::InvalidName));
    let info = refused.get_error_details().error_info().cloned().unwrap();
    assert_eq!(info.metadata.get("rule").map(String::as_str), Some("bidi"), "{info:?}");
    assert_eq!(info.metadata.get("field").map(String::as_str), Some("player"), "{info:?}");
    // Join keys: one that is not one, and one that took a seat under another name.
    let keyed = client.create_table(pb::CreateTableRequest::default()).await.unwrap().into_inner().table_id;
    let keyed_join = |name: &str, key: &str| pb::JoinTableRequest {
        table_id: keyed.clone(),
        name: name.into(),
        join_key: key.into(),
        ..Default::default()
    };
    cases.check(client.join_table(keyed_join("a", "short")).await, Code::InvalidArgument, R::InvalidJoinKey);
    client.join_table(keyed_join("a", "a-key-of-sixteen-or-more")).await.unwrap();
    cases.check(
        client.join_table(keyed_join("b", "a-key-of-sixteen-or-more")).await,
        Code::PermissionDenied,
        R::JoinKeyTaken,
    );

    // Settings, tables, tokens.
    cases.check(
        client.create_table(pb::CreateTableRequest { seats: 5, ..Default::default() }).await,
        Code::InvalidArgument,
        R::InvalidSettings,
    );
    let long_pause = pb::TimeControl { action_ms: 1000, deal_ms: 0, between_deals_ms: 300_001 };
    cases.check(
        client
            .create_table(pb::CreateTableRequest { time_control: Some(long_pause), ..Default::default() })
            .await,
        Code::InvalidArgument,
        R::InvalidSettings,
    );
    cases.check(raw.call("GetTable", vec![0x0a, 0x40, 1]).await, Code::InvalidArgument, R::MalformedRequest);
    cases.check(
        client.get_table(pb::GetTableRequest { table_id: "x".repeat(2000) }).await,
        Code::ResourceExhausted,
        R::MessageTooLarge,
    );
    cases.check(
        client.get_table(pb::GetTableRequest { table_id: "nope".into() }).await,
        Code::NotFound,
        R::TableNotFound,
    );
    let waiting = create(&mut client, 3, 2, 1).await;
    let (_, early) = join(&mut client, &waiting, "early").await;
    cases.check(
        send(&mut client, &waiting, &early, Action::Pass, None).await,
        Code::FailedPrecondition,
        R::TableWaiting,
    );
    cases.check(
        client
            .join_table(pb::JoinTableRequest {
                table_id: waiting.clone(),
                seat: Some(0),
                ..Default::default()
            })
            .await,
        Code::ResourceExhausted,
        R::SeatTaken,
    );
    cases.check(
        client
            .join_table(pb::JoinTableRequest {
                table_id: waiting.clone(),
                seat: Some(9),
                ..Default::default()
            })
            .await,
        Code::InvalidArgument,
        R::InvalidSeat,
    );
    cases.check(
        client.leave_table(pb::LeaveTableRequest { table_id: waiting.clone() }).await,
        Code::Unauthenticated,
        R::TokenRequired,
    );
    let mut basic = Request::new(pb::GetTableRequest { table_id: waiting.clone() });
    basic.metadata_mut().insert("authorization", "Basic x".parse().unwrap());
    cases.check(client.get_table(basic).await, Code::Unauthenticated, R::TokenMalformed);
    cases.check(
        client.get_table(authed(pb::GetTableRequest { table_id: waiting.clone() }, "feed")).await,
        Code::PermissionDenied,
        R::NotSeated,
    );
    cases.check(
        client.get_records(pb::GetRecordsRequest { table_id: waiting.clone(), format: 9 }).await,
        Code::InvalidArgument,
        R::InvalidRecordFormat,
    );
    cases.check(
        client.watch_table(pb::WatchTableRequest { table_id: waiting.clone(), after_seq: Some(99) }).await,
        Code::OutOfRange,
        R::AfterSeqAhead,
    );
    let _spectator =
        client.watch_table(pb::WatchTableRequest { table_id: waiting.clone(), after_seq: None }).await;
    cases.check(
        client.watch_table(pb::WatchTableRequest { table_id: waiting.clone(), after_seq: None }).await,
        Code::ResourceExhausted,
        R::Limit,
    );
    let private = client
        .create_table(pb::CreateTableRequest { private: true, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    cases.check(
        client.join_table(pb::JoinTableRequest { table_id: private.table_id, ..Default::default() }).await,
        Code::PermissionDenied,
        R::JoinCode,
    );

    // Requests that do not describe an action.
    let (table, tokens) = seated(&mut client, 3, 2, 11).await;
    cases.check(
        client.join_table(pb::JoinTableRequest { table_id: table.clone(), ..Default::default() }).await,
        Code::ResourceExhausted,
        R::TableFull,
    );
    let t0 = &tokens[0];
    macro_rules! req {
        ($m:expr) => {
            authed($m, t0)
        };
    }
    cases.check(
        client
            .play_card(req!(pb::PlayCardRequest {
                table_id: table.clone(),
                card: 99,
                expected_seq: None,
                comment: String::new()
            }))
            .await,
        Code::InvalidArgument,
        R::InvalidCard,
    );
    cases.check(
        client
            .play_card(req!(pb::PlayCardRequest {
                table_id: table.clone(),
                card: 1,
                expected_seq: None,
                comment: "x".repeat(281)
            }))
            .await,
        Code::InvalidArgument,
        R::InvalidComment,
    );
    cases.check(
        client
            .discard(req!(pb::DiscardRequest {
                table_id: table.clone(),
                cards: vec![3, 3],
                expected_seq: None,
                comment: String::new()
            }))
            .await,
        Code::InvalidArgument,
        R::DuplicateCard,
    );
    cases.check(
        client
            .discard(req!(pb::DiscardRequest {
                table_id: table.clone(),
                cards: vec![3],
                expected_seq: None,
                comment: String::new()
            }))
            .await,
        Code::InvalidArgument,
        R::InvalidDiscard,
    );
    cases.check(
        client
            .bid(req!(pb::BidRequest {
                table_id: table.clone(),
                call: 1,
                value: 19,
                expected_seq: None,
                comment: String::new()
            }))
            .await,
        Code::InvalidArgument,
        R::InvalidBid,
    );
    cases.check(
        client
            .bid(req!(pb::BidRequest {
                table_id: table.clone(),
                call: 9,
                value: 0,
                expected_seq: None,
                comment: String::new()
            }))
            .await,
        Code::InvalidArgument,
        R::InvalidCall,
    );
    cases.check(
        client
            .declare(req!(pb::DeclareRequest {
                table_id: table.clone(),
                game: 0,
                announcement: 0,
                expected_seq: None,
                comment: String::new()
            }))
            .await,
        Code::InvalidArgument,
        R::InvalidGame,
    );
    cases.check(
        client
            .declare(req!(pb::DeclareRequest {
                table_id: table.clone(),
                game: 1,
                announcement: 77,
                expected_seq: None,
                comment: String::new()
            }))
            .await,
        Code::InvalidArgument,
        R::InvalidAnnouncement,
    );

    // The auction: middlehand says, forehand answers.
    let (m, own) = mover(&mut client, &table, &tokens).await;
    let f = (0..3).find(|s| *s != m && view_position(&own, *s) == 1).unwrap();
    let seq = own.seq;
    cases.check(
        send(&mut client, &table, &tokens[f], Action::Pass, Some(seq)).await,
        Code::FailedPrecondition,
        R::NotYourTurn,
    );
    cases.check(
        send(&mut client, &table, &tokens[m], Action::Pass, Some(seq - 1)).await,
        Code::Aborted,
        R::StaleSeq,
    );
    cases.check(
        send(&mut client, &table, &tokens[m], Action::Hold, None).await,
        Code::FailedPrecondition,
        R::NothingToHold,
    );
    cases.check(
        send(&mut client, &table, &tokens[m], Action::PickUpSkat, None).await,
        Code::FailedPrecondition,
        R::WrongPhase,
    );
    send(&mut client, &table, &tokens[m], bid(264), None).await.unwrap();
    cases.check(
        send(&mut client, &table, &tokens[f], bid(20), None).await,
        Code::FailedPrecondition,
        R::MustAnswer,
    );
    send(&mut client, &table, &tokens[f], Action::Hold, None).await.unwrap();
    cases.check(
        send(&mut client, &table, &tokens[m], bid(264), None).await,
        Code::FailedPrecondition,
        R::NoHigherBid,
    );

    // A fresh table for the rest of the auction and the declaration.
    let (table, tokens) = seated(&mut client, 3, 2, 12).await;
    let (m, own) = mover(&mut client, &table, &tokens).await;
    let f = (0..3).find(|s| *s != m && view_position(&own, *s) == 1).unwrap();
    let r = 3 - m - f;
    send(&mut client, &table, &tokens[m], bid(30), None).await.unwrap();
    send(&mut client, &table, &tokens[f], Action::Hold, None).await.unwrap();
    cases.check(
        send(&mut client, &table, &tokens[m], bid(30), None).await,
        Code::FailedPrecondition,
        R::BidTooLow,
    );
    send(&mut client, &table, &tokens[m], Action::Pass, None).await.unwrap();
    send(&mut client, &table, &tokens[r], Action::Pass, None).await.unwrap();
    // Forehand is the declarer at 30 and picks up the skat.
    cases.check(
        send(&mut client, &table, &tokens[r], Action::PickUpSkat, None).await,
        Code::FailedPrecondition,
        R::NotDeclarer,
    );
    let before = view(&mut client, &table, Some(&tokens[f])).await;
    let picked = client
        .take_skat(authed(
            pb::TakeSkatRequest {
                table_id: table.clone(),
                pick_up: true,
                expected_seq: None,
                comment: String::new(),
            },
            &tokens[f],
        ))
        .await
        .unwrap()
        .into_inner();
    let skat = convert::cards_from(&picked.skat).unwrap();
    assert_eq!(skat.len(), 2, "the response carries the skat");
    let own = view(&mut client, &table, Some(&tokens[f])).await;
    let hand_before = convert::cards_from(&before.deal.as_ref().unwrap().hand).unwrap();
    let hand_after = convert::cards_from(&own.deal.as_ref().unwrap().hand).unwrap();
    assert_eq!(hand_after, hand_before | skat, "the skat joined the declarer's hand");
    let other_view = view(&mut client, &table, Some(&tokens[m])).await;
    assert!(other_view.deal.unwrap().skat.is_empty(), "nobody else sees the skat");
    let hand = convert::cards_from(&own.deal.as_ref().unwrap().hand).unwrap();
    let missing = skat_engine::CardSet::DECK.iter().find(|c| !hand.contains(*c)).unwrap();
    let two: Vec<_> = hand.iter().take(2).collect();
    cases.check(
        send(
            &mut client,
            &table,
            &tokens[f],
            Action::Discard { cards: [two[0], missing].into_iter().collect() },
            None,
        )
        .await,
        Code::FailedPrecondition,
        R::NotInHand,
    );
    send(&mut client, &table, &tokens[f], Action::Discard { cards: two.into_iter().collect() }, None)
        .await
        .unwrap();
    let declare = |game, announcement| Action::Declare { contract: Contract { game, announcement } };
    cases.check(
        send(&mut client, &table, &tokens[f], declare(GameType::Clubs, Announcement::Schneider), None).await,
        Code::FailedPrecondition,
        R::AnnouncementNeedsHand,
    );
    cases.check(
        send(&mut client, &table, &tokens[f], declare(GameType::Null, Announcement::Schwarz), None).await,
        Code::FailedPrecondition,
        R::NullAnnouncement,
    );
    cases.check(
        send(&mut client, &table, &tokens[f], declare(GameType::Null, Announcement::None), None).await,
        Code::FailedPrecondition,
        R::NullBelowBid,
    );
    send(&mut client, &table, &tokens[f], declare(GameType::Grand, Announcement::None), None).await.unwrap();
    // Play: claims and resignations.
    cases.check(
        send(&mut client, &table, &tokens[m], Action::Claim, None).await,
        Code::FailedPrecondition,
        R::NotDeclarer,
    );
    send(&mut client, &table, &tokens[m], Action::Resign, None).await.unwrap();
    cases.check(
        send(&mut client, &table, &tokens[m], Action::Resign, None).await,
        Code::FailedPrecondition,
        R::AlreadyResigned,
    );
    send(&mut client, &table, &tokens[f], Action::Claim, None).await.unwrap();
    cases.check(
        send(&mut client, &table, &tokens[f], Action::Claim, None).await,
        Code::FailedPrecondition,
        R::AlreadyClaimed,
    );

    // Following suit: play on until a seat to move could play a card it must not.
    let mut rng = RandomClient::new(5);
    let (table, tokens) = seated(&mut client, 3, 40, 13).await;
    let (seat, own) = advance_until(&mut client, &table, &tokens, &mut rng, |v| {
        let d = v.deal.as_ref().unwrap();
        d.phase == pb::Phase::Playing as i32 && d.legal.as_ref().unwrap().cards.len() < d.hand.len()
    })
    .await;
    let d = own.deal.as_ref().unwrap();
    let legal = convert::cards_from(&d.legal.as_ref().unwrap().cards).unwrap();
    let wrong = convert::cards_from(&d.hand).unwrap().iter().find(|c| !legal.contains(*c)).unwrap();
    cases.check(
        send(&mut client, &table, &tokens[seat], Action::Play { card: wrong }, Some(own.seq)).await,
        Code::FailedPrecondition,
        R::MustFollowSuit,
    );
    assert_eq!(phase(&own), pb::Phase::Playing as i32);

    // A dealer sitting out at four seats.
    let (four, four_tokens) = seated(&mut client, 4, 1, 14).await;
    let v = view(&mut client, &four, None).await;
    let dealer = v.deal.as_ref().unwrap().dealer_seat as usize;
    cases.check(
        send(&mut client, &four, &four_tokens[dealer], Action::Pass, None).await,
        Code::FailedPrecondition,
        R::SittingOut,
    );

    // Streams: a seat that left; a reader that fell behind; a finished table.
    let (table, tokens) = seated(&mut client, 3, 2, 15).await;
    let stream = client
        .watch_table(authed(pb::WatchTableRequest { table_id: table.clone(), after_seq: None }, &tokens[2]))
        .await
        .unwrap()
        .into_inner();
    client.leave_table(authed(pb::LeaveTableRequest { table_id: table.clone() }, &tokens[2])).await.unwrap();
    let (_, _, end) = within(10, drain_stream(stream)).await;
    cases.check(Err::<(), _>(end.expect("an end")), Code::PermissionDenied, R::SeatLost);

    let (table, tokens) = seated(&mut client, 3, 40, 16).await;
    let mut slow = Client::new(
        tonic::transport::Endpoint::from_shared(format!("http://{}", server.server.addr))
            .unwrap()
            .initial_stream_window_size(Some(1024))
            .connect()
            .await
            .unwrap(),
    );
    let stalled = slow
        .watch_table(pb::WatchTableRequest { table_id: table.clone(), after_seq: Some(0) })
        .await
        .unwrap()
        .into_inner();
    within(60, play_to_end(&mut client, &table, &tokens, 16)).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let (_, _, end) = within(10, drain_stream(stalled)).await;
    cases.check(Err::<(), _>(end.expect("an end")), Code::ResourceExhausted, R::StreamBehind);
    cases.check(
        client.leave_table(authed(pb::LeaveTableRequest { table_id: table.clone() }, &tokens[0])).await,
        Code::FailedPrecondition,
        R::TableFinished,
    );

    // Analysis: only of a finished table, and only while the queue has room (a server
    // without analysis workers has none).
    let (playing, _) = seated(&mut client, 3, 1, 5).await;
    cases.check(
        client.analyze_table(pb::AnalyzeTableRequest { table_id: playing }).await,
        Code::FailedPrecondition,
        R::TableInPlay,
    );
    let idle = TestServer::start(ServerConfig {
        analysis: skat_server::AnalysisConfig { workers: 0, ..Default::default() },
        ..config()
    })
    .await;
    let mut ic = idle.client().await;
    let (done, done_tokens) = seated(&mut ic, 3, 1, 6).await;
    play_to_end(&mut ic, &done, &done_tokens, 6).await;
    cases.check(
        ic.analyze_table(pb::AnalyzeTableRequest { table_id: done }).await,
        Code::ResourceExhausted,
        R::AnalysisBusy,
    );

    // A table that expires under its watcher; a server token; another replica's table;
    // shutdown.
    let mut other = TestServer::start(ServerConfig {
        table_expiry: Duration::from_millis(500),
        create_token: Some("secret".into()),
        node_id: Some("a".into()),
        peers: vec![("b".into(), "127.0.0.1:1".into())],
        ..config()
    })
    .await;
    let mut oc = other.client().await;
    cases.check(
        oc.create_table(authed(pb::CreateTableRequest::default(), "wrong")).await,
        Code::PermissionDenied,
        R::WrongServerToken,
    );
    cases.check(
        oc.get_table(pb::GetTableRequest { table_id: "b.000000000001".into() }).await,
        Code::NotFound,
        R::TableElsewhere,
    );
    let expiring = oc
        .create_table(authed(pb::CreateTableRequest::default(), "secret"))
        .await
        .unwrap()
        .into_inner()
        .table_id;
    let stream = oc
        .watch_table(pb::WatchTableRequest { table_id: expiring.clone(), after_seq: None })
        .await
        .unwrap()
        .into_inner();
    let (_, _, end) = within(10, drain_stream(stream)).await;
    cases.check(Err::<(), _>(end.expect("an end")), Code::NotFound, R::TableExpired);
    let listed = oc
        .list_tables(pb::ListTablesRequest { page_token: "not a token".into(), ..Default::default() })
        .await;
    cases.check(listed, Code::InvalidArgument, R::InvalidPageToken);
    let registered = oc.register_bot(pb::RegisterBotRequest { name: "x".into(), owner: String::new() }).await;
    cases.check(registered, Code::FailedPrecondition, R::NoDatabase);
    // A server that lets anonymous clients only watch.
    let watch_only =
        TestServer::start(ServerConfig { anonymous: skat_server::Anonymous::Spectate, ..config() }).await;
    let mut wc = watch_only.client().await;
    cases.check(
        wc.create_table(pb::CreateTableRequest::default()).await,
        Code::Unauthenticated,
        R::CredentialRequired,
    );
    let live = oc
        .create_table(authed(pb::CreateTableRequest::default(), "secret"))
        .await
        .unwrap()
        .into_inner()
        .table_id;
    let stream =
        oc.watch_table(pb::WatchTableRequest { table_id: live, after_seq: None }).await.unwrap().into_inner();
    other.stop();
    let (_, _, end) = within(10, drain_stream(stream)).await;
    cases.check(Err::<(), _>(end.expect("an end")), Code::Unavailable, R::ShuttingDown);

    // Every reason of the contract was seen, or is documented as unreachable.
    let mut missing = Vec::new();
    for n in 0..200 {
        if let Ok(r) = R::try_from(n)
            && !cases.seen.contains(&n)
            && !UNREACHABLE.contains(&r)
        {
            missing.push(r);
        }
    }
    assert!(missing.is_empty(), "reasons without a case: {missing:?}");
}

/// The position (1 forehand, 2 middlehand, 3 rearhand as in the proto) of `seat`.
fn view_position(v: &pb::TableView, seat: usize) -> i32 {
    let d = v.deal.as_ref().unwrap();
    d.position_seats.iter().position(|s| *s as usize == seat).map_or(0, |i| i as i32 + 1)
}
