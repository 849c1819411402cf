//! The table as protobuf: every `skat.v1` message a [`Table`] is shown as (status,
//! summary, views, the log's events as each reader may see them, records) is built here,
//! and nowhere else in the server. The table itself ([`crate::table`]) holds no protobuf:
//! it is the domain, this module is its projection onto the wire, through
//! [`skat_proto::convert`].

use std::time::Instant;

use skat_engine::LegalActions;
use skat_engine::iss::{self, RecordMeta};
use skat_engine::matches::Seat;
use skat_proto::convert::{self, DealFrame};
use skat_proto::pb;

use crate::store::{RowStatus, TableRow};
use crate::table::{Table, TableEvent, unix_ms};

impl Table {
    /// Waiting, playing or finished.
    pub fn status(&self) -> pb::TableStatus {
        if self.game.is_over() {
            pb::TableStatus::Finished
        } else if self.started {
            pb::TableStatus::Playing
        } else {
            pb::TableStatus::Waiting
        }
    }

    /// The events after `after` up to `until` as `viewer` may see them, at most `max`.
    pub fn events_after(&self, after: u64, until: u64, viewer: Option<Seat>, max: usize) -> Vec<pb::Event> {
        let names = self.names();
        let count = usize::try_from(until.saturating_sub(after)).unwrap_or(usize::MAX);
        self.log
            .iter()
            .enumerate()
            .skip(usize::try_from(after).unwrap_or(usize::MAX))
            .take(max.min(count))
            .map(|(i, e)| {
                let kind = match &e.event {
                    TableEvent::SeatJoined { seat, name } => pb::event::Kind::SeatJoined(pb::SeatJoined {
                        seat: u32::from(*seat),
                        name: name.clone(),
                    }),
                    TableEvent::SeatLeft { seat } => {
                        pb::event::Kind::SeatLeft(pb::SeatLeft { seat: u32::from(*seat) })
                    }
                    TableEvent::Game(g) => convert::event(&g.seen_by(viewer), &names),
                };
                let seat_to_move = e.turn.as_ref().map(|(seat, _, _)| u32::from(*seat));
                let legal = match (&e.turn, viewer) {
                    (Some((seat, legal, hand)), Some(v)) if *seat == v => Some(convert::legal(legal, *hand)),
                    (_, Some(v)) => {
                        e.out_of_turn.get(usize::from(v)).filter(|o| o.resign || o.claim).map(|o| {
                            convert::legal(
                                &LegalActions { resign: o.resign, claim: o.claim, ..LegalActions::default() },
                                false,
                            )
                        })
                    }
                    (_, None) => None,
                };
                pb::Event {
                    seq: i as u64 + 1,
                    time_unix_ms: e.time_ms,
                    kind: Some(kind),
                    seat_to_move,
                    legal,
                }
            })
            .collect()
    }

    /// A one-line summary.
    pub fn summary(&self) -> pb::TableSummary {
        summary_of(&crate::journal::table_row(self, ""))
    }

