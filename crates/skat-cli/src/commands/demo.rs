//! `skat serve --demo`: three built-in bots play a list at one table over the server's
//! own gRPC port, printed on the console as it happens, while the server keeps serving
//! everyone else.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::time::Duration;

use skat_bots::Strategy;
use skat_engine::{Bid, Card, Contract, GameType};
use skat_proto::convert;
use skat_proto::pb::{self, event::Kind, watch_table_response::Kind as WatchKind};
use skat_sdk::client::connect;
use skat_sdk::play::{PlayOptions, play};
use skat_sdk::{Bot, Knowledge, SeatClient};
use tokio_stream::StreamExt;

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
}

const PLAYERS: [(&str, &str); 3] = [("Anna", "heuristic"), ("Bernd", "heuristic"), ("Chris", "random")];

fn pretty(c: i32) -> String {
    match convert::card_from(c) {
        Ok(card) => {
            let suit = match card.suit() {
                skat_engine::Suit::Clubs => '♣',
                skat_engine::Suit::Spades => '♠',
                skat_engine::Suit::Hearts => '♥',
                skat_engine::Suit::Diamonds => '♦',
            };
            format!("{suit}{}", card.rank().letter())
        }
        Err(_) => "??".into(),
    }
}

fn game_name(c: Option<&pb::Contract>) -> String {
    let Some(c) = c else { return "?".into() };
    let game = convert::game_type_from(c.game).map_or("?", GameType::name);
    let extra = match pb::Announcement::try_from(c.announcement) {
        Ok(pb::Announcement::Schneider) => " schneider announced",
        Ok(pb::Announcement::Schwarz) => " schwarz announced",
        Ok(pb::Announcement::Ouvert) => " ouvert",
        _ => "",
    };
    format!("{game}{extra}")
}

