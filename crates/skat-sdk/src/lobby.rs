//! Lobby mode: a bot connects once with its account's bot token and plays every seat
//! the server gives it (tournament tables), as many at once as they come, and stays
//! connected between them. When the lobby stream breaks (a restart, a drain) it
//! reconnects; the server then hands out again every seat the account holds, with a new
//! token if it restarted, and the seat's game goes on with that token. With
//! `casual_seats` it also asks to be matched with other bots as they arrive; with
//! `accept_challenges` it is shown challenges and accepts those from the accounts listed
//! (`*`: anybody), declining the others (`challenge accepted`, `challenge declined`).

use std::collections::HashMap;
use std::time::Duration;

use skat_proto::pb::{self, lobby_response::Kind};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_stream::StreamExt;

use crate::address::ServerAddress;
use crate::bot::Bot;
use crate::client::{SdkError, SeatClient, with_token};
use crate::connections::Connections;
use crate::play::{Finished, OnIllegal, PlayOptions, play};

/// How a lobby session ended.
#[derive(Debug, Default)]
pub struct LobbyResult {
    /// Tables played to the end.
    pub finished: Vec<Finished>,
    /// Tables whose seat stopped on an error (table id, the error): they count towards
    /// `lists` too.
    pub failed: Vec<(String, String)>,
}

impl LobbyResult {
    /// Tables that ended, whatever happened at them.
    pub fn ended(&self) -> usize {
        self.finished.len() + self.failed.len()
    }
}

/// What a bot asks of its lobby.
#[derive(Debug, Clone, Default)]
pub struct LobbyOptions {
    /// Stop after this many tables have ended, however they ended (None: play for ever).
    pub lists: Option<usize>,
    /// What to do when the bot's action is illegal (see [`OnIllegal`]).
    pub on_illegal: OnIllegal,
    /// Most tables at once (0: the account's quota).
    pub max_tables: u32,
    /// Casual play at tables of 3 or 4 seats (0: tournaments only).
    pub casual_seats: u32,
    /// Challenges (Challenge): accept those from these accounts (`*`: from anybody) and
    /// decline the others. Empty: the lobby is not shown challenges at all (they wait,
    /// and expire, unless answered with [`answer_challenge`]).
    pub accept_challenges: Vec<String>,
    /// Offer the account to people's tables: a person's CreateTable naming it seats it
    /// (within its quota), and the seat comes through this lobby like any other.
    pub open_tables: bool,
}

/// Whether `policy` (a [`LobbyOptions::accept_challenges`] list) accepts a challenge
/// from `challenger`.
pub fn accepts(policy: &[String], challenger: &str) -> bool {
    policy.iter().any(|n| n == "*" || n == challenger)
}

/// Accepts or declines a challenge offered to the account of `bot_token`.
pub async fn answer_challenge(
    server: &ServerAddress,
    bot_token: &str,
    challenge_id: &str,
    accept: bool,
) -> Result<pb::ChallengeInfo, SdkError> {
    server.check_secret("bot token")?;
    let mut client = server.connect().await?;
    let request = pb::AnswerChallengeRequest { challenge_id: challenge_id.to_string(), accept };
    let answer = client.answer_challenge(with_token(request, bot_token)).await?.into_inner();
    answer.challenge.ok_or_else(|| SdkError::Protocol("an answer without its challenge".into()))
}

/// A lobby connection's news: a seat (and the server whose lobby told it), or a refusal
/// for good (and the server that refused).
type LobbyNews = Result<(String, pb::SeatAssigned), (String, SdkError)>;

