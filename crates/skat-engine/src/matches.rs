//! [`Match`]: a list of deals at a table of 3 or 4 seats, the dealer rotating, with
//! plain and Seeger-Fabian scores.
//!
//! Seats are numbered from 0. Deal `k` (from 0) is dealt by seat `(k + n − 1) mod n`, so
//! seat 0 is forehand in the first deal; forehand, middlehand and rearhand follow the
//! dealer clockwise, and at 4 seats the dealer sits the deal out. Deal `k` holds the
//! cards [`Dealt::seeded`]`(seed, k)`.

use serde::{Deserialize, Serialize};

use crate::action::{Action, RuleError};
use crate::cards::CardSet;
use crate::contract::Declaration;
use crate::deal::Deal;
use crate::dealing::Dealt;
use crate::events::{Facts, GameEvent};
use crate::position::Position;
use crate::record::{DealRecord, DealResult, Move};
use crate::score::Outcome;
use crate::view::View;

pub use crate::seat::{Seat, SeatStanding};

/// How a match is set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchConfig {
    /// 3 or 4.
    pub seats: u8,
    /// Number of deals in the list (36 at 3 seats and 48 at 4 are standard).
    pub deals: u32,
    /// The seed every deal's cards follow from.
    pub seed: u64,
}

impl MatchConfig {
    /// The standard list for `seats`: 36 deals at 3, 48 at 4.
    pub const fn standard(seats: u8, seed: u64) -> MatchConfig {
        MatchConfig { seats, deals: if seats == 4 { 48 } else { 36 }, seed }
    }
}

/// Why a match cannot be created or an action not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MatchError {
    /// Only 3 or 4 seats.
    #[error("a table has 3 or 4 seats, not {0}")]
    Seats(u8),
    /// At least one deal.
    #[error("a match needs at least one deal")]
    NoDeals,
    /// No such seat.
    #[error("there is no seat {0} at this table")]
    UnknownSeat(Seat),
    /// The seat deals this hand and sits it out (4 seats).
    #[error("seat {0} is the dealer and sits this deal out")]
    SittingOut(Seat),
    /// Every deal has been played.
    #[error("the match is over")]
    MatchOver,
    /// The rules refuse the action.
    #[error(transparent)]
    Rule(#[from] RuleError),
}

/// What applying an action did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The events it caused, in order: the move, and when it ended the deal, the deal's
    /// end, then the next deal's start or the match's end.
    pub events: Vec<GameEvent>,
    /// The deal that this action ended, with its record (`None` in a match that keeps no
    /// records: [`Match::without_records`]).
    pub finished_deal: Option<DealRecord>,
    /// Whether that was the last deal of the list.
    pub match_over: bool,
}

/// Seeger-Fabian points of one finished deal per seat of a table of `seats` (the dealer
/// sitting out at 4 seats included).
pub fn seeger_fabian_by_seat(record: &DealRecord, seats: u8) -> Vec<i32> {
    record.result().seeger_fabian_by_seat(seats)
}

/// Plain scoresheet values of one finished deal per seat of a table of `seats`.
pub fn plain_by_seat(record: &DealRecord, seats: u8) -> Vec<i32> {
    record.result().plain_by_seat(seats)
}

/// A list of deals.
///
/// # Examples
///
/// A whole list of three seats played by random players, the match naming the seat to
/// move and dealing the next deal when one ends:
///
/// ```
/// use skat_engine::{Match, MatchConfig, random::RandomPlayer};
///
/// let mut list = Match::new(MatchConfig { deals: 6, ..MatchConfig::standard(3, 11) }).expect("3 seats");
/// let mut player = RandomPlayer::new(5);
/// while let Some(seat) = list.seat_to_move() {
///     let position = list.position_of(seat).expect("the seat to move is at the table");
///     let action = player.choose(list.deal(), position);
///     list.apply(seat, action).expect("random players choose legal actions");
/// }
/// assert!(list.is_over());
/// assert_eq!(list.records().len(), 6);
/// assert_eq!(list.standings().len(), 3);
/// ```
#[derive(Debug, Clone)]
pub struct Match {
    config: MatchConfig,
    number: u32,
    deal: Deal,
    /// The deal in progress's moves, kept only with records (a match without them keeps
    /// `made`, their count: 0.8 KiB less a table in play on a server).
    moves: Vec<Move>,
    made: u32,
    records: Vec<DealRecord>,
    /// Whether finished deals' records are kept ([`Match::without_records`]).
    keep_records: bool,
    /// Every finished deal's result (28 bytes a deal: kept with or without records).
    results: Vec<DealResult>,
    standings: Vec<SeatStanding>,
}

