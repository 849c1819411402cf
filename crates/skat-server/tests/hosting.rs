//! Hosted bots over the wire (issue 47), without an engine: submissions (an archive, a
//! reference, what is refused and stores nothing), approval, the runner's feed (a hosted
//! account's seat with a token for that seat alone, never the bot token), a hosted
//! account's own lobby refused, the runner token checked, sandbox reports, and each
//! author reading only its own sandboxes. `deploy/test-hosted.sh` runs the same with
//! podman.

mod common;

use std::time::Duration;

use common::*;
use skat_proto::pb;
use skat_proto::pb::ErrorReason as R;
use skat_proto::pb::hosting_service_client::HostingServiceClient;
use skat_server::{Database, HostingConfig, ServerConfig};
use tonic::Code;
use tonic::transport::Channel;

const ADMIN: &str = "admin-secret";
const RUNNER: &str = "runner-secret-token";

struct Hosted {
    server: TestServer,
    hosting: HostingServiceClient<Channel>,
    games: Client,
    _dir: std::path::PathBuf,
}

async fn hosted(approval: bool) -> Hosted {
    hosted_with(approval, true).await
}

async fn hosted_with(approval: bool, archives: bool) -> Hosted {
    // Kept for the test's length; each test removes it at its end.
    let dir = tempfile::tempdir().unwrap().keep();
    let server = TestServer::start(ServerConfig {
        database: Database::Sqlite(dir.clone()),
        admin_token: Some(ADMIN.into()),
        hosting: HostingConfig {
            images_dir: archives.then(|| dir.join("images")),
            max_image_bytes: 64 * 1024,
            approval,
            runner_token: Some(RUNNER.into()),
            ..HostingConfig::default()
        },
        ..config()
    })
    .await;
    let games = server.client().await;
    let hosting = hosting_client(&server).await;
    Hosted { server, hosting, games, _dir: dir }
}

impl Hosted {
    async fn register(&mut self, name: &str) -> String {
        let r = self
            .games
            .register_bot(authed(pb::RegisterBotRequest { name: name.into(), owner: String::new() }, ADMIN));
        r.await.unwrap().into_inner().bot_token
    }

    async fn submit(
        &mut self,
        token: &str,
        archive: Vec<u8>,
        activate: bool,
    ) -> Result<pb::BotVersion, tonic::Status> {
        let header = pb::BotVersionHeader {
            command: vec!["/bot".into()],
            sdk: "rust".into(),
            activate,
            ..Default::default()
        };
        self.send(token, archive, header).await
    }

    /// Submits an archive with a command of its own (not activated).
    async fn submit_with(
        &mut self,
        token: &str,
        archive: Vec<u8>,
        command: &[&str],
    ) -> Result<pb::BotVersion, tonic::Status> {
        let command = command.iter().map(ToString::to_string).collect();
        self.send(token, archive, pb::BotVersionHeader { command, ..Default::default() }).await
    }

    async fn send(
        &mut self,
        token: &str,
        archive: Vec<u8>,
        header: pb::BotVersionHeader,
    ) -> Result<pb::BotVersion, tonic::Status> {
        use pb::submit_bot_version_request::Part;
        let mut parts = vec![pb::SubmitBotVersionRequest { part: Some(Part::Header(header)) }];
        parts.extend(
            archive.chunks(4000).map(|c| pb::SubmitBotVersionRequest { part: Some(Part::Chunk(c.to_vec())) }),
        );
        let r = self.hosting.submit_bot_version(authed(tokio_stream::iter(parts), token)).await?;
        Ok(r.into_inner().version.unwrap())
    }

