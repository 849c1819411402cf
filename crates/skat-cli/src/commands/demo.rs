//! `skat serve --demo`: three built-in bots play a list at one table over the server's
//! own gRPC port, printed on the console as it happens, while the server keeps serving
//! everyone else.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::time::Duration;

use skat_bots::Strategy;
use skat_engine::matches::Seat;
use skat_engine::{Action, Announcement, Bid, Card, Contract, EventView, Outcome, SeatView};
use skat_proto::convert;
use skat_proto::pb::skat_service_client::SkatServiceClient;
use skat_proto::pb::{self, event::Kind, watch_table_response::Kind as WatchKind};
use skat_sdk::client::connect;
use skat_sdk::play::{PlayOptions, play};
use skat_sdk::{Bot, Knowledge, SeatClient};
use tokio_stream::StreamExt;
use tonic::transport::Channel;

/// A bot that thinks for a while before each decision, so people can follow the game.
struct Paced {
    inner: Strategy,
    delay: Duration,
}

impl Bot for Paced {
    async fn bid(&mut self, k: &Knowledge) -> Option<Bid> {
        tokio::time::sleep(self.delay).await;
        self.inner.bid(k).await
    }
    async fn answer(&mut self, k: &Knowledge, bid: Bid) -> bool {
        tokio::time::sleep(self.delay).await;
        self.inner.answer(k, bid).await
    }
    async fn take_skat(&mut self, k: &Knowledge) -> bool {
        tokio::time::sleep(self.delay).await;
        self.inner.take_skat(k).await
    }
    async fn discard(&mut self, k: &Knowledge) -> [Card; 2] {
        tokio::time::sleep(self.delay).await;
        self.inner.discard(k).await
    }
    async fn declare(&mut self, k: &Knowledge) -> Contract {
        tokio::time::sleep(self.delay).await;
        self.inner.declare(k).await
    }
    async fn play(&mut self, k: &Knowledge) -> Card {
        tokio::time::sleep(self.delay).await;
        self.inner.play(k).await
    }
    fn comment(&mut self, k: &Knowledge) -> Option<String> {
        self.inner.comment(k)
    }
}

const PLAYERS: [(&str, &str); 3] = [("Anna", "heuristic"), ("Bernd", "heuristic"), ("Chris", "random")];

fn pretty(card: Card) -> String {
    let suit = match card.suit() {
        skat_engine::Suit::Clubs => '♣',
        skat_engine::Suit::Spades => '♠',
        skat_engine::Suit::Hearts => '♥',
        skat_engine::Suit::Diamonds => '♦',
    };
    format!("{suit}{}", card.rank().letter())
}

fn game_name(c: Contract) -> String {
    let extra = match c.announcement {
        Announcement::Schneider => " schneider announced",
        Announcement::Schwarz => " schwarz announced",
        Announcement::Ouvert => " ouvert",
        Announcement::None => "",
    };
    format!("{}{extra}", c.game.name())
}

/// Starts the demo table and its printer. `announce` is called first with the id of an
/// open table for visitors, so the instructions come before the game.
pub async fn start(
    addr: SocketAddr,
    delay: Duration,
    seed: u64,
    announce: impl Fn(&str) + Send + Sync + 'static,
) -> Result<(), Box<dyn std::error::Error>> {
    let host =
        if addr.ip().is_unspecified() { SocketAddr::from(([127, 0, 0, 1], addr.port())) } else { addr };
    let url = format!("http://{host}");
    let mut client = connect(&url).await?;
    let no_clock = Some(pb::TimeControl { action_ms: 0, deal_ms: 0, between_deals_ms: 0 });
    let demo = client
        .create_table(pb::CreateTableRequest {
            name: "demo".into(),
            seats: 3,
            deals: 36,
            seed: Some(seed),
            time_control: no_clock,
            ..Default::default()
        })
        .await?
        .into_inner()
        .table_id;
    let lobby = open_table(&mut client).await?;
    announce(&lobby);
    // When the visitors' table finishes, a fresh one opens: the demo stays playable.
    {
        let mut client = client.clone();
        tokio::spawn(async move {
            let mut table = lobby;
            loop {
                let finished = watch_until_finished(&mut client, &table).await;
                if !finished {
                    return;
                }
                match open_table(&mut client).await {
                    Ok(fresh) => {
                        outln!(
                            "\nThe open table {table} is finished (36/36 deals). A fresh one for your bots:"
                        );
                        announce(&fresh);
                        table = fresh;
                    }
                    Err(e) => {
                        eprintln!("demo: could not open a fresh table: {e}");
                        return;
                    }
                }
            }
        });
    }
    // The printer watches as a spectator.
    let stream = client
        .watch_table(pb::WatchTableRequest { table_id: demo.clone(), after_seq: Some(0) })
        .await?
        .into_inner();
    tokio::spawn(async move {
        if let Err(e) = print_table(stream, 36).await {
            eprintln!("demo: stream ended: {e}");
        }
    });
    for (seat, (name, strategy)) in PLAYERS.iter().enumerate() {
        let (sc, _) = SeatClient::join(&url, &demo, name, Some(seat as u32)).await?;
        let inner = Strategy::by_name(strategy, seed + seat as u64).ok_or("unknown strategy")?;
        tokio::spawn(async move {
            let mut bot = Paced { inner, delay };
            if let Err(e) = play(sc, &mut bot, PlayOptions::default()).await {
                eprintln!("demo: {name} stopped: {e}");
            }
        });
    }
    Ok(())
}

