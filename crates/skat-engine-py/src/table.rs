//! `Table`: a list of deals at 3 or 4 seats, stepped by action id, with views, masks,
//! observations, scores and ISS records. What the PettingZoo environment steps.

use numpy::PyArray1;
use pyo3::prelude::*;
use skat_engine::iss::{self, RecordMeta};
use skat_engine::matches::Seat;
use skat_env::EnvMatch;
use skat_env::actions::N_ACTIONS;
use skat_env::observation::{self, OBS_LEN};

use crate::refused;

/// A list of deals at 3 or 4 seats dealt from a seed, played by action ids.
#[pyclass(module = "skat_engine._native")]
pub struct Table {
    inner: EnvMatch,
}

impl Table {
    fn seat(&self, seat: i64) -> PyResult<Seat> {
        let seats = self.inner.inner().config().seats;
        match u8::try_from(seat) {
            Ok(s) if s < seats => Ok(Seat::new(s)),
            _ => Err(refused(format!("there is no seat {seat} at this table (seats 0 to {})", seats - 1))),
        }
    }
}

#[pymethods]
impl Table {
    /// `seats` (3 or 4), `deals` in the list, the `seed` every deal's cards follow from
    /// (the server deals the same cards from the same seed).
    #[new]
    #[pyo3(signature = (seats = 3, deals = 1, seed = 0))]
    fn new(seats: u8, deals: u32, seed: u64) -> PyResult<Table> {
        Ok(Table { inner: EnvMatch::new(seats, deals, seed).map_err(refused)? })
    }

    /// The number of seats.
    #[getter]
    fn seats(&self) -> u8 {
        self.inner.inner().config().seats
    }

    /// The seat that must act, or None once the list is over.
    #[getter]
    fn to_move(&self) -> Option<u8> {
        self.inner.to_move().map(|s| s.index() as u8)
    }

    /// The current deal's number, from 0.
    #[getter]
    fn deal_number(&self) -> u32 {
        self.inner.inner().deal_number()
    }

    /// Whether every deal has been played.
    #[getter]
    fn is_over(&self) -> bool {
        self.inner.is_over()
    }

    /// The phase of the current deal: bidding, skat_decision, discarding, declaring,
    /// playing, finished.
    #[getter]
    fn phase(&self) -> String {
        self.inner.phase().to_string().replace(' ', "_")
    }

    /// The seat's position in the current deal (0 forehand, 1 middlehand, 2 rearhand), or
    /// None for the dealer sitting out at four seats.
    fn position_of(&self, seat: i64) -> PyResult<Option<u8>> {
        Ok(self.inner.inner().position_of(self.seat(seat)?).map(|p| p.index() as u8))
    }

    /// The action ids `seat` may choose now (empty when it is not its turn).
    fn legal_ids(&self, seat: i64) -> PyResult<Vec<u16>> {
        Ok(self.inner.legal_ids(self.seat(seat)?))
    }

    /// The action mask of `seat`: uint8, N_ACTIONS long, 1 where legal.
    fn mask<'py>(&self, py: Python<'py>, seat: i64) -> PyResult<Bound<'py, PyArray1<u8>>> {
        let mut mask = vec![0u8; N_ACTIONS];
        for id in self.inner.legal_ids(self.seat(seat)?) {
            mask[usize::from(id)] = 1;
        }
        Ok(PyArray1::from_vec(py, mask))
    }

    /// What `seat` knows, encoded: float32, OBS_LEN long (see LAYOUT). `None` observes as
    /// a spectator.
    #[pyo3(signature = (seat = None))]
    fn observe<'py>(&self, py: Python<'py>, seat: Option<i64>) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let seat = seat.map(|s| self.seat(s)).transpose()?;
        let (view, pending) = self.inner.view(seat);
        let mut out = vec![0.0; OBS_LEN];
        observation::encode(&view, pending, &mut out);
        Ok(PyArray1::from_vec(py, out))
    }

    /// The engine's view of the current deal for `seat` (None: a spectator) as JSON: the
    /// same fields as the Rust `View` (hand, auction, skat when allowed, tricks, legal...).
    #[pyo3(signature = (seat = None))]
    fn view_json(&self, seat: Option<i64>) -> PyResult<String> {
        let seat = seat.map(|s| self.seat(s)).transpose()?;
        serde_json::to_string(&self.inner.view(seat).0).map_err(refused)
    }

    /// The first card put away while the declarer is half-way through a discard (its
    /// index), else None.
    #[getter]
    fn pending_discard(&self) -> Option<u8> {
        self.inner.pending_discard().map(|c| c.index())
    }

    /// The seat to move takes action `id`. Returns None, or, when the id ended a deal, the
    /// Seeger-Fabian points of that deal per seat (a list as long as the table has seats).
    /// Raises RuleError (nothing changes) when the id is not legal.
    fn step(&mut self, id: i64) -> PyResult<Option<Vec<i32>>> {
        let seats = self.inner.inner().config().seats;
        match self.inner.step(id) {
            Ok(Some(record)) => Ok(Some(skat_engine::matches::seeger_fabian_by_seat(&record, seats))),
            Ok(None) => Ok(None),
            Err(e) => Err(refused(e)),
        }
    }

    /// The finished deals as ISS records (the `SGF` text the International Skat Server
    /// writes), players named `seat0`...
    fn iss_records(&self) -> Vec<String> {
        let m = self.inner.inner();
        m.records()
            .iter()
            .map(|r| {
                let players = r.seats.map(|s| format!("seat{}", s.index()));
                let meta = RecordMeta {
                    server: "skat_engine".into(),
                    id: format!("{}", r.number + 1),
                    date: String::new(),
                    players,
                    series: String::new(),
                };
                iss::write(r, &meta)
            })
            .collect()
    }

    /// The standings so far, one tuple per seat: (seat, plain total, Seeger-Fabian total,
    /// games declared, won, lost).
    fn standings(&self) -> Vec<(u8, i32, i32, u32, u32, u32)> {
        self.inner
            .inner()
            .standings()
            .iter()
            .map(|s| (s.seat.index() as u8, s.plain, s.seeger_fabian, s.declared, s.won, s.lost))
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "Table(seats={}, deal {} of {}, {})",
            self.seats(),
            self.deal_number() + 1,
            self.inner.inner().config().deals,
            self.phase()
        )
    }
}
