//! TLS on the gRPC and web ports (rustls with the ring provider; no OpenSSL).
//!
//! | rule | why |
//! |---|---|
//! | HTTP/2 is negotiated by ALPN: `h2` on the gRPC port, `h2` or `http/1.1` on the web port | gRPC needs HTTP/2; browsers may speak either |
//! | the certificate and key (and the client CA) are read again when their files change, checked every `reload_every`; a change that does not load keeps the old ones and is logged | cert-manager rotates certificates in place; a bad rotation must not take the server down |
//! | a new certificate applies to new connections; open connections keep theirs | nothing is dropped by a rotation |
//! | with `--tls-client-ca`, a client without a certificate that CA signed is refused in the handshake | mutual TLS for operators who want it |
//! | handshakes run beside each other, each at most 10 s, at most 256 at once (more connections wait in the kernel's backlog) | a slow or silent client cannot stall the accept loop or hold the server |
//! | a plain-text connection to a TLS port fails its handshake and is closed at once | no secret is ever read in plain text |

use std::io;
use std::path::Path;
use std::pin::Pin;
use std::sync::{Arc, RwLock};
use std::task::{Context, Poll};
use std::time::{Duration, SystemTime};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{Semaphore, mpsc, watch};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;
use tokio_stream::{Stream, StreamExt};
use tonic::transport::server::{Connected, TcpConnectInfo};

use super::limits::Connection;
use crate::config::TlsFiles;
use crate::metrics::Metrics;

/// A handshake's longest time.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Handshakes in flight at once.
const MAX_HANDSHAKES: usize = 256;

/// ALPN for the gRPC port.
pub(crate) const ALPN_GRPC: &[&[u8]] = &[b"h2"];
/// ALPN for the web port.
pub(crate) const ALPN_WEB: &[&[u8]] = &[b"h2", b"http/1.1"];

/// Why the TLS files could not be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TlsError {
    /// A file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: io::Error,
    },
    /// A file holds no usable PEM of the kind needed.
    #[error("{path} holds no {what} in PEM form")]
    Pem {
        /// The file.
        path: String,
        /// What was looked for.
        what: &'static str,
    },
    /// rustls refused the certificate, key or CA.
    #[error("the certificate, key or client CA does not work: {0}")]
    Rustls(#[from] rustls::Error),
    /// The client CA could not be made a verifier.
    #[error("the client CA does not work: {0}")]
    Verifier(String),
}

fn read(path: &Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|source| TlsError::Read { path: path.display().to_string(), source })
}

fn certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let pem = read(path)?;
    let certs: Vec<_> = CertificateDer::pem_slice_iter(&pem).filter_map(Result::ok).collect();
    if certs.is_empty() {
        return Err(TlsError::Pem { path: path.display().to_string(), what: "certificate" });
    }
    Ok(certs)
}