/// Starts the demo table and its printer. `announce` is called first with the id of an
/// open table for visitors, so the instructions come before the game.
pub async fn start(
    addr: SocketAddr,
    delay: Duration,
    seed: u64,
    announce: impl FnOnce(&str),
) -> Result<(), Box<dyn std::error::Error>> {
    let host =
        if addr.ip().is_unspecified() { SocketAddr::from(([127, 0, 0, 1], addr.port())) } else { addr };
    let url = format!("http://{host}");
    let mut client = connect(&url).await?;
    let no_clock = Some(pb::TimeControl { action_ms: 0, deal_ms: 0 });
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
    let lobby = client
        .create_table(pb::CreateTableRequest {
            name: "open table".into(),
            seats: 3,
            deals: 36,
            ..Default::default()
        })
        .await?
        .into_inner()
        .table_id;

    announce(&lobby);
    // The printer watches as a spectator.
    let stream = client
        .watch_table(pb::WatchTableRequest { table_id: demo.clone(), after_seq: Some(0) })
        .await?
        .into_inner();
    tokio::spawn(async move {
        if let Err(e) = print_table(stream).await {
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

async fn print_table(mut stream: tonic::Streaming<pb::WatchTableResponse>) -> Result<(), tonic::Status> {
    let mut names = vec![String::new(); 3];
    let mut seats: [u32; 3];
    let mut game: Option<GameType> = None;
    let mut trick: Vec<(u32, i32)> = Vec::new();
    let mut tricks = 0;
    while let Some(msg) = stream.next().await {
        let Some(WatchKind::Event(event)) = msg?.kind else { continue };
        let name = |names: &[String], seat: u32| names.get(seat as usize).cloned().unwrap_or_default();
        let mut line = String::new();
        match event.kind {
            Some(Kind::SeatJoined(j)) => {
                if let Some(n) = names.get_mut(j.seat as usize) {
                    n.clone_from(&j.name);
                }
            }
            Some(Kind::DealStarted(d)) => {
                seats = d.position_seats.clone().try_into().unwrap_or([0, 1, 2]);
                game = None;
                tricks = 0;
                let _ = write!(
                    line,
                    "\n── deal {}/36 ── dealer {} · forehand {}, middlehand {}, rearhand {}",
                    d.number + 1,
                    name(&names, d.dealer_seat),
                    name(&names, seats[0]),
                    name(&names, seats[1]),
                    name(&names, seats[2])
                );
            }
            Some(Kind::ActionTaken(a)) => {
                let who = name(&names, a.seat);
                let Some(act) = a.action else { continue };
                match pb::ActionKind::try_from(act.kind) {
                    Ok(pb::ActionKind::Bid) => line = format!("  {who} says {}", act.bid),
                    Ok(pb::ActionKind::Hold) => line = format!("  {who} holds"),
                    Ok(pb::ActionKind::Pass) => line = format!("  {who} passes"),
                    Ok(pb::ActionKind::PickUpSkat) => line = format!("  {who} picks up the skat"),
                    Ok(pb::ActionKind::PlayHand) => line = format!("  {who} plays hand"),
                    Ok(pb::ActionKind::Discard) => line = format!("  {who} discards two cards"),
                    Ok(pb::ActionKind::Declare) => {
                        game = act.contract.as_ref().and_then(|c| convert::game_type_from(c.game).ok());
                        line = format!("  {who} declares {}", game_name(act.contract.as_ref()));
                        if !a.open_hand.is_empty() {
                            let cards: Vec<String> = a.open_hand.iter().map(|c| pretty(*c)).collect();
                            let _ = write!(line, " and shows {}", cards.join(" "));
                        }
                    }
                    Ok(pb::ActionKind::PlayCard) => {
                        trick.push((a.seat, act.card));
                        if trick.len() == 3 {
                            tricks += 1;
                            let cards: Vec<Card> =
                                trick.iter().filter_map(|(_, c)| convert::card_from(*c).ok()).collect();
                            let winner = match (game, <[Card; 3]>::try_from(cards.clone())) {
                                (Some(g), Ok(t)) => name(&names, trick[g.trick_winner(t)].0),
                                _ => "?".into(),
                            };
                            let points: u32 = cards.iter().map(|c| u32::from(c.points())).sum();
                            let played: Vec<String> = trick
                                .iter()
                                .map(|(s, c)| format!("{} {}", name(&names, *s), pretty(*c)))
                                .collect();
                            line = format!(
                                "  trick {tricks:>2}: {:<36} → {winner} ({points})",
                                played.join(", ")
                            );
                            trick.clear();
                        }
                    }
                    Ok(pb::ActionKind::Claim) => line = format!("  {who} claims the rest"),
                    Ok(pb::ActionKind::Resign) => line = format!("  {who} resigns"),
                    Ok(pb::ActionKind::Forfeit) => line = format!("  {who} ran out of time and forfeits"),
                    _ => {}
                }
            }
            Some(Kind::DealEnded(d)) => {
                trick.clear();
                let Some(r) = d.result else { continue };
                line = if r.passed_in {
                    "  all pass: passed in".into()
                } else if r.penalty {
                    format!("  {} is penalised {}", name(&names, r.declarer_seat), r.score)
                } else {
                    format!(
                        "  {} {} {} ({} points, {} tricks{}{}): {:+}",
                        name(&names, r.declarer_seat),
                        if r.won { "wins" } else { "loses" },
                        game_name(r.contract.as_ref()),
                        r.declarer_points,
                        r.declarer_tricks,
                        if r.overbid { ", overbid" } else { "" },
                        if r.schwarz {
                            ", schwarz"
                        } else if r.schneider {
                            ", schneider"
                        } else {
                            ""
                        },
                        r.score
                    )
                };
            }
            Some(Kind::MatchEnded(m)) => {
                line = "\n── the list is complete ──".into();
                for s in &m.standings {
                    let _ = write!(
                        line,
                        "\n  {:<8} Seeger-Fabian {:>6}   plain {:>5}   games {}/{} won",
                        s.name, s.seeger_fabian, s.plain, s.won, s.declared
                    );
                }
                line.push_str("\n(the server keeps serving; Ctrl-C stops it)");
            }
            _ => {}
        }
        if !line.is_empty() {
            println!("{line}");
        }
    }
    Ok(())
}