/// A table for visitors' bots: three open seats, the server's default clocks.
async fn open_table(client: &mut SkatServiceClient<Channel>) -> Result<String, tonic::Status> {
    Ok(client
        .create_table(pb::CreateTableRequest {
            name: "open table".into(),
            seats: 3,
            deals: 36,
            ..Default::default()
        })
        .await?
        .into_inner()
        .table_id)
}

/// Follows a table as a spectator until its list is over (true) or the stream fails
/// (false: the server is going away).
async fn watch_until_finished(client: &mut SkatServiceClient<Channel>, table: &str) -> bool {
    let request = pb::WatchTableRequest { table_id: table.to_string(), after_seq: Some(0) };
    let Ok(stream) = client.watch_table(request).await else { return false };
    let mut stream = stream.into_inner();
    while let Some(Ok(msg)) = stream.next().await {
        if let Some(WatchKind::Event(e)) = msg.kind
            && matches!(e.kind, Some(Kind::MatchEnded(_)))
        {
            return true;
        }
    }
    false
}

/// Prints the demo table as a spectator sees it. The stream's events are turned into the
/// engine's events once ([`convert::event_from`]) and read from there; trick winners,
/// the declaration and everything else come from the events' facts, nothing is
/// recomputed here.
pub async fn print_table(
    mut stream: tonic::Streaming<pb::WatchTableResponse>,
    deals: u32,
) -> Result<(), tonic::Status> {
    let mut names = vec![String::new(); 3];
    let mut spectator = SeatView::new(None);
    while let Some(msg) = stream.next().await {
        let Some(WatchKind::Event(event)) = msg?.kind else { continue };
        let Some(kind) = event.kind else { continue };
        if let Kind::SeatJoined(j) = &kind
            && let Some(n) = names.get_mut(j.seat as usize)
        {
            n.clone_from(&j.name);
        }
        let Some(e) = convert::event_from(&kind).map_err(|e| tonic::Status::internal(e.message))? else {
            continue;
        };
        // The trick in progress before this event, to print a completed one whole.
        let trick_before = spectator.current_trick;
        let seats = spectator.frame.map_or([0, 1, 2].map(Seat::new), |f| f.seats);
        spectator.apply(&e);
        let line = describe(&e, &names, seats, trick_before, spectator.tricks.len(), deals);
        if !line.is_empty() {
            outln!("{line}");
        }
        // The players' comments, which the server shows once the deal has ended.
        if let Kind::DealEnded(d) = &kind {
            for c in &d.comments {
                let who = names.get(c.seat as usize).map_or("?", String::as_str);
                outln!("  ({who}, move {}: \"{}\")", c.move_index + 1, c.text);
            }
        }
    }
    Ok(())
}

