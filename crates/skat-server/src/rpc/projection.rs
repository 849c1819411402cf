//! The domain as protobuf: every `skat.v1` message the server answers with (a table's
//! status, summary and views, the log's events as each reader may see them; a
//! tournament, its standings and meetings, a bot, the leaderboard, a lobby's seat) is
//! built here, and nowhere else. The table and the competitions hold no protobuf: they
//! are the domain, this module is their projection onto the wire, through
//! [`skat_proto::convert`].

use std::time::{Instant, SystemTime};

use skat_engine::LegalActions;
use skat_engine::matches::Seat;
use skat_engine::seat_view::DealFrame;
use skat_league::plan::tables_in_all;
use skat_league::{ChallengeState, Format, TableStatus, TournamentStatus};
use skat_proto::convert;
use skat_proto::pb;

use skat_competition::SeatOffer;
use skat_competition::admin::OperatorView;
use skat_competition::challenges::ChallengeView;
use skat_competition::views::{BotDetails, TournamentDetails, TournamentListing};
use skat_store::audit::AuditEntry;
use skat_store::challenges::Answer;
use skat_store::ratings::RatedAccount;
use skat_store::{RowStatus, TableRow};
use skat_table::{LogEntry, Status, Table, TableEvent, unix_ms};

/// Waiting, playing or finished.
pub(crate) fn status(table: &Table) -> pb::TableStatus {
    match table.status() {
        Status::Waiting => pb::TableStatus::Waiting,
        Status::Playing => pb::TableStatus::Playing,
        Status::Finished => pb::TableStatus::Finished,
    }
}

/// The events after `after` up to `until` as `viewer` may see them, at most `max`:
/// redacted for the viewer ([`skat_engine::GameEvent::seen_by`]), with the viewer's
/// legal actions (its turn, or what it may do out of turn) and nobody else's.
pub(crate) fn events_after(
    t: &Table,
    after: u64,
    until: u64,
    viewer: Option<Seat>,
    max: usize,
) -> Vec<pb::Event> {
    let count = usize::try_from(until.saturating_sub(after)).unwrap_or(usize::MAX);
    events_of(t, &t.entries_after(after, max.min(count)), after + 1, viewer)
}

/// `entries` of `t`'s log, the first of them numbered `first`, as `viewer` may see them
/// (as [`events_after`] has them; the entries may be derived ones a stream keeps).
pub(crate) fn events_of(t: &Table, entries: &[LogEntry], first: u64, viewer: Option<Seat>) -> Vec<pb::Event> {
    let names = t.names();
    entries
        .iter()
        .zip(first..)
        .map(|(e, seq)| {
            let kind = match &e.event {
                TableEvent::SeatJoined { seat, name } => {
                    pb::event::Kind::SeatJoined(pb::SeatJoined { seat: u32::from(*seat), name: name.clone() })
                }
                TableEvent::SeatLeft { seat } => {
                    pb::event::Kind::SeatLeft(pb::SeatLeft { seat: u32::from(*seat) })
                }
                TableEvent::Game(g) => {
                    let mut kind = convert::event(&g.seen_by(viewer), &names);
                    // The comments on a deal's actions come out with its end, to everybody.
                    if let pb::event::Kind::DealEnded(d) = &mut kind {
                        d.comments = t
                            .records()
                            .comments_of(d.deal)
                            .map(|c| pb::MoveComment {
                                move_index: c.index,
                                seat: u32::from(c.seat),
                                text: c.text.clone(),
                            })
                            .collect();
                    }
                    kind
                }
            };
            let seat_to_move = e.turn.as_ref().map(|(seat, _, _)| u32::from(*seat));
            let legal = match (&e.turn, viewer) {
                (Some((seat, legal, hand)), Some(v)) if *seat == v => Some(convert::legal(legal, *hand)),
                (_, Some(v)) => e.out_of_turn.get(usize::from(v)).filter(|o| o.resign || o.claim).map(|o| {
                    convert::legal(
                        &LegalActions { resign: o.resign, claim: o.claim, ..LegalActions::default() },
                        false,
                    )
                }),
                (_, None) => None,
            };
            pb::Event {
                seq,
                time_unix_ms: e.time_ms,
                kind: Some(kind),
                seat_to_move,
                legal,
                deadline_unix_ms: e.deadline.0,
                deal_clock_left_ms: e.deadline.1,
            }
        })
        .collect()
}

