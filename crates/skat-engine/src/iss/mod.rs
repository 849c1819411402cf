//! International Skat Server game records: reading, replaying through the engine, and
//! writing (see `ISS-FORMAT.md` in the project's shared specs).
//!
//! A replay drives the real [`Deal`] move by move. A move the rules refuse is reported
//! with its index in `MV[...]`, never skipped.

use crate::action::{Action, ForfeitReason, Phase, RuleError};
use crate::bid::Bid;
use crate::card::Card;
use crate::cards::CardSet;
use crate::contract::{Announcement, Contract, GameType};
use crate::deal::Deal;
use crate::dealing::Dealt;
use crate::position::Position;
use crate::record::Move;
use crate::score::Outcome;

mod write;
pub use write::{RecordMeta, write};

/// A record's properties, in the order written.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IssRecord {
    /// `(key, value)` pairs such as `("ID", "541932")`.
    pub properties: Vec<(String, String)>,
}

/// Why a record cannot be read or replayed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IssError {
    /// The text is not `KEY[value]` properties.
    #[error("malformed record: {0}")]
    Syntax(String),
    /// A required property is missing.
    #[error("record has no {0}[...] property")]
    Missing(&'static str),
    /// The deal (`w` and 32 cards) is not a deal.
    #[error("the deal is not 32 distinct cards: {0}")]
    BadDeal(String),
    /// A move cannot be understood.
    #[error("move {index} (`{text}`): {reason}")]
    BadMove {
        /// 0-based index of the move in `MV` (the deal is move 0).
        index: usize,
        /// The move as written.
        text: String,
        /// What is wrong.
        reason: String,
    },
    /// The rules refuse a move.
    #[error("move {index} (`{text}`) is illegal: {error}")]
    Illegal {
        /// 0-based index of the move in `MV`.
        index: usize,
        /// The move as written.
        text: String,
        /// The rule.
        error: RuleError,
    },
    /// The moves stop before the deal is over.
    #[error("the record ends before the deal is over (in the {0} phase)")]
    Unfinished(Phase),
}

impl IssRecord {
    /// Parses one record: `(;GM[Skat]...MV[...]R[...];)`. Surrounding whitespace and the
    /// `(;` `;)` wrapping are optional.
    pub fn parse(text: &str) -> Result<IssRecord, IssError> {
        let mut properties = Vec::new();
        let mut rest = text.trim();
        loop {
            rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '(' || c == ';' || c == ')');
            if rest.is_empty() {
                break;
            }
            let key_len = rest
                .find('[')
                .ok_or_else(|| IssError::Syntax(format!("expected KEY[...] at `{}`", excerpt(rest))))?;
            let key = &rest[..key_len];
            if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric()) {
                return Err(IssError::Syntax(format!("bad property name `{}`", excerpt(key))));
            }
            let after = &rest[key_len + 1..];
            let end = after.find(']').ok_or_else(|| IssError::Syntax(format!("{key}[ is not closed")))?;
            properties.push((key.to_string(), after[..end].to_string()));
            rest = &after[end + 1..];
        }
        if properties.is_empty() {
            return Err(IssError::Syntax("no properties".into()));
        }
        Ok(IssRecord { properties })
    }

    /// The first value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.properties.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// The game id (`ID`), or empty.
    pub fn id(&self) -> &str {
        self.get("ID").unwrap_or("")
    }

    /// The server's result `R[...]`, if present and readable.
    pub fn result(&self) -> Option<IssResult> {
        IssResult::parse(self.get("R")?)
    }
}

fn excerpt(s: &str) -> String {
    s.chars().take(24).collect()
}

