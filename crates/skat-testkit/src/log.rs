//! What a test's own process logs, captured: a `tracing` writer that keeps every line in
//! memory, for tests that assert on the log (no card named, an illegal bid reported, an
//! old name pair warned about).

use std::io::Write;
use std::sync::{Arc, Mutex};

/// The lines written so far (clones share them); hand `writer()` to a `tracing`
/// subscriber's `with_writer`.
#[derive(Debug, Clone, Default)]
pub struct CapturedLog(Arc<Mutex<Vec<u8>>>);

impl CapturedLog {
    /// A writer maker for `tracing_subscriber::fmt().with_writer(...)`.
    pub fn writer(&self) -> impl Fn() -> CapturedLog + Send + Sync + 'static {
        let me = self.clone();
        move || me.clone()
    }

    /// Everything written so far, as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(|p| p.into_inner())).into_owned()
    }
}

impl Write for CapturedLog {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