/// The table as `viewer` may see it (`None`: a spectator).
pub(crate) fn table_view(t: &Table, viewer: Option<Seat>, now: Instant) -> pb::TableView {
    let names = t.names();
    let deal = t.started().then(|| {
        let number = if t.game().is_over() {
            t.game().deal_number().saturating_sub(1)
        } else {
            t.game().deal_number()
        };
        let seeger_fabian = match t.game().last_result() {
            Some(r) if t.game().is_over() => r.seeger_fabian_by_seat(t.config().game.seats),
            _ => Vec::new(),
        };
        let frame =
            DealFrame { number, dealer: t.game().dealer_of(number), seats: t.game().seats_of(number) };
        let view = t.game().deal().view(
            viewer
                .and_then(|s| frame.seats.iter().position(|x| *x == s))
                .and_then(skat_engine::Position::from_index),
        );
        convert::deal_view(&view, frame, &seeger_fabian)
    });
    pb::TableView {
        table_id: t.id().to_string(),
        name: t.config().name.clone(),
        status: status(t) as i32,
        seats: u32::from(t.config().game.seats),
        seat_info: t
            .seats()
            .enumerate()
            .map(|(i, (name, occupied))| pb::SeatInfo { seat: i as u32, name: name.to_string(), occupied })
            .collect(),
        your_seat: viewer.map(u32::from),
        seq: t.seq(),
        deals: t.config().game.deals,
        deals_played: t.game().deal_number(),
        seed: t.config().game.seed,
        time_control: Some(pb::TimeControl {
            action_ms: t.config().action_ms,
            deal_ms: t.config().deal_ms,
            between_deals_ms: t.config().between_deals_ms,
        }),
        deal,
        standings: t
            .game()
            .standings()
            .iter()
            .map(|s| convert::standing(s, &names[usize::from(s.seat)]))
            .collect(),
        clocks: (0..t.seat_count())
            .map(|i| pb::Clock { seat: i as u32, remaining_ms: t.clock_left(i, now).as_millis() as u64 })
            .collect(),
        deadline_unix_ms: t.deadline_unix_ms(now),
        results: t
            .game()
            .results()
            .iter()
            .map(|r| {
                convert::deal_result(&r.outcome, r.seats, &r.seeger_fabian_by_seat(t.config().game.seats))
            })
            .collect(),
        // GetTable fills these from the database.
        tournament_id: String::new(),
        tournament_name: String::new(),
    }
}

