//! A podman sandbox's output, capped at its source: the bot's stdout and stderr are one
//! pipe the runner holds (podman's `passthrough` log driver hands the container the
//! pipe itself: no conmon copying lines, no log file), and the runner reads it at most
//! [`RATE`] bytes a second, keeping the last [`MAX_LOG`].
//!
//! | rule | why |
//! |---|---|
//! | the runner reads at most [`RATE`] bytes a second | a bot that floods its output fills the pipe and waits in its own `write`: the flood costs its own CPU time, in its own quota, and the host a bounded share of a core (measured in docs/BENCHMARKS.md) |
//! | the last [`MAX_LOG`] bytes are kept, in memory; nothing is written to disk | the author reads the end of the output; a flood fills no disk |
//! | the pipe is read until it closes (the bot and podman's monitor let go of it) | nothing the bot wrote before it exited is lost |
//!
//! podman's own words when `podman run` fails come through the same pipe (its stderr is
//! the container's): [`last_line`] reads them.

use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::AsyncReadExt as _;
use tokio::task::JoinHandle;

use crate::spec::MAX_LOG;

/// Bytes of output read per second, at most.
pub const RATE: usize = 256 * 1024;

/// Bytes read at once.
const CHUNK: usize = 16 * 1024;

/// What was read so far.
#[derive(Debug, Default)]
struct Kept {
    bytes: Vec<u8>,
    dropped: bool,
}

/// A sandbox's output as it is read.
#[derive(Debug)]
pub struct Output {
    kept: Arc<Mutex<Kept>>,
    reader: JoinHandle<()>,
}

impl Output {
    /// A pipe for a sandbox's stdout and stderr: its write end (to hand to podman as
    /// both), and the output read from it.
    pub fn pipe() -> std::io::Result<(Output, std::io::PipeWriter)> {
        let (reader, writer) = std::io::pipe()?;
        let receiver = tokio::net::unix::pipe::Receiver::from_owned_fd(OwnedFd::from(reader))?;
        let kept = Arc::new(Mutex::new(Kept::default()));
        let task = tokio::spawn(read(receiver, Arc::clone(&kept)));
        Ok((Output { kept, reader: task }, writer))
    }

    /// The output once the sandbox ended: read until the pipe closes (at most `within`),
    /// the last [`MAX_LOG`] bytes and whether older output was dropped.
    pub async fn finish(mut self, within: Duration) -> (Vec<u8>, bool) {
        if tokio::time::timeout(within, &mut self.reader).await.is_err() {
            self.reader.abort();
        }
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        (std::mem::take(&mut kept.bytes), kept.dropped)
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// The last non-empty line of `bytes` (podman's error when `podman run` failed), without
/// its `Error: ` prefix, at most 400 characters.
pub fn last_line(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let line = text.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    line.trim_start_matches("Error: ").chars().take(400).collect()
}

/// Reads the pipe at most [`RATE`] bytes a second until it closes.
async fn read(mut pipe: tokio::net::unix::pipe::Receiver, kept: Arc<Mutex<Kept>>) {
    let mut buf = vec![0u8; CHUNK];
    let began = Instant::now();
    let mut total: usize = 0;
    loop {
        let n = match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        total += n;
        {
            let mut k = kept.lock().unwrap_or_else(|p| p.into_inner());
            k.bytes.extend_from_slice(&buf[..n]);
            if k.bytes.len() > MAX_LOG {
                let cut = k.bytes.len() - MAX_LOG;
                k.bytes.drain(..cut);
                k.dropped = true;
            }
        }
        // Ahead of the rate: wait until it is caught up (the bot's writes wait meanwhile).
        let due = Duration::from_secs_f64(total as f64 / RATE as f64);
        if let Some(ahead) = due.checked_sub(began.elapsed()) {
            tokio::time::sleep(ahead).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    #[tokio::test]
    async fn output_is_read_at_the_rate_and_kept_to_its_last_bytes() {
        let (output, mut writer) = Output::pipe().unwrap();
        let began = Instant::now();
        let wrote = tokio::task::spawn_blocking(move || {
            let line = vec![b'x'; 1023];
            let mut n = 0usize;
            // 1.5 MiB: the reader keeps up at RATE, so this takes about six seconds.
            for _ in 0..1536 {
                if writer.write_all(&line).and_then(|()| writer.write_all(b"\n")).is_err() {
                    break;
                }
                n += 1024;
            }
            n
        })
        .await
        .unwrap();
        let took = began.elapsed();
        assert_eq!(wrote, 1536 * 1024);
        assert!(took >= Duration::from_secs(4), "the writer waited for the reader: {took:?}");
        let (bytes, dropped) = output.finish(Duration::from_secs(10)).await;
        assert_eq!(bytes.len(), MAX_LOG);
        assert!(dropped);
    }
}
