//! The environment's promises, checked over thousands of random deals: the observation
//! holds exactly what the seat knows (equal to the encoding of the seat's folded
//! `SeatView`, each card section equal to the view's cards) and never a hidden card; the
//! mask is exactly the engine's legal actions; a refused id changes nothing; the batch's
//! rewards are the engine's scores; records give examples the rules accept.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use skat_engine::matches::Seat;
use skat_engine::{CardSet, Position, SeatView, View};
use skat_env::actions::{self, N_ACTIONS};
use skat_env::observation::{self, OBS_LEN, named_cards, section_cards};
use skat_env::{Batch, EnvMatch, MAX_LEGAL, Outputs, examples};

fn obs(view: &View, pending: Option<skat_engine::Card>) -> Vec<f32> {
    let mut out = vec![0.0; OBS_LEN];
    observation::encode(view, pending, &mut out);
    out
}

/// The card sections say what the view says, relative to the observer.
fn check_sections(o: &[f32], view: &View, pending: Option<skat_engine::Card>) {
    let me = view.viewer.unwrap_or(Position::Forehand);
    let pend = pending.map(CardSet::single).unwrap_or_default();
    assert_eq!(section_cards(o, "hand", 0), view.hand - pend);
    assert_eq!(section_cards(o, "skat", 0), view.skat);
    assert_eq!(section_cards(o, "discards", 0), view.discards | pend);
    assert_eq!(section_cards(o, "open_hand", 0), view.open_hand.unwrap_or_default());
    for p in Position::ALL {
        let r = (p.index() + 3 - me.index()) % 3;
        let mut played = CardSet::EMPTY;
        for t in &view.tricks {
            let mut q = t.leader;
            for c in t.cards {
                if q == p {
                    played.insert(c);
                }
                q = q.next();
            }
        }
        let in_trick: CardSet = view
            .current_trick
            .iter()
            .flat_map(|t| t.plays())
            .filter(|(q, _)| *q == p)
            .map(|(_, c)| c)
            .collect();
        assert_eq!(section_cards(o, "played", r), played | in_trick);
        assert_eq!(section_cards(o, "trick", r), in_trick);
    }
}

#[test]
fn observations_are_the_seat_views_and_hide_what_the_rules_hide() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut steps = 0;
    for (seats, lists) in [(3u8, 300u64), (4, 200)] {
        for seed in 0..lists {
            let mut m = EnvMatch::new(seats, 4, seed).expect("a list");
            let viewers: Vec<Option<Seat>> = Seat::all(seats).map(Some).chain([None]).collect();
            let mut folds: Vec<SeatView> = viewers.iter().map(|v| SeatView::new(*v)).collect();
            let start = m.inner().deal_started_event();
            for f in &mut folds {
                f.apply(&start.seen_by(f.seat));
            }
            while let Some(seat) = m.to_move() {
                for f in &folds {
                    let (view, pending) = m.view(f.seat);
                    let o = obs(&view, pending);
                    // The fold of the events the seat was shown encodes the same.
                    assert_eq!(o, obs(&f.view, pending), "seat {:?}", f.seat);
                    check_sections(&o, &view, pending);
                    let deal = m.inner().deal();
                    let p = f.seat.and_then(|s| m.inner().position_of(s));
                    let allowed = deal.visible_cards(p) | played(&view);
                    assert!(
                        allowed.contains_all(named_cards(&o)),
                        "hidden card in {:?}'s observation",
                        f.seat
                    );
                }
                let ids = m.legal_ids(seat);
                assert!(!ids.is_empty() && ids.len() <= MAX_LEGAL);
                // The mask is the engine's legal actions, and everything else is refused
                // without changing anything.
                let before = format!("{:?}", m.view(Some(seat)));
                let bad = (0..N_ACTIONS as i64).find(|id| !ids.contains(&(*id as u16)));
                if let Some(bad) = bad {
                    assert!(m.clone().step(bad).is_err(), "id {bad} should be refused");
                    let mut probe = m.clone();
                    let _ = probe.step(bad);
                    assert_eq!(format!("{:?}", probe.view(Some(seat))), before);
                }
                let id = ids[(rng.next_u32() as usize) % ids.len()];
                m.step(i64::from(id)).expect("a legal id");
                for f in &mut folds {
                    for e in m.last_events() {
                        f.apply(&e.seen_by(f.seat));
                    }
                }
                steps += 1;
            }
        }
    }
    assert!(steps > 50_000, "{steps} steps");
}

fn played(view: &View) -> CardSet {
    let mut s: CardSet = view.tricks.iter().flat_map(|t| t.cards).collect();
    if let Some(t) = &view.current_trick {
        s |= t.card_set();
    }
    s
}

