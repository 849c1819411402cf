//! The Python package `skat_engine` (native part, `skat_engine._native`): the engine's
//! rules for training agents. Thin on purpose: every rule, encoding and check lives in
//! `skat-engine` and `skat-env` (tested in Rust); this crate turns their types into
//! Python's and their errors into exceptions. No panic reaches Python: ids, seeds and
//! records are checked and refused with the engine's reason.
//!
//! | Python | here |
//! |---|---|
//! | `Table` (a list of deals at 3 or 4 seats) | [`table`] |
//! | `Batch` (many deals per call, numpy arrays) | [`batch`] |
//! | `replay_iss`, `examples_from_iss`, constants | [`records`] |

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

mod batch;
mod records;
mod table;

create_exception!(_native, RuleError, PyValueError, "The rules refuse this action (the engine's reason).");
create_exception!(_native, IssError, PyValueError, "An ISS record that cannot be read or replayed.");

/// The engine's refusal as a Python exception.
pub(crate) fn refused(e: impl std::fmt::Display) -> PyErr {
    RuleError::new_err(e.to_string())
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("RuleError", m.py().get_type::<RuleError>())?;
    m.add("IssError", m.py().get_type::<IssError>())?;
    m.add_class::<table::Table>()?;
    m.add_class::<batch::Batch>()?;
    records::register(m)?;
    Ok(())
}