impl Match {
    /// Starts a match; the first deal is dealt at once.
    pub fn new(config: MatchConfig) -> Result<Match, MatchError> {
        if !(3..=4).contains(&config.seats) {
            return Err(MatchError::Seats(config.seats));
        }
        if config.deals == 0 {
            return Err(MatchError::NoDeals);
        }
        Ok(Match {
            config,
            number: 0,
            deal: Deal::new(Dealt::seeded(config.seed, 0)),
            moves: Vec::new(),
            made: 0,
            records: Vec::new(),
            keep_records: true,
            results: Vec::new(),
            standings: (0..config.seats)
                .map(|seat| SeatStanding { seat: Seat::new(seat), ..SeatStanding::default() })
                .collect(),
        })
    }

    /// The same match keeping no records of its finished deals, only their results
    /// ([`Match::results`]): for a caller that keeps the actions and replays
    /// them when a record is asked for (a server's table in play holds kilobytes; a
    /// deal's record is about 400 bytes with its moves). Everything else is the same.
    pub fn without_records(mut self) -> Match {
        self.keep_records = false;
        self.records = Vec::new();
        self.moves = Vec::new();
        self
    }

    /// The configuration.
    pub fn config(&self) -> MatchConfig {
        self.config
    }

    /// The number of the current deal (from 0); equals the number of deals when over.
    pub fn deal_number(&self) -> u32 {
        self.number
    }

    /// Whether every deal has been played.
    pub fn is_over(&self) -> bool {
        self.number >= self.config.deals
    }

    /// The dealer of deal `number`.
    pub fn dealer_of(&self, number: u32) -> Seat {
        let n = u32::from(self.config.seats);
        Seat::new(((number + n - 1) % n) as u8)
    }

    /// The seats at forehand, middlehand, rearhand in deal `number`.
    pub fn seats_of(&self, number: u32) -> [Seat; 3] {
        let n = self.config.seats;
        let dealer = self.dealer_of(number);
        [1, 2, 3].map(|k| Seat::new((dealer.number() + k) % n))
    }

    /// Where `seat` sits in the current deal (`None`: sitting out, or no such seat).
    pub fn position_of(&self, seat: Seat) -> Option<Position> {
        let seats = self.seats_of(self.number);
        seats.iter().position(|s| *s == seat).and_then(Position::from_index)
    }

    /// The seat at `position` in the current deal.
    pub fn seat_at(&self, position: Position) -> Seat {
        self.seats_of(self.number)[position.index()]
    }

    /// The deal in progress (after the last deal: the last deal, finished).
    pub fn deal(&self) -> &Deal {
        &self.deal
    }

    /// The moves of the deal in progress (none for a match without records:
    /// [`Match::moves_made`] counts them either way).
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// How many moves the deal in progress has had.
    pub fn moves_made(&self) -> usize {
        self.made as usize
    }

    /// The seat that must act now.
    pub fn seat_to_move(&self) -> Option<Seat> {
        if self.is_over() {
            return None;
        }
        self.deal.to_move().map(|p| self.seat_at(p))
    }

    /// The finished deals (none in a match [`Match::without_records`]).
    pub fn records(&self) -> &[DealRecord] {
        &self.records
    }

    /// The finished deals, taken out of a match that is done with (no copy).
    pub fn into_records(self) -> Vec<DealRecord> {
        self.records
    }

    /// The finished deals' results (kept with or without records).
    pub fn results(&self) -> &[DealResult] {
        &self.results
    }

    /// The last finished deal's result.
    pub fn last_result(&self) -> Option<DealResult> {
        self.results.last().copied()
    }

    /// Totals per seat.
    pub fn standings(&self) -> &[SeatStanding] {
        &self.standings
    }

    /// The current deal as `seat` sees it (`None`: a spectator, or a seat sitting out,
    /// who sees the public view).
    pub fn view(&self, seat: Option<Seat>) -> View {
        self.deal.view(seat.and_then(|s| self.position_of(s)))
    }

    /// The event that dealt the current deal (the first event of a match).
    pub fn deal_started_event(&self) -> GameEvent {
        GameEvent::DealStarted {
            number: self.number,
            dealer: self.dealer_of(self.number),
            seats: self.seats_of(self.number),
            dealt: *self.deal.dealt(),
        }
    }

    /// Applies an action by a seat. When it ends the deal, the deal is recorded, the
    /// scores are updated and the next deal is dealt.
    pub fn apply(&mut self, seat: Seat, action: Action) -> Result<Applied, MatchError> {
        let mut events = Vec::with_capacity(2);
        let (ended, match_over) = self.apply_into(seat, action, &mut events)?;
        let finished_deal = if ended { self.records.last().cloned() } else { None };
        Ok(Applied { events, finished_deal, match_over })
    }

