//! A real server on loopback for the SDK's tests (the test harness's, `skat-testkit`).

use skat_testkit::InProcess;

/// A server in this process on an ephemeral port without clocks; it stops when dropped.
pub async fn server() -> InProcess {
    InProcess::start(InProcess::fast()).await
}