/// The server's result field, `R[...]`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IssResult {
    /// `R[passed]`.
    pub passed: bool,
    /// `penalty` instead of win/loss.
    pub penalty: bool,
    /// `d:` declarer seat, −1 for none.
    pub declarer: i8,
    /// `win`.
    pub won: bool,
    /// `v:` signed scoresheet value.
    pub value: i32,
    /// `m:` signed matadors.
    pub matadors: i8,
    /// `overbid` rather than `bidok`.
    pub overbid: bool,
    /// `p:` declarer card points.
    pub points: u8,
    /// `t:` declarer tricks.
    pub tricks: u8,
    /// `s:1`.
    pub schneider: bool,
    /// `z:1`.
    pub schwarz: bool,
    /// `l:` seat that left, −1 none.
    pub left: i8,
    /// `to:` seat that timed out, −1 none.
    pub timeout: i8,
}

impl IssResult {
    /// Parses the content of `R[...]`.
    pub fn parse(text: &str) -> Option<IssResult> {
        let text = text.trim();
        if text == "passed" {
            return Some(IssResult {
                passed: true,
                declarer: -1,
                left: -1,
                timeout: -1,
                ..Default::default()
            });
        }
        let mut r = IssResult { declarer: -1, left: -1, timeout: -1, ..Default::default() };
        for field in text.split_whitespace() {
            match field {
                "win" => r.won = true,
                "loss" => r.won = false,
                "penalty" => r.penalty = true,
                "overbid" => r.overbid = true,
                "bidok" => r.overbid = false,
                _ => {
                    let (k, v) = field.split_once(':')?;
                    match k {
                        "d" => r.declarer = v.parse().ok()?,
                        "v" => r.value = v.parse().ok()?,
                        "m" => r.matadors = v.parse().ok()?,
                        "p" => r.points = v.parse().ok()?,
                        "t" => r.tricks = v.parse().ok()?,
                        "s" => r.schneider = v == "1",
                        "z" => r.schwarz = v == "1",
                        "l" => r.left = v.parse().ok()?,
                        "to" => r.timeout = v.parse().ok()?,
                        _ => {}
                    }
                }
            }
        }
        Some(r)
    }

    /// The same fields computed by our engine from `outcome`, for comparison.
    pub fn from_outcome(outcome: &Outcome) -> IssResult {
        let none = IssResult { declarer: -1, left: -1, timeout: -1, ..Default::default() };
        match outcome {
            Outcome::PassedIn => IssResult { passed: true, ..none },
            Outcome::Penalty(p) => {
                let seat = p.offender.index() as i8;
                let (left, timeout) = match p.reason {
                    ForfeitReason::Left => (seat, -1),
                    ForfeitReason::Timeout => (-1, seat),
                };
                // What the standings charge: the offender as a declarer who lost a game
                // worth the bid. `d:` and `v:` say so, so that a reader that scores `d:`
                // and `v:` like any lost game reproduces the list and Seeger-Fabian.
                IssResult {
                    penalty: true,
                    declarer: seat,
                    value: -2 * i32::from(p.value),
                    left,
                    timeout,
                    ..none
                }
            }
            Outcome::Game(g) => {
                let (left, timeout) = match g.end {
                    crate::DealEnd::Forfeit { position, reason: ForfeitReason::Left } => {
                        (position.index() as i8, -1)
                    }
                    crate::DealEnd::Forfeit { position, reason: ForfeitReason::Timeout } => {
                        (-1, position.index() as i8)
                    }
                    _ => (-1, -1),
                };
                IssResult {
                    declarer: g.declarer.index() as i8,
                    won: g.won,
                    value: g.score(),
                    matadors: g.matadors,
                    overbid: g.overbid,
                    points: g.declarer_points,
                    tricks: g.declarer_tricks,
                    schneider: g.schneider,
                    schwarz: g.schwarz,
                    left,
                    timeout,
                    ..none
                }
            }
        }
    }