/// One line (or none) for a match event.
fn describe(
    e: &EventView,
    names: &[String],
    seats: [Seat; 3],
    trick_before: Option<skat_engine::Trick>,
    tricks_done: usize,
    deals: u32,
) -> String {
    let name = |seat: Seat| names.get(usize::from(seat)).cloned().unwrap_or_default();
    let mut line = String::new();
    match e {
        EventView::DealStarted { number, dealer, seats, .. } => {
            let _ = write!(
                line,
                "\n── deal {}/{deals} ── dealer {} · forehand {}, middlehand {}, rearhand {}",
                number + 1,
                name(*dealer),
                name(seats[0]),
                name(seats[1]),
                name(seats[2])
            );
        }
        EventView::Moved { seat, position, action, open_hand, facts, .. } => {
            line = describe_move(
                &name,
                *seat,
                *position,
                action,
                open_hand,
                facts,
                (seats, trick_before, tricks_done),
            );
        }
        EventView::DealEnded { seats, outcome, .. } => line = describe_outcome(&name, seats, outcome),
        EventView::MatchEnded { standings } => {
            line = "\n── the list is complete ──".into();
            for s in standings {
                let _ = write!(
                    line,
                    "\n  {:<8} Seeger-Fabian {:>6}   plain {:>5}   games {}/{} won",
                    name(s.seat),
                    s.seeger_fabian,
                    s.plain,
                    s.won,
                    s.declared
                );
            }
            line.push_str("\n(the server keeps serving; Ctrl-C stops it)");
        }
    }
    line
}

/// A move in words (a card: the trick once it is complete, with its winner and points).
fn describe_move(
    name: &dyn Fn(Seat) -> String,
    seat: Seat,
    position: skat_engine::Position,
    action: &Action,
    open_hand: &skat_engine::CardSet,
    facts: &skat_engine::Facts,
    (seats, trick_before, tricks_done): ([Seat; 3], Option<skat_engine::Trick>, usize),
) -> String {
    let who = name(seat);
    match action {
        Action::Bid { value } => format!("  {who} says {}", value.value()),
        Action::Hold => format!("  {who} holds"),
        Action::Pass => format!("  {who} passes"),
        Action::PickUpSkat => format!("  {who} picks up the skat"),
        Action::PlayHand => format!("  {who} plays hand"),
        Action::Discard { .. } => format!("  {who} discards two cards"),
        Action::Declare { contract } => {
            let mut l = format!("  {who} declares {}", game_name(*contract));
            if facts.declaration.is_some_and(|d| d.hand) {
                l.push_str(" (hand)");
            }
            if !open_hand.is_empty() {
                let cards: Vec<String> = open_hand.iter().map(pretty).collect();
                let _ = write!(l, " and shows {}", cards.join(" "));
            }
            l
        }
        Action::Play { card } => match facts.trick_winner {
            Some(winner) => {
                let mut cards: Vec<Card> = trick_before.map_or_else(Vec::new, |t| t.cards().to_vec());
                cards.push(*card);
                let mut p = trick_before.map_or(position, |t| t.leader);
                let points: u32 = cards.iter().map(|c| u32::from(c.points())).sum();
                let mut played = Vec::new();
                for c in &cards {
                    played.push(format!("{} {}", name(seats[p.index()]), pretty(*c)));
                    p = p.next();
                }
                format!(
                    "  trick {tricks_done:>2}: {:<36} → {} ({points})",
                    played.join(", "),
                    name(seats[winner.index()])
                )
            }
            None => String::new(),
        },
        Action::Claim => format!("  {who} claims the rest"),
        Action::Resign => format!("  {who} resigns"),
        Action::Forfeit { .. } => format!("  {who} ran out of time and forfeits"),
    }
}

/// How a deal ended, in words.
fn describe_outcome(name: &dyn Fn(Seat) -> String, seats: &[Seat; 3], outcome: &Outcome) -> String {
    match outcome {
        Outcome::PassedIn => "  all pass: passed in".into(),
        Outcome::Penalty(p) => {
            format!("  {} is penalised {}", name(seats[p.offender.index()]), -2 * i32::from(p.value))
        }
        Outcome::Game(g) => format!(
            "  {} {} {} ({} points, {} tricks{}{}): {:+}",
            name(seats[g.declarer.index()]),
            if g.won { "wins" } else { "loses" },
            game_name(g.contract),
            g.declarer_points,
            g.declarer_tricks,
            if g.overbid { ", overbid" } else { "" },
            if g.schwarz {
                ", schwarz"
            } else if g.schneider {
                ", schneider"
            } else {
                ""
            },
            g.score()
        ),
    }
}