/// Keeps one lobby stream open to `url`, reconnecting when it breaks, and forwards its
/// seats. Ends when refused for good (a wrong or disabled bot token), telling `news`.
fn keep_lobby(
    server: ServerAddress,
    bot_token: String,
    request: pb::LobbyRequest,
    accept_challenges: Vec<String>,
    news: mpsc::Sender<LobbyNews>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let url = server.url().to_string();
        let mut failures = 0u32;
        loop {
            let stream = async {
                let mut client = server.connect().await?;
                Ok::<_, SdkError>(client.lobby(with_token(request, &bot_token)).await?.into_inner())
            }
            .await;
            let mut stream = match stream {
                Ok(s) => {
                    failures = 0;
                    tracing::info!(server = %url, "lobby connected");
                    s
                }
                Err(e) if !crate::play::retryable(&e) => {
                    let _ = news.send(Err((url, e))).await;
                    return;
                }
                // The server is away (restarting, draining): retry.
                Err(e) => {
                    failures += 1;
                    if failures > 60 {
                        let _ = news.send(Err((url, e))).await;
                        return;
                    }
                    tracing::info!(server = %url, error = %e, "lobby reconnecting");
                    tokio::time::sleep(Duration::from_millis(100 * u64::from(failures.min(20)))).await;
                    continue;
                }
            };
            while let Some(msg) = stream.next().await {
                match msg {
                    Ok(pb::LobbyResponse { kind: Some(Kind::SeatAssigned(seat)) }) => {
                        if news.send(Ok((url.clone(), seat))).await.is_err() {
                            return;
                        }
                    }
                    Ok(pb::LobbyResponse { kind: Some(Kind::ChallengeOffered(c)) }) => {
                        let accept = accepts(&accept_challenges, &c.challenger);
                        // Answered beside the stream: a slow answer holds no seat back.
                        let (server, token) = (server.clone(), bot_token.clone());
                        tokio::spawn(async move {
                            match answer_challenge(&server, &token, &c.challenge_id, accept).await {
                                Ok(_) => tracing::info!(
                                    challenge = %c.challenge_id,
                                    challenger = %c.challenger,
                                    "{}",
                                    if accept { "challenge accepted" } else { "challenge declined" }
                                ),
                                Err(e) => {
                                    tracing::warn!(challenge = %c.challenge_id, error = %e, "challenge not answered")
                                }
                            }
                        });
                    }
                    Ok(_) => {}
                    Err(e) => {
                        tracing::info!(server = %url, error = %e, "lobby reconnecting");
                        break;
                    }
                }
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
}

/// Plays every seat the lobby hands out, each with a bot from `make_bot`, until
/// `options.lists` tables have ended, however they ended (None: for ever). It logs at
/// INFO `lobby connected`, `seated`, `table finished` (with the result) and `lobby
/// reconnecting`, and warns `seat stopped`: the Python and TypeScript SDKs' words. With replicas, a seat at a
/// table on another replica is announced without its token; the bot then keeps a lobby
/// open there too, which hands the seat out with its token.
pub async fn run<B, F>(
    server: impl Into<ServerAddress>,
    bot_token: &str,
    make_bot: F,
    options: LobbyOptions,
) -> Result<LobbyResult, SdkError>
where
    B: Bot + Send + 'static,
    F: Fn() -> B,
{
    let home = server.into();
    home.check_secret("bot token")?;
    let url = home.url().to_string();
    let (news_tx, mut news) = mpsc::channel::<LobbyNews>(256);
    let request = |casual_seats| lobby_request(&options, casual_seats);
    let first = request(options.casual_seats);
    let home_lobby = keep_lobby(
        home.clone(),
        bot_token.to_string(),
        first,
        options.accept_challenges.clone(),
        news_tx.clone(),
    );
    let mut lobbies: HashMap<String, JoinHandle<()>> = HashMap::from([(url.clone(), home_lobby)]);
    let mut playing: HashMap<SeatKey, Playing> = HashMap::new();
    let mut result = LobbyResult::default();
    // The seats' connections: up to 64 seats share one (crate::connections).
    let connections = Connections::default();
    loop {
        // Collect finished tables while waiting for the next seat.
        let next = tokio::time::timeout(Duration::from_millis(200), news.recv()).await;
        collect_finished(&mut playing, &mut result).await;
        if options.lists.is_some_and(|n| result.ended() >= n) {
            stop_all(&lobbies, &mut playing);
            return Ok(result);
        }
        let (lobby, seat) = match sort_news(next, &url, &mut lobbies) {
            News::Seat(lobby, seat) => (lobby, *seat),
            News::Nothing => continue,
            News::Refused(e) => {
                stop_all(&lobbies, &mut playing);
                return Err(e);
            }
        };
        let server = if seat.owner_address.is_empty() {
            home.at(&lobby)
        } else {
            home.at(&lobby).at(&seat.owner_address)
        };
        if seat.seat_token.is_empty() {
            // A seat on another replica: its lobby there has the token. Only seats there:
            // the home lobby answers challenges.
            if let std::collections::hash_map::Entry::Vacant(e) = lobbies.entry(server.url().to_string()) {
                tracing::info!(server = server.url(), table = %seat.table_id, "following a seat to its replica");
                let seats_only =
                    pb::LobbyRequest { casual_seats: 0, challenges: false, open_tables: false, ..request(0) };
                e.insert(keep_lobby(server, bot_token.to_string(), seats_only, Vec::new(), news_tx.clone()));
            }
            continue;
        }
        // The same seat again (after a restart): play on with the new token.
        if !replaces(&playing, &seat) {
            continue;
        }
        let Some(sc) = connect_or_retry(&connections, server, &lobby, &seat, &news_tx).await else {
            continue;
        };
        // A seat's server gone for good: the home lobby's address finds the table's new
        // owner (if the new owner hands the seat out again, with a new token, it comes
        // as news like any seat).
        let sc = sc.with_home(home.clone());
        tracing::info!(table = %seat.table_id, seat = seat.seat, tournament = %seat.tournament_id, "seated");
        let mut bot = make_bot();
        let play_options = PlayOptions { on_illegal: options.on_illegal, ..PlayOptions::default() };
        let handle = tokio::spawn(async move { play(sc, &mut bot, play_options).await });
        playing.insert((seat.table_id.clone(), seat.seat), (seat.seat_token, handle));
    }
}

/// What a lobby asks for: the tables at once, casual seats, challenges, open tables.
fn lobby_request(options: &LobbyOptions, casual_seats: u32) -> pb::LobbyRequest {
    pb::LobbyRequest {
        max_tables: options.max_tables,
        casual_seats,
        challenges: !options.accept_challenges.is_empty(),
        open_tables: options.open_tables,
    }
}

/// What a lobby's news means for the loop.
enum News {
    /// A seat to play, from the lobby at this address.
    Seat(String, Box<pb::SeatAssigned>),
    /// Nothing to do now.
    Nothing,
    /// The home lobby refused for good (the token is wrong or disabled).
    Refused(SdkError),
}

/// Sorts a lobby's news: a replica followed for a seat that is gone for good is
/// forgotten (its seats are lost, the bot goes on); the home lobby's end is the bot's.
fn sort_news(
    next: Result<Option<LobbyNews>, tokio::time::error::Elapsed>,
    home: &str,
    lobbies: &mut HashMap<String, JoinHandle<()>>,
) -> News {
    match next {
        Err(_) | Ok(None) => News::Nothing,
        Ok(Some(Err((server, e)))) if server != home => {
            tracing::warn!(server = %server, error = %e, "a replica's lobby ended");
            lobbies.remove(&server);
            News::Nothing
        }
        Ok(Some(Err((_, e)))) => News::Refused(e),
        Ok(Some(Ok((lobby, seat)))) => News::Seat(lobby, Box::new(seat)),
    }
}

/// Whether `seat` is to be played: not when that seat is played already with the same token;
/// a new token (the server restarted) replaces the old task.
fn replaces(playing: &HashMap<SeatKey, Playing>, seat: &pb::SeatAssigned) -> bool {
    match playing.get(&(seat.table_id.clone(), seat.seat)) {
        Some((token, _)) if *token == seat.seat_token => false,
        Some((_, h)) => {
            h.abort();
            true
        }
        None => true,
    }
}

/// Stops every lobby and every seat being played.
fn stop_all(lobbies: &HashMap<String, JoinHandle<()>>, playing: &mut HashMap<SeatKey, Playing>) {
    for h in lobbies.values() {
        h.abort();
    }
    for (_, (_, h)) in playing.drain() {
        h.abort();
    }
}

/// The seat on a shared connection to its server; when that cannot be reached, the seat
/// comes again as news in a moment (the replica may be restarting) and `None`.
async fn connect_or_retry(
    connections: &Connections,
    server: ServerAddress,
    lobby: &str,
    seat: &pb::SeatAssigned,
    news: &mpsc::Sender<LobbyNews>,
) -> Option<SeatClient> {
    match SeatClient::shared(connections, server, &seat.table_id, &seat.seat_token, seat.seat).await {
        Ok(c) => Some(c),
        Err(e) => {
            tracing::warn!(table = %seat.table_id, error = %e, "cannot reach a seat's server; retrying");
            let (again, lobby, seat) = (news.clone(), lobby.to_string(), seat.clone());
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(500)).await;
                let _ = again.send(Ok((lobby, seat))).await;
            });
            None
        }
    }
}