    /// Writes the `R[...]` content the way ISS does.
    pub fn to_iss(&self) -> String {
        if self.passed {
            return "passed".into();
        }
        let outcome = if self.penalty {
            "penalty"
        } else if self.won {
            "win"
        } else {
            "loss"
        };
        let mut penalties = [0u8; 3];
        if self.penalty {
            let seat = if self.left >= 0 { self.left } else { self.timeout };
            if let Some(p) = penalties.get_mut(seat.max(0) as usize) {
                *p = 1;
            }
        }
        format!(
            "d:{} {} v:{} m:{} {} p:{} t:{} s:{} z:{} p0:{} p1:{} p2:{} l:{} to:{} r:0",
            self.declarer,
            outcome,
            self.value,
            self.matadors,
            if self.overbid { "overbid" } else { "bidok" },
            self.points,
            self.tricks,
            u8::from(self.schneider),
            u8::from(self.schwarz),
            penalties[0],
            penalties[1],
            penalties[2],
            self.left,
            self.timeout,
        )
    }
}

/// A replayed record: the finished deal and its moves in engine terms.
#[derive(Debug, Clone)]
pub struct Replay {
    /// The deal, finished.
    pub deal: Deal,
    /// The moves as applied.
    pub moves: Vec<Move>,
    /// The result.
    pub outcome: Outcome,
    /// Whether the replay had to complete a claim that the record ends on: older ISS2
    /// records end a claim after one defender's `RE`; the second defender's concession
    /// is then applied (the server ended the game, so the record is the truth).
    pub completed_claim: bool,
}

struct Declaration {
    contract: Contract,
    hand: bool,
    discards: Option<CardSet>,
}

fn parse_declaration(text: &str) -> Option<Declaration> {
    let mut parts = text.split('.');
    let head = parts.next()?;
    let mut chars = head.chars();
    let game = GameType::from_letter(chars.next()?)?;
    let (mut hand, mut schneider, mut schwarz, mut ouvert) = (false, false, false, false);
    for c in chars {
        match c {
            'H' => hand = true,
            'S' => schneider = true,
            'Z' => schwarz = true,
            'O' => ouvert = true,
            _ => return None,
        }
    }
    let announcement = if ouvert {
        Announcement::Ouvert
    } else if schwarz {
        Announcement::Schwarz
    } else if schneider {
        Announcement::Schneider
    } else {
        Announcement::None
    };
    if ouvert && !game.is_null() {
        hand = true;
    }
    let rest: Vec<&str> = parts.collect();
    let discards = match rest.len() {
        0 => None,
        2 => Some(rest.iter().map(|c| c.parse::<Card>()).collect::<Result<CardSet, _>>().ok()?),
        _ => return None,
    };
    Some(Declaration { contract: Contract { game, announcement }, hand, discards })
}