#[test]
fn the_batch_plays_by_the_rules_and_scores_like_the_engine() {
    let n = 64;
    let mut b = Batch::new(n, 11);
    let (mut to_move, mut mask, mut ids, mut count, mut rewards, mut done) = (
        vec![0i8; n],
        vec![0u8; n * N_ACTIONS],
        vec![0i16; n * MAX_LEGAL],
        vec![0u8; n],
        vec![0f32; n * 3],
        vec![0u8; n],
    );
    macro_rules! out {
        () => {
            Outputs {
                to_move: &mut to_move,
                mask: &mut mask,
                legal_ids: &mut ids,
                legal_count: &mut count,
                rewards: &mut rewards,
                done: &mut done,
            }
        };
    }
    b.reset(out!()).expect("shapes");
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut obs = vec![0f32; n * OBS_LEN];
    let mut ended = 0;
    while ended < 3000 {
        // A refused id anywhere changes nothing anywhere.
        let legal_now: Vec<i64> = (0..n).map(|i| i64::from(ids[i * MAX_LEGAL])).collect();
        let mut wrong = legal_now.clone();
        let k = (rng.next_u32() as usize) % n;
        wrong[k] =
            (0..N_ACTIONS as i64).find(|id| mask[k * N_ACTIONS + *id as usize] == 0).expect("an illegal id");
        let snapshot = format!("{:?}", b.deals().iter().map(|d| d.deal().clone()).collect::<Vec<_>>());
        let err = b.step(&wrong, out!()).expect_err("refused");
        assert!(err.to_string().starts_with(&format!("deal {k}:")), "{err}");
        assert_eq!(snapshot, format!("{:?}", b.deals().iter().map(|d| d.deal().clone()).collect::<Vec<_>>()));
        // A random legal id per deal; a deal about to end is scored as the engine scores it.
        let chosen: Vec<i64> = (0..n)
            .map(|i| {
                let c = count[i] as usize;
                assert!(c > 0);
                assert!(ids[i * MAX_LEGAL + c..(i + 1) * MAX_LEGAL].iter().all(|x| *x == -1));
                for id in &ids[i * MAX_LEGAL..i * MAX_LEGAL + c] {
                    assert_eq!(mask[i * N_ACTIONS + *id as usize], 1);
                }
                // Exactly the engine's legal actions (the batch takes a short cut in play).
                let d = &b.deals()[i];
                let p = d.to_move().expect("a deal in progress");
                assert_eq!(to_move[i] as usize, p.index());
                let mut full = vec![0u8; N_ACTIONS];
                assert_eq!(actions::write_mask(&d.legal(p), d.pending_discard(), &mut full), c);
                assert_eq!(&mask[i * N_ACTIONS..(i + 1) * N_ACTIONS], &full[..]);
                i64::from(ids[i * MAX_LEGAL + (rng.next_u32() as usize) % c])
            })
            .collect();
        let expected: Vec<Option<[i32; 3]>> = b
            .deals()
            .iter()
            .zip(&chosen)
            .map(|(d, id)| {
                let mut d = d.clone();
                d.step(*id).expect("legal").map(|o| o.seeger_fabian(3).0)
            })
            .collect();
        b.step(&chosen, out!()).expect("legal ids");
        for i in 0..n {
            assert_eq!(done[i] == 1, expected[i].is_some());
            if let Some(sf) = expected[i] {
                assert_eq!(&rewards[3 * i..3 * i + 3], &sf.map(|v| v as f32));
                ended += 1;
            }
        }
        b.observe(&mut obs).expect("shape");
        for (d, row) in b.deals().iter().zip(obs.chunks_exact(OBS_LEN)) {
            let (view, pending) = d.view(d.to_move());
            check_sections(row, &view, pending);
            assert!((d.deal().visible_cards(d.to_move()) | played(&view)).contains_all(named_cards(row)));
        }
    }
    assert!(b.deals_finished() >= 3000);
    assert!(b.step(&[0], out!()).is_err(), "one id per deal");
}

#[test]
fn iss_records_give_examples_the_rules_accept() {
    let text = include_str!("../../skat-engine/tests/data/records.sgf");
    let mut total = 0;
    for line in text.lines().filter(|l| l.starts_with('(')) {
        let Ok(examples) = examples::from_iss(line) else { continue };
        assert!(!examples.is_empty());
        for e in &examples {
            assert_eq!(e.observation.len(), OBS_LEN);
            assert_eq!(
                e.mask[usize::from(e.action)],
                1,
                "the chosen id is legal: {}",
                actions::name(i64::from(e.action)).unwrap_or_default()
            );
            // The player's own hand holds the card it plays.
            if e.action < 32 {
                let hand = section_cards(&e.observation, "hand", 0);
                assert!(hand.iter().any(|c| u16::from(c.index()) == e.action));
            }
        }
        total += examples.len();
    }
    assert!(total > 36 * 30, "{total} examples");
}