/// A listing row as the wire shows it (from memory or from the journal alike).
pub(crate) fn summary(row: &TableRow) -> pb::TableSummary {
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

/// A format as the wire names it.
pub(crate) fn format(f: Format) -> pb::TournamentFormat {
    match f {
        Format::RoundRobin => pb::TournamentFormat::RoundRobin,
        Format::Swiss => pb::TournamentFormat::Swiss,
        Format::Casual => pb::TournamentFormat::Casual,
        Format::Challenge => pb::TournamentFormat::Challenge,
    }
}

/// A seat handed to a lobby.
pub(crate) fn seat_assigned(offer: SeatOffer) -> pb::SeatAssigned {
    pb::SeatAssigned {
        table_id: offer.table_id,
        seat: offer.seat,
        seat_token: offer.seat_token,
        owner_address: offer.owner_address,
        tournament_id: offer.tournament_id.map(|t| t.to_string()).unwrap_or_default(),
    }
}

/// A challenge as the wire shows it.
pub(crate) fn challenge_info(c: &ChallengeView) -> pb::ChallengeInfo {
    let r = &c.row;
    let state = match r.state {
        ChallengeState::Pending => pb::ChallengeState::Pending,
        ChallengeState::Accepted => pb::ChallengeState::Accepted,
        ChallengeState::Declined => pb::ChallengeState::Declined,
        ChallengeState::Expired => pb::ChallengeState::Expired,
    };
    pb::ChallengeInfo {
        challenge_id: r.challenge_id.to_string(),
        challenger: c.name(&r.challenger),
        opponents: r.opponents.iter().map(|(a, _)| c.name(a)).collect(),
        accepted: r
            .opponents
            .iter()
            .filter(|(_, answer)| *answer == Answer::Accept)
            .map(|(a, _)| c.name(a))
            .collect(),
        deals: r.terms.deals,
        lists: r.terms.lists,
        time_control: Some(pb::TimeControl {
            action_ms: r.terms.action_ms,
            deal_ms: r.terms.deal_ms,
            between_deals_ms: 0,
        }),
        rated: r.terms.rated,
        state: state.into(),
        tournament_id: r.tournament_id.as_ref().map(ToString::to_string).unwrap_or_default(),
        created_ms: r.created_ms,
        expires_ms: r.expires_ms,
        deals_commitment: c.commitment.clone(),
    }
}

/// A tournament with its standings and meetings.
pub(crate) fn tournament(d: TournamentDetails) -> pb::Tournament {
    let TournamentDetails {
        tournament: t,
        plan,
        standings,
        meetings,
        round,
        names,
        waiting,
        estimated_finish_ms,
    } = d;
    let swiss = t.spec.format == Format::Swiss;
    pb::Tournament {
        format: format(t.spec.format) as i32,
        round,
        rounds: t.spec.rounds,
        meetings: meetings
            .into_iter()
            .map(|m| pb::TournamentMeeting {
                seeger_fabian: m.seeger_fabian,
                entrants: m.entrants.iter().map(|a| names.of(a)).collect(),
                finished: m.finished,
                tables: m.tables,
                round: if swiss { m.round } else { 0 },
            })
            .collect(),
        seats: u32::from(t.spec.seats),
        created_ms: t.created_ms,
        start_ms: t.spec.start_ms.max(t.created_ms),
        finished_ms: t.finished_ms,
        tournament_id: t.tournament_id.to_string(),
        name: t.name,
        finished: t.status.is_over(),
        status: tournament_status(t.status, t.spec.start_ms) as i32,
        deals_commitment: t.spec.commitment.clone(),
        // The secret only once nothing more is dealt from it.
        deals_secret: if t.status.is_over() { t.spec.secret.reveal().to_string() } else { String::new() },
        // Filled in by GetTournament from the hosting room.
        hosted: false,
        versions: Vec::new(),
        tables_in_all: tables_in_all_of(&t.spec, &plan),
        tables_finished: plan.iter().filter(|p| p.status == TableStatus::Finished).count() as u32,
        tables_abandoned: plan.iter().filter(|p| p.status == TableStatus::Abandoned).count() as u32,
        tables_playing: plan.iter().filter(|p| p.status == TableStatus::Playing).count() as u32,
        tables_waiting: waiting,
        estimated_finish_ms,
        tables: plan
            .iter()
            .map(|p| pb::TournamentTable {
                table_id: p.table_id.clone(),
                seating: p.seating.iter().map(|a| names.of(a)).collect(),
                status: p.status.as_str().to_string(),
            })
            .collect(),
        standings: standings
            .into_iter()
            .map(|s| pb::TournamentStanding {
                name: names.of(&s.account_id),
                lists: s.lists,
                seeger_fabian: s.seeger_fabian,
                mean: s.mean,
                ci95: s.ci95,
                declared: s.declared,
                won: s.won,
                penalties: s.penalties,
            })
            .collect(),
    }
}

/// A tournament in a list.
pub(crate) fn tournament_summary(l: TournamentListing) -> pb::TournamentSummary {
    let t = l.row.tournament;
    pb::TournamentSummary {
        tournament_id: t.tournament_id.to_string(),
        name: t.name,
        format: format(t.spec.format) as i32,
        finished: t.status.is_over(),
        status: tournament_status(t.status, t.spec.start_ms) as i32,
        start_ms: t.spec.start_ms.max(t.created_ms),
        tables_in_all: (tables_in_all(&t.spec) as u32).max(l.row.tables as u32),
        tables_abandoned: l.row.abandoned as u32,
        entrants: l.entrants,
        tables: l.row.tables as u32,
        finished_tables: l.row.finished as u32,
        created_ms: t.created_ms,
    }
}

/// A tournament's status on the wire: a running one before its start is scheduled.
fn tournament_status(status: TournamentStatus, start_ms: u64) -> pb::TournamentStatus {
    use pb::TournamentStatus as S;
    match status {
        TournamentStatus::Running if start_ms > unix_ms(SystemTime::now()) => S::Scheduled,
        TournamentStatus::Running => S::Running,
        TournamentStatus::Paused => S::Paused,
        TournamentStatus::Finished => S::Finished,
        TournamentStatus::Cancelled => S::Cancelled,
    }
}

/// Tables a tournament has in all: every Swiss round (planned or not), or the plan.
fn tables_in_all_of(spec: &skat_league::TournamentSpec, plan: &[skat_league::PlannedTable]) -> u32 {
    (tables_in_all(spec) as u32).max(plan.len() as u32)
}

/// An account as the operator sees it. An account with a lobby open here is seen now
/// (the stored time moves once a minute while it plays, for the other replicas).
pub(crate) fn bot_account(v: OperatorView) -> pb::BotAccount {
    let a = v.listed.account;
    let last_seen_ms =
        if v.lobbies > 0 { skat_table::unix_ms(std::time::SystemTime::now()) } else { a.last_seen_ms };
    let name = a.name.to_string();
    pb::BotAccount {
        account_id: a.account_id.to_string(),
        owner: a.owner,
        created_ms: a.created_ms,
        disabled: a.disabled,
        removed: a.removed_ms > 0,
        lobbies: v.lobbies,
        tables_now: v.tables_now,
        rating: v.listed.rating.map(|r| pb::LeaderboardEntry {
            name: name.clone(),
            rating: r.rating,
            uncertainty: r.uncertainty,
            lists: r.lists as u32,
        }),
        last_seen_ms,
        max_tables: a.max_tables,
        former_names: v.listed.former_names,
        name,
    }
}

/// An audit log entry.
pub(crate) fn audit_entry(e: AuditEntry) -> pb::AuditEntry {
    pb::AuditEntry {
        at_ms: e.at_ms,
        actor: e.actor,
        peer: e.peer,
        action: e.action,
        target: e.target,
        detail: e.detail,
    }
}

/// A leaderboard row.
pub(crate) fn leaderboard_entry(r: RatedAccount) -> pb::LeaderboardEntry {
    pb::LeaderboardEntry {
        name: r.name.to_string(),
        rating: r.rating.rating,
        uncertainty: r.rating.uncertainty,
        lists: r.rating.lists as u32,
    }
}

/// A bot account as the public sees it.
pub(crate) fn bot(b: BotDetails) -> pb::Bot {
    let name = b.account.name.to_string();
    pb::Bot {
        online: b.online,
        rating: b.rating.map(|r| pb::LeaderboardEntry {
            name: name.clone(),
            rating: r.rating,
            uncertainty: r.uncertainty,
            lists: r.lists as u32,
        }),
        history: b
            .history
            .into_iter()
            .map(|p| pb::RatingPoint {
                at_ms: p.at_ms,
                table_id: p.table_id,
                rating: p.rating.rating,
                uncertainty: p.rating.uncertainty,
            })
            .collect(),
        recent: b
            .recent
            .into_iter()
            .map(|l| pb::BotList {
                seat: l.seat,
                seeger_fabian: l.seeger_fabian,
                table_id: l.table_id,
                tournament_id: l.tournament_id,
                tournament_name: l.tournament_name,
                seating: l.seating,
            })
            .collect(),
        name,
        disabled: b.account.disabled,
        created_ms: b.account.created_ms,
        max_tables: b.account.max_tables,
    }
}