/// Replays a record through the engine.
///
/// # Examples
///
/// A game from the International Skat Server (2016): seat 0 picks the skat up and wins
/// a grand with 65 points; the engine replays every move and scores it as the server did.
///
/// ```
/// use skat_engine::iss::{IssRecord, IssResult, replay};
/// use skat_engine::{GameType, Outcome};
///
/// let text = "(;GM[Skat]PC[ISS2]CO[]SE[5635]ID[110012]DT[2016-08-24/18:14:31/UTC]P0[@H861RbP]P1[xskat:2]P2[xskat]R0[1003.0]R1[719.1]R2[719.1]MV[w C7.CA.C9.S9.D9.HA.D8.H7.S8.HK.DQ.SK.D7.CK.H9.HQ.CJ.HJ.S7.H8.CT.DJ.CQ.SQ.DT.ST.C8.DK.SJ.HT.DA.SA 1 18 0 y 1 p 2 p 0 s w DA.SA 0 G.S8.C7 0 CA 1 CK 2 C8 0 C9 1 SK 2 CT 2 CQ 0 D8 1 DQ 2 DK 0 DA 1 D7 0 D9 1 HQ 2 DT 2 SQ 0 SA 1 S7 0 S9 1 H9 2 ST 2 HT 0 HA 1 H8 0 HK 1 HJ 2 DJ 1 CJ 2 SJ 0 H7 ]R[d:0 win v:120 m:-4 bidok p:65 t:4 s:0 z:0 p0:0 p1:0 p2:0 l:-1 to:-1 r:0] ;)";
/// let record = IssRecord::parse(text).expect("an ISS record");
/// let replayed = replay(&record).expect("every move is legal");
/// let server = IssResult::parse(record.get("R").expect("a result")).expect("the server's result");
/// let Outcome::Game(game) = replayed.outcome else { panic!("a game was played") };
/// assert_eq!(game.contract.game, GameType::Grand);
/// assert_eq!((game.won, i32::from(game.value), game.declarer_points), (server.won, server.value, server.points));
/// ```
pub fn replay(record: &IssRecord) -> Result<Replay, IssError> {
    let mv = record.get("MV").ok_or(IssError::Missing("MV"))?;
    let tokens: Vec<&str> = mv.split_whitespace().collect();
    if !tokens.len().is_multiple_of(2) {
        return Err(IssError::Syntax("MV has an odd number of words (moves are `who action` pairs)".into()));
    }
    let pairs: Vec<(&str, &str)> = tokens.chunks(2).map(|c| (c[0], c[1])).collect();
    let Some(&("w", deal_text)) = pairs.first() else {
        return Err(IssError::Syntax("MV does not start with the deal (`w` and 32 cards)".into()));
    };
    let dealt = parse_deal(deal_text)?;
    let mut r = Replayer { dealt, deal: Deal::new(dealt), moves: Vec::new(), pending: None };
    for (index, &(who, act)) in pairs.iter().enumerate().skip(1) {
        let m = IssMove { index, text: format!("{who} {act}") };
        if r.deal.is_finished() {
            return Err(m.bad("the deal is already over"));
        }
        if who == "w" {
            r.server_move(&m, act)?;
            continue;
        }
        let p = who
            .parse()
            .ok()
            .and_then(Position::from_index)
            .ok_or_else(|| m.bad("seat must be w, 0, 1 or 2"))?;
        r.seat_move(&m, p, act)?;
    }
    let completed_claim = r.complete_claim(pairs.len())?;
    let Replayer { deal, moves, .. } = r;
    let outcome = deal.outcome().ok_or(IssError::Unfinished(deal.phase()))?;
    Ok(Replay { deal, moves, outcome, completed_claim })
}

/// One move of a record: where it is, as written (for errors).
struct IssMove {
    index: usize,
    text: String,
}

impl IssMove {
    fn bad(&self, reason: &str) -> IssError {
        IssError::BadMove { index: self.index, text: self.text.clone(), reason: reason.into() }
    }
}

/// A record's deal being replayed: the engine's deal, the moves so far, and a declaration
/// waiting for its discards (newer records write `0 G` then `0 SK.S7`).
struct Replayer {
    dealt: Dealt,
    deal: Deal,
    moves: Vec<Move>,
    pending: Option<(Position, Contract)>,
}

impl Replayer {
    fn apply(&mut self, m: &IssMove, p: Position, action: Action) -> Result<(), IssError> {
        self.deal.apply(p, action).map_err(|error| IssError::Illegal {
            index: m.index,
            text: m.text.clone(),
            error,
        })?;
        self.moves.push(Move { position: p, action });
        Ok(())
    }

    /// `w TI.1`, `w LE.0` (a forfeit), or the skat shown to the declarer after `s`.
    fn server_move(&mut self, m: &IssMove, act: &str) -> Result<(), IssError> {
        let Some((kind, seat)) = act.split_once('.') else { return Err(m.bad("unknown server move")) };
        let reason = match kind {
            "TI" => ForfeitReason::Timeout,
            "LE" => ForfeitReason::Left,
            _ => {
                let shown: CardSet = act.parse().map_err(|_| m.bad("unknown server move"))?;
                if shown != self.dealt.skat || self.deal.phase() != Phase::Discarding {
                    return Err(m.bad("the skat shown is not the skat dealt"));
                }
                return Ok(());
            }
        };
        let p = seat.parse().ok().and_then(Position::from_index).ok_or_else(|| m.bad("no such seat"))?;
        self.apply(m, p, Action::Forfeit { reason })
    }