/// Moves the tables that ended from `playing` into `result`, logging each as the other
/// SDKs do (`table finished` with the seat's result, or `seat stopped`).
async fn collect_finished(playing: &mut HashMap<SeatKey, Playing>, result: &mut LobbyResult) {
    let done: Vec<SeatKey> =
        playing.iter().filter(|(_, (_, h))| h.is_finished()).map(|(k, _)| k.clone()).collect();
    for key in done {
        let Some((_, h)) = playing.remove(&key) else { continue };
        let table = key.0;
        match h.await {
            Ok(Ok(f)) => {
                let mine = f.standings.iter().find(|s| s.seat == u32::from(f.seat));
                let mut ranked: Vec<_> = f.standings.iter().map(|s| (s.seeger_fabian, s.seat)).collect();
                ranked.sort_by(|a, b| b.cmp(a));
                let place = ranked.iter().position(|(_, s)| *s == u32::from(f.seat)).map_or(0, |p| p + 1);
                tracing::info!(
                    table = %table,
                    seat = %f.seat,
                    seeger_fabian = mine.map_or(0, |s| s.seeger_fabian),
                    plain = mine.map_or(0, |s| s.plain),
                    place = %format!("{place}/{}", ranked.len()),
                    "table finished"
                );
                result.finished.push(f);
            }
            Err(e) if e.is_cancelled() => {}
            Ok(Err(e)) => {
                tracing::warn!(table = %table, error = %e, "seat stopped");
                result.failed.push((table, e.to_string()));
            }
            Err(e) => {
                tracing::warn!(table = %table, error = %e, "seat stopped");
                result.failed.push((table, e.to_string()));
            }
        }
    }
}

/// A seat being played: its token and its task.
type Playing = (String, JoinHandle<Result<Finished, SdkError>>);

/// A seat played, by table and seat: one account may hold two seats of a table (a house
/// bot named twice at a person's table), each played on its own.
type SeatKey = (String, u32);