    fn images(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self._dir.join("images"))
            .map(|d| d.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        names.sort();
        names
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn submissions_are_kept_by_digest_and_bad_ones_store_nothing() {
    let mut h = hosted(false).await;
    let token = h.register("alpha").await;
    let v = h.submit(&token, oci_archive("1"), false).await.unwrap();
    assert!(v.digest.starts_with("sha256:") && v.digest.len() == 71, "{}", v.digest);
    assert_eq!(v.state, pb::VersionState::Approved as i32);
    assert!(!v.active);
    // The same bytes again: the same version, unchanged.
    let again = h.submit(&token, oci_archive("1"), false).await.unwrap();
    assert_eq!(again.digest, v.digest);
    assert_eq!(h.images(), vec![format!("sha256-{}.tar", &v.digest[7..])]);

    let not = h.submit(&token, b"#!/bin/sh\necho hello\n".repeat(40), false).await.unwrap_err();
    assert_eq!((not.code(), reason(&not)), (Code::InvalidArgument, Some(R::NotAnImage)));
    let big = h.submit(&token, vec![0u8; 70 * 1024], false).await.unwrap_err();
    assert_eq!((big.code(), reason(&big)), (Code::ResourceExhausted, Some(R::ImageTooLarge)));
    assert_eq!(h.images().len(), 1, "a refused upload left a file: {:?}", h.images());

    let reference = |r: &str| pb::SubmitBotVersionRequest {
        part: Some(pb::submit_bot_version_request::Part::Header(pb::BotVersionHeader {
            image_ref: r.into(),
            ..Default::default()
        })),
    };
    let tagged = h
        .hosting
        .submit_bot_version(authed(tokio_stream::iter(vec![reference("me/bot:1")]), &token))
        .await
        .unwrap_err();
    assert_eq!(reason(&tagged), Some(R::NotAnImage));
    let pinned = format!("registry.example.org/me/bot@sha256:{}", "cd".repeat(32));
    let r = h
        .hosting
        .submit_bot_version(authed(tokio_stream::iter(vec![reference(&pinned)]), &token))
        .await
        .unwrap();
    assert_eq!(r.into_inner().version.unwrap().digest, format!("sha256:{}", "cd".repeat(32)));

    let listed = h
        .hosting
        .list_bot_versions(authed(pb::ListBotVersionsRequest {}, &token))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(listed.versions.len(), 2);
    let wrong = h.hosting.list_bot_versions(authed(pb::ListBotVersionsRequest {}, "nope")).await.unwrap_err();
    assert_eq!(reason(&wrong), Some(R::BotTokenInvalid));
    let unknown =
        pb::ActivateBotVersionRequest { digest: "sha256:0123456789ab".into(), ..Default::default() };
    let unknown = h.hosting.activate_bot_version(authed(unknown, &token)).await.unwrap_err();
    assert_eq!((unknown.code(), reason(&unknown)), (Code::NotFound, Some(R::VersionNotFound)));

    // A hosted tournament takes only entrants with an active, approved version.
    h.register("beta").await;
    h.register("gamma").await;
    let t = pb::CreateTournamentRequest {
        entrants: vec!["alpha".into(), "beta".into(), "gamma".into()],
        deals: 1,
        hosted: true,
        ..Default::default()
    };
    let not = h.games.create_tournament(authed(t, ADMIN)).await.unwrap_err();
    assert_eq!((not.code(), reason(&not)), (Code::FailedPrecondition, Some(R::NotHosted)));
    h.server.stop();
    std::fs::remove_dir_all(&h._dir).ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hosted_seat_goes_to_the_runner_with_a_seat_token_and_its_reports_to_its_author_alone() {
    let mut h = hosted(true).await;
    let token = h.register("alpha").await;
    let other = h.register("beta").await;
    let v = h.submit(&token, oci_archive("2"), true).await.unwrap();
    // With approval required, a new version waits: the account is not hosted yet.
    assert_eq!(v.state, pb::VersionState::Pending as i32);
    assert!(v.active);
    let approve = |approve: bool| pb::ApproveBotVersionRequest {
        bot_name: "alpha".into(),
        digest: v.digest[..19].into(),
        approve,
        ..Default::default()
    };
    let denied = h.hosting.approve_bot_version(authed(approve(true), &other)).await.unwrap_err();
    assert_eq!(reason(&denied), Some(R::AdminRequired));
    let approved = h.hosting.approve_bot_version(authed(approve(true), ADMIN)).await.unwrap().into_inner();
    assert_eq!(approved.version.unwrap().state, pb::VersionState::Approved as i32);

    // The runner's feed: the runner token only.
    let refused = h
        .hosting
        .runner_feed(authed(pb::RunnerFeedRequest { runner: "r".into(), ..Default::default() }, ADMIN))
        .await
        .unwrap_err();
    assert_eq!(reason(&refused), Some(R::RunnerTokenInvalid));
    let mut feed = h
        .hosting
        .runner_feed(authed(pb::RunnerFeedRequest { runner: "r".into(), ..Default::default() }, RUNNER))
        .await
        .unwrap()
        .into_inner();

    // Its own lobby is refused: the runner plays its seats.
    let mut lobby = None;
    for _ in 0..50 {
        match h.games.lobby(authed(pb::LobbyRequest::default(), &token)).await {
            Err(e) => {
                lobby = Some(e);
                break;
            }
            Ok(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    let lobby = lobby.expect("a hosted account's lobby is refused");
    assert_eq!((lobby.code(), reason(&lobby)), (Code::FailedPrecondition, Some(R::AccountHosted)));

    // A person's table that asks for it (once the feed has opened the account's lobby):
    // by default only the operator's tables seat a hosted account, each seat a sandbox on
    // the operator's machine.
    let with_alpha =
        || pb::CreateTableRequest { seats: 3, deals: 1, bots: vec!["alpha".into()], ..Default::default() };
    let mut table = None;
    for _ in 0..50 {
        if let Ok(r) = h.games.create_table(authed(with_alpha(), ADMIN)).await {
            table = Some(r.into_inner().table_id);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let table = table.expect("the operator's table seats the hosted bot");
    let anonymous = h.games.create_table(with_alpha()).await.unwrap_err();
    assert_eq!((anonymous.code(), reason(&anonymous)), (Code::FailedPrecondition, Some(R::BotUnavailable)));
    // The seat waits for its table to be about to play: no sandbox idles at a table that
    // may never fill.
    assert!(
        tokio::time::timeout(Duration::from_secs(2), feed.message()).await.is_err(),
        "a seat at a table waiting for players went to the runner"
    );
    join(&mut h.games, &table, "p1").await;
    join(&mut h.games, &table, "p2").await;
    let seat = within(10, feed.message()).await.unwrap().unwrap().seat.unwrap();
    assert_eq!((seat.bot_name.as_str(), seat.table_id.as_str()), ("alpha", table.as_str()));
    assert_eq!(seat.version.as_ref().unwrap().digest, v.digest);
    assert_ne!(seat.seat_token, token, "the bot token never leaves for a sandbox");
    assert_eq!((seat.cpu_millis, seat.memory_mib), (1000, 512));
    let view = view(&mut h.games, &table, Some(&seat.seat_token)).await;
    assert_eq!(view.your_seat, Some(seat.seat), "the token acts for that seat");

    // The runner reports; the author reads it, another account does not.
    let sandbox = pb::Sandbox {
        id: "s1".into(),
        bot_name: "alpha".into(),
        digest: v.digest.clone(),
        table_id: table.clone(),
        seat: seat.seat,
        outcome: pb::SandboxOutcome::OutOfMemory as i32,
        exit_code: 137,
        cpu_ms: 1234,
        detail: "killed by the kernel: out of memory".into(),
        ..Default::default()
    };
    let report = pb::ReportSandboxRequest {
        sandbox: Some(sandbox),
        log: b"hello\n".to_vec(),
        version_failure: String::new(),
    };
    let wrong = h.hosting.report_sandbox(authed(report.clone(), &token)).await.unwrap_err();
    assert_eq!(reason(&wrong), Some(R::RunnerTokenInvalid));
    h.hosting.report_sandbox(authed(report, RUNNER)).await.unwrap();
    let mine = h
        .hosting
        .list_sandboxes(authed(pb::ListSandboxesRequest::default(), &token))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(mine.sandboxes.len(), 1);
    assert_eq!(mine.sandboxes[0].outcome, pb::SandboxOutcome::OutOfMemory as i32);
    let log = h
        .hosting
        .get_sandbox_log(authed(pb::GetSandboxLogRequest { sandbox_id: "s1".into() }, &token))
        .await
        .unwrap();
    assert_eq!(log.into_inner().log, b"hello\n");
    let theirs = h
        .hosting
        .get_sandbox_log(authed(pb::GetSandboxLogRequest { sandbox_id: "s1".into() }, &other))
        .await
        .unwrap_err();
    assert_eq!(reason(&theirs), Some(R::SandboxNotFound));
    let none = h
        .hosting
        .list_sandboxes(authed(pb::ListSandboxesRequest::default(), &other))
        .await
        .unwrap()
        .into_inner();
    assert!(none.sandboxes.is_empty());
    let all = h
        .hosting
        .list_sandboxes(authed(pb::ListSandboxesRequest::default(), ADMIN))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(all.sandboxes[0].bot_name, "alpha");

    // Hosting ends: the account's own lobby opens again.
    let off = h
        .hosting
        .activate_bot_version(authed(pb::ActivateBotVersionRequest::default(), &token))
        .await
        .unwrap();
    assert!(off.into_inner().version.is_none());
    assert!(h.games.lobby(authed(pb::LobbyRequest::default(), &token)).await.is_ok());
    h.server.stop();
    std::fs::remove_dir_all(&h._dir).ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_is_its_image_and_its_command() {
    let mut h = hosted(false).await;
    let token = h.register("alpha").await;
    let first = h.submit(&token, oci_archive("4"), true).await.unwrap();
    assert_eq!(first.command, ["/bot"]);
    assert!(
        first.version_id.starts_with(&first.digest[7..19]) && first.version_id.len() == 21,
        "{}",
        first.version_id
    );
    // The same image with another command: another version, not the old one returned.
    let other = h.submit_with(&token, oci_archive("4"), &["/bot", "--fast"]).await.unwrap();
    assert_eq!(other.digest, first.digest);
    assert_eq!(other.command, ["/bot", "--fast"]);
    assert_ne!(other.version_id, first.version_id);
    assert!(!other.active, "a new version does not play until activated");
    // The same image and command again: that version, unchanged.
    let again = h.submit_with(&token, oci_archive("4"), &["/bot", "--fast"]).await.unwrap();
    assert_eq!(again.version_id, other.version_id);
    let own = h.submit_with(&token, oci_archive("4"), &[]).await.unwrap();
    assert_eq!(own.version_id, &first.digest[7..19], "the image's own entry point: named by the image");
    let listed = h.hosting.list_bot_versions(authed(pb::ListBotVersionsRequest {}, &token)).await.unwrap();
    assert_eq!(listed.into_inner().versions.len(), 3);
    assert_eq!(h.images().len(), 1, "one image kept for its three versions");

    // By the image alone the choice is ambiguous; by name it is not.
    let by_digest = pb::ActivateBotVersionRequest { digest: first.digest.clone(), ..Default::default() };
    let ambiguous = h.hosting.activate_bot_version(authed(by_digest, &token)).await.unwrap_err();
    assert_eq!((ambiguous.code(), reason(&ambiguous)), (Code::NotFound, Some(R::VersionNotFound)));
    assert!(ambiguous.message().contains(&other.version_id), "{}", ambiguous.message());
    let by_name =
        pb::ActivateBotVersionRequest { version_id: other.version_id.clone(), ..Default::default() };
    let active = h.hosting.activate_bot_version(authed(by_name, &token)).await.unwrap().into_inner();
    assert_eq!(active.version.unwrap().command, ["/bot", "--fast"]);

    // A hosted tournament pins the image and the command; its records say both.
    for name in ["beta", "gamma"] {
        let t = h.register(name).await;
        h.submit(&t, oci_archive(name), true).await.unwrap();
    }
    let t = pb::CreateTournamentRequest {
        entrants: vec!["alpha".into(), "beta".into(), "gamma".into()],
        deals: 1,
        hosted: true,
        // Tomorrow: pinned now, nothing seated during the test.
        start_ms: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis()
            as u64
            + 86_400_000,
        ..Default::default()
    };
    let id = h.games.create_tournament(authed(t, ADMIN)).await.unwrap().into_inner().tournament_id;
    let shown = h.games.get_tournament(pb::GetTournamentRequest { tournament_id: id }).await.unwrap();
    let shown = shown.into_inner().tournament.unwrap();
    let alpha = shown.versions.iter().find(|v| v.name == "alpha").unwrap();
    assert_eq!(
        (alpha.version_id.as_str(), alpha.command.as_slice()),
        (other.version_id.as_str(), &["/bot".to_string(), "--fast".to_string()][..])
    );
    h.server.stop();
    std::fs::remove_dir_all(&h._dir).ok();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_a_place_for_archives_says_so() {
    let mut h = hosted_with(false, false).await;
    let token = h.register("alpha").await;
    let refused = h.submit(&token, oci_archive("3"), false).await.unwrap_err();
    assert_eq!((refused.code(), reason(&refused)), (Code::FailedPrecondition, Some(R::HostingUnavailable)));
    h.server.stop();
    std::fs::remove_dir_all(&h._dir).ok();
}