    /// The table as `viewer` may see it (`None`: a spectator).
    pub fn view(&self, viewer: Option<Seat>, now: Instant) -> pb::TableView {
        let names = self.names();
        let records = self.game.records();
        let deal = self.started.then(|| {
            let number = if self.game.is_over() {
                self.game.deal_number().saturating_sub(1)
            } else {
                self.game.deal_number()
            };
            let seeger_fabian = match records.last() {
                Some(r) if self.game.is_over() => self.game.seeger_fabian_by_seat(r),
                _ => Vec::new(),
            };
            let frame = DealFrame {
                number,
                dealer: self.game.dealer_of(number),
                seats: self.game.seats_of(number),
                seeger_fabian: &seeger_fabian,
            };
            let view = self.game.deal().view(
                viewer
                    .and_then(|s| frame.seats.iter().position(|x| *x == s))
                    .and_then(skat_engine::Position::from_index),
            );
            convert::deal_view(&view, frame)
        });
        let deadline_unix_ms = self.turn.and_then(|t| t.deadline).map_or(0, |d| {
            let left = d.saturating_duration_since(now);
            unix_ms(self.wall(now) + left)
        });
        pb::TableView {
            table_id: self.id.to_string(),
            name: self.config.name.clone(),
            status: self.status() as i32,
            seats: u32::from(self.config.game.seats),
            seat_info: self
                .slots
                .iter()
                .enumerate()
                .map(|(i, s)| pb::SeatInfo {
                    seat: i as u32,
                    name: s.name.clone(),
                    occupied: s.token.is_some(),
                })
                .collect(),
            your_seat: viewer.map(u32::from),
            seq: self.seq(),
            deals: self.config.game.deals,
            deals_played: records.len() as u32,
            seed: self.config.game.seed,
            time_control: Some(pb::TimeControl {
                action_ms: self.config.action_ms,
                deal_ms: self.config.deal_ms,
            }),
            deal,
            standings: self
                .game
                .standings()
                .iter()
                .map(|s| convert::standing(s, &names[usize::from(s.seat)]))
                .collect(),
            clocks: self
                .clocks
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let mut left = *c;
                    if let Some(t) =
                        self.turn.filter(|t| usize::from(t.seat) == i && t.deal == self.clock_deal)
                    {
                        left = left.saturating_sub(now.duration_since(t.started));
                    }
                    pb::Clock {
                        seat: i as u32,
                        remaining_ms: if self.config.deal_ms > 0 { left.as_millis() as u64 } else { 0 },
                    }
                })
                .collect(),
            deadline_unix_ms,
            results: records
                .iter()
                .map(|r| convert::deal_result(&r.outcome, r.seats, &self.game.seeger_fabian_by_seat(r)))
                .collect(),
        }
    }

    /// The finished deals as ISS records or JSON lines.
    pub fn records(&self, json: bool, server_name: &str) -> Vec<String> {
        self.records_until(self.seq(), json, server_name)
    }

    /// The records of the deals that ended at or before `seq` (the published ones).
    pub fn records_until(&self, seq: u64, json: bool, server_name: &str) -> Vec<String> {
        let names = self.names();
        let upto = usize::try_from(seq).unwrap_or(usize::MAX).min(self.log.len());
        let ended = self.log[..upto]
            .iter()
            .filter(|e| matches!(e.event, TableEvent::Game(skat_engine::GameEvent::DealEnded { .. })))
            .count();
        self.game
            .records()
            .iter()
            .take(ended)
            .enumerate()
            .map(|(i, r)| {
                if json {
                    return serde_json::to_string(r).unwrap_or_default();
                }
                let date = self.deal_end_times.get(i).map_or_else(String::new, |t| {
                    // RFC 3339 `2026-11-29T22:05:36Z` to ISS `2026-11-29/22:05:36/UTC`.
                    let text = humantime::format_rfc3339_seconds(*t).to_string();
                    text.trim_end_matches('Z').replacen('T', "/", 1) + "/UTC"
                });
                let meta = RecordMeta {
                    server: server_name.to_string(),
                    id: format!("{}.{}", self.id, r.number),
                    date,
                    players: r.seats.map(|s| names[usize::from(s)].clone()),
                    series: self.config.game.seed.to_string(),
                };
                iss::write(r, &meta)
            })
            .collect()
    }
}

/// A listing row as the wire shows it (from memory or from the journal alike).
pub fn summary_of(row: &TableRow) -> pb::TableSummary {
    let status = match row.status {
        RowStatus::Waiting => pb::TableStatus::Waiting,
        RowStatus::Playing => pb::TableStatus::Playing,
        RowStatus::Finished => pb::TableStatus::Finished,
        RowStatus::Abandoned => pb::TableStatus::Abandoned,
    };
    pb::TableSummary {
        table_id: row.table_id.clone(),
        name: row.name.clone(),
        status: status as i32,
        seats: u32::from(row.seats),
        occupied: row.occupied,
        deals: row.deals,
        deals_played: row.deals_played,
        private: row.private,
        players: row.players.clone(),
        seeger_fabian: row.scores.clone(),
        created_unix_ms: row.created_ms,
        ended_unix_ms: row.finished_ms,
    }
}