    /// A seat's move: a call, a pick-up, a resignation or claim, a bid, a card, a
    /// declaration (with its discards, or waiting for them).
    fn seat_move(&mut self, m: &IssMove, p: Position, act: &str) -> Result<(), IssError> {
        let action = match act {
            "??" => return Ok(()),
            "y" => Action::Hold,
            "p" => Action::Pass,
            "s" => Action::PickUpSkat,
            "RE" => Action::Resign,
            _ if act == "SC" || act.starts_with("SC.") => Action::Claim,
            _ if act.bytes().all(|b| b.is_ascii_digit()) => Action::Bid {
                value: act
                    .parse()
                    .ok()
                    .and_then(Bid::new)
                    .ok_or_else(|| m.bad("not a value on the bid ladder"))?,
            },
            _ => match act.parse::<Card>() {
                Ok(card) => Action::Play { card },
                Err(_) => match self.declaration(m, p, act)? {
                    Some(a) => a,
                    None => return Ok(()),
                },
            },
        };
        self.apply(m, p, action)
    }

    /// A declaration, its discards applied first; `None` while it waits for them.
    fn declaration(&mut self, m: &IssMove, p: Position, act: &str) -> Result<Option<Action>, IssError> {
        if let (Some((p0, contract)), Ok(cards)) = (self.pending, act.parse::<CardSet>()) {
            if p0 != p {
                return Err(m.bad("discards by another seat than the declarer"));
            }
            self.apply(m, p, Action::Discard { cards })?;
            self.pending = None;
            return Ok(Some(Action::Declare { contract }));
        }
        let d = parse_declaration(act).ok_or_else(|| m.bad("not a move"))?;
        match self.deal.phase() {
            Phase::SkatDecision if !d.hand => {
                return Err(m.bad("declaration without hand, but the skat was not picked up"));
            }
            Phase::SkatDecision => self.apply(m, p, Action::PlayHand)?,
            Phase::Discarding if d.hand => return Err(m.bad("hand declared after picking up the skat")),
            Phase::Discarding => match d.discards {
                Some(cards) => self.apply(m, p, Action::Discard { cards })?,
                None => {
                    self.pending = Some((p, d.contract));
                    return Ok(None);
                }
            },
            _ => {}
        }
        Ok(Some(Action::Declare { contract: d.contract }))
    }

    /// A claim one defender accepted (resigned) and the record ends: the other defender's
    /// resignation is implied. Whether it was completed so.
    fn complete_claim(&mut self, index: usize) -> Result<bool, IssError> {
        if self.deal.is_finished() {
            return Ok(false);
        }
        let declarer = self.deal.declarer();
        let resigned = self.deal.resigned();
        let one_defender_resigned = Position::ALL.iter().any(|q| Some(*q) != declarer && resigned[q.index()]);
        let Some(q) = Position::ALL.into_iter().find(|q| Some(*q) != declarer && !resigned[q.index()]) else {
            return Ok(false);
        };
        if !(self.deal.claimed() && one_defender_resigned) {
            return Ok(false);
        }
        self.deal.apply(q, Action::Resign).map_err(|error| IssError::Illegal {
            index,
            text: format!("{} RE (completing the claim)", q.index()),
            error,
        })?;
        self.moves.push(Move { position: q, action: Action::Resign });
        Ok(true)
    }
}

fn parse_deal(text: &str) -> Result<Dealt, IssError> {
    let cards: Vec<Card> = text
        .split('.')
        .map(str::parse)
        .collect::<Result<_, _>>()
        .map_err(|_| IssError::BadDeal("a card code is not valid".into()))?;
    let deck: [Card; 32] =
        cards.try_into().map_err(|v: Vec<Card>| IssError::BadDeal(format!("{} cards", v.len())))?;
    let set = |r: std::ops::Range<usize>| deck[r].iter().copied().collect::<CardSet>();
    Dealt::new([set(0..10), set(10..20), set(20..30)], set(30..32))
        .map_err(|e| IssError::BadDeal(e.to_string()))
}