    /// [`Match::apply`], appending the events to `events` instead of a new vector (for
    /// callers that play millions of actions and keep a log anyway); returns whether the
    /// action ended a deal (its record is then [`Match::records`]' last) and whether the
    /// match is over.
    pub fn apply_into(
        &mut self,
        seat: Seat,
        action: Action,
        events: &mut Vec<GameEvent>,
    ) -> Result<(bool, bool), MatchError> {
        if seat.number() >= self.config.seats {
            return Err(MatchError::UnknownSeat(seat));
        }
        if self.is_over() {
            return Err(MatchError::MatchOver);
        }
        let position = self.position_of(seat).ok_or(MatchError::SittingOut(seat))?;
        let tricks_before = self.deal.tricks().len();
        self.deal.apply(position, action)?;
        self.made += 1;
        if self.keep_records {
            self.moves.push(Move { position, action });
        }
        let skat = if action == Action::PickUpSkat { self.deal.dealt().skat } else { CardSet::EMPTY };
        let opened = match action {
            Action::Claim => true,
            Action::Declare { contract } => contract.ouvert(),
            _ => false,
        };
        let open_hand = if opened { self.deal.hand(position) } else { CardSet::EMPTY };
        let facts = self.facts(tricks_before);
        events.push(GameEvent::Moved { number: self.number, seat, position, action, skat, open_hand, facts });
        let Some(outcome) = self.deal.outcome() else {
            return Ok((false, false));
        };
        let record = DealRecord {
            number: self.number,
            seed: Some(self.config.seed),
            seats: self.seats_of(self.number),
            dealer: self.dealer_of(self.number),
            dealt: *self.deal.dealt(),
            // A copy of exactly its length, and the buffer kept for the next deal: one
            // allocation per deal instead of a vector grown from nothing every deal.
            moves: if self.keep_records { self.moves.clone() } else { Vec::new() },
            outcome,
        };
        self.moves.clear();
        self.made = 0;
        self.score(&record);
        events.push(GameEvent::DealEnded {
            number: record.number,
            seats: record.seats,
            outcome,
            dealt: record.dealt,
            discards: self.deal.discards(),
            seeger_fabian: self.seeger_fabian_by_seat(&record),
        });
        self.results.push(record.result());
        if self.keep_records {
            self.records.push(record);
        }
        self.number += 1;
        if self.is_over() {
            events.push(GameEvent::MatchEnded { standings: self.standings.clone() });
        } else {
            self.deal = Deal::new(Dealt::seeded(self.config.seed, self.number as u64));
            events.push(self.deal_started_event());
        }
        Ok((true, self.is_over()))
    }

    /// The deal's public state after a move; `tricks_before` tells whether the move
    /// completed a trick.
    fn facts(&self, tricks_before: usize) -> Facts {
        let deal = &self.deal;
        let trick_winner = (deal.tricks().len() > tricks_before)
            .then(|| deal.tricks().last().zip(deal.contract()).and_then(|(t, c)| t.winner(c.game)))
            .flatten();
        Facts {
            phase: deal.phase(),
            to_move: deal.to_move(),
            declarer: deal.declarer(),
            bid: deal.bid(),
            declaration: deal.contract().map(|contract| Declaration { contract, hand: deal.is_hand_game() }),
            trick_winner,
        }
    }

    /// Seeger-Fabian points of one finished deal, per seat of this table.
    pub fn seeger_fabian_by_seat(&self, record: &DealRecord) -> Vec<i32> {
        seeger_fabian_by_seat(record, self.config.seats)
    }

    fn score(&mut self, record: &DealRecord) {
        let plain = plain_by_seat(record, self.config.seats);
        let sf = seeger_fabian_by_seat(record, self.config.seats);
        for st in self.standings.iter_mut() {
            st.plain += plain[st.seat.index()];
            st.seeger_fabian += sf[st.seat.index()];
        }
        match record.outcome {
            Outcome::PassedIn => {}
            Outcome::Game(g) => {
                let declarer = record.seats[g.declarer.index()];
                let st = &mut self.standings[declarer.index()];
                st.declared += 1;
                st.declared_value += g.value as u32;
                if g.won {
                    st.won += 1;
                } else {
                    st.lost += 1;
                    for st in self.standings.iter_mut().filter(|s| s.seat != declarer) {
                        st.defended_won += 1;
                    }
                }
            }
            Outcome::Penalty(p) => self.standings[record.seats[p.offender.index()].index()].penalties += 1,
        }
    }
}