/// A rustls server configuration from the files, with this ALPN.
fn load(files: &TlsFiles, alpn: &[&[u8]]) -> Result<rustls::ServerConfig, TlsError> {
    let chain = certificates(&files.cert)?;
    let key = PrivateKeyDer::from_pem_slice(&read(&files.key)?)
        .map_err(|_| TlsError::Pem { path: files.key.display().to_string(), what: "private key" })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ServerConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()?;
    let builder = match &files.client_ca {
        None => builder.with_no_client_auth(),
        Some(ca) => {
            let mut roots = rustls::RootCertStore::empty();
            for cert in certificates(ca)? {
                roots.add(cert)?;
            }
            let verifier =
                rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                    .build()
                    .map_err(|e| TlsError::Verifier(e.to_string()))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let mut config = builder.with_single_cert(chain, key)?;
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    Ok(config)
}

/// What the files looked like when last read: a change in any of them means a reload.
fn stamp(files: &TlsFiles) -> Vec<Option<(SystemTime, u64)>> {
    [Some(&files.cert), Some(&files.key), files.client_ca.as_ref()]
        .into_iter()
        .flatten()
        .map(|p| std::fs::metadata(p).ok().and_then(|m| Some((m.modified().ok()?, m.len()))))
        .collect()
}

/// TLS for one port: the configuration new connections get, replaced when the files change.
#[derive(Debug)]
pub(crate) struct Tls {
    current: RwLock<Arc<rustls::ServerConfig>>,
}

impl Tls {
    /// Loads the files (a start fails when they do not work) and reloads them from then
    /// on, until `stop`.
    pub(crate) fn start(
        files: &TlsFiles,
        alpn: &'static [&'static [u8]],
        metrics: &Metrics,
        mut stop: watch::Receiver<bool>,
    ) -> Result<Arc<Tls>, TlsError> {
        let tls = Arc::new(Tls { current: RwLock::new(Arc::new(load(files, alpn)?)) });
        let (files, weak, metrics) = (files.clone(), Arc::downgrade(&tls), metrics.clone());
        tokio::spawn(async move {
            let mut seen = stamp(&files);
            loop {
                tokio::select! {
                    _ = tokio::time::sleep(files.reload_every) => {}
                    _ = stop.wait_for(|s| *s) => return,
                }
                let now = stamp(&files);
                if now == seen {
                    continue;
                }
                let Some(tls) = weak.upgrade() else { return };
                match load(&files, alpn) {
                    Ok(config) => {
                        *tls.current.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(config);
                        seen = now;
                        metrics.tls_reloads.get_or_create(&vec![("result", "ok".to_string())]).inc();
                        tracing::info!(cert = %files.cert.display(), "TLS certificate reloaded: new connections use it");
                    }
                    Err(e) => {
                        // Try again at the next look: a rotation may still be writing the files.
                        metrics.tls_reloads.get_or_create(&vec![("result", "failed".to_string())]).inc();
                        tracing::warn!(error = %e, "the changed TLS files do not load: keeping the current certificate");
                    }
                }
            }
        });
        Ok(tls)
    }

    fn acceptor(&self) -> TlsAcceptor {
        TlsAcceptor::from(Arc::clone(&self.current.read().unwrap_or_else(|p| p.into_inner())))
    }
}

/// A connection as the server serves it: plain, or TLS over it.
#[derive(Debug)]
pub(crate) enum Transport {
    /// Plain text (the server has no TLS).
    Plain(Connection),
    /// TLS.
    Tls(Box<TlsStream<Connection>>),
}

/// The connections the server serves: `tcp`'s, each through a TLS handshake when `tls`
/// is set (see the module header). Ends when the server stops taking connections.
pub(crate) fn incoming<S>(mut tcp: S, tls: Option<Arc<Tls>>) -> impl Stream<Item = io::Result<Transport>>
where
    S: Stream<Item = io::Result<Connection>> + Send + Unpin + 'static,
{
    let (tx, rx) = mpsc::channel::<io::Result<Transport>>(64);
    tokio::spawn(async move {
        let handshakes = Arc::new(Semaphore::new(MAX_HANDSHAKES));
        loop {
            let next = tokio::select! {
                next = tcp.next() => next,
                _ = tx.closed() => return,
            };
            let Some(accepted) = next else { return };
            let connection = match accepted {
                Ok(c) => c,
                Err(e) => {
                    if tx.send(Err(e)).await.is_err() {
                        return;
                    }
                    continue;
                }
            };
            let Some(tls) = &tls else {
                if tx.send(Ok(Transport::Plain(connection))).await.is_err() {
                    return;
                }
                continue;
            };
            // Waits for a handshake slot: the next connections stay in the kernel's backlog.
            let Ok(slot) = Arc::clone(&handshakes).acquire_owned().await else { return };
            let (acceptor, tx) = (tls.acceptor(), tx.clone());
            tokio::spawn(async move {
                let _slot = slot;
                match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(connection)).await {
                    Ok(Ok(stream)) => {
                        let _ = tx.send(Ok(Transport::Tls(Box::new(stream)))).await;
                    }
                    Ok(Err(e)) => tracing::debug!(error = %e, "TLS handshake failed: connection closed"),
                    Err(_) => tracing::debug!("TLS handshake timed out: connection closed"),
                }
            });
        }
    });
    tokio_stream::wrappers::ReceiverStream::new(rx)
}

impl Connected for Transport {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        match self {
            Transport::Plain(c) => c.connect_info(),
            Transport::Tls(s) => s.get_ref().0.connect_info(),
        }
    }
}

impl AsyncRead for Transport {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Transport::Plain(c) => Pin::new(c).poll_read(cx, buf),
            Transport::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Transport {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Transport::Plain(c) => Pin::new(c).poll_write(cx, buf),
            Transport::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Transport::Plain(c) => Pin::new(c).poll_flush(cx),
            Transport::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Transport::Plain(c) => Pin::new(c).poll_shutdown(cx),
            Transport::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Transport::Plain(c) => Pin::new(c).poll_write_vectored(cx, bufs),
            Transport::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        }
    }
    fn is_write_vectored(&self) -> bool {
        match self {
            Transport::Plain(c) => c.is_write_vectored(),
            Transport::Tls(s) => s.is_write_vectored(),
        }
    }
}
