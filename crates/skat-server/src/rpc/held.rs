//! A connection with what it holds while it is open: a client's connection permit, a
//! count in a gauge, one of a sandbox door's connections. Reads and writes go to the
//! stream; whatever is held is given back when the connection drops. Written once for
//! TCP (`limits.rs`), the local Unix socket (`unix.rs`) and sandboxes' doors
//! (`sandbox/`).

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tonic::transport::server::{Connected, TcpConnectInfo};

/// What a connection holds. `open` false ends it: its next read sees the end of the
/// stream, so the HTTP/2 connection closes (a sandbox door that closed).
pub(crate) trait Holding: Send + Unpin + 'static {
    /// Whether the connection may go on.
    fn open(&self) -> bool {
        true
    }
}

impl Holding for () {}

/// A stream and its holdings, with the addresses the service sees.
#[derive(Debug)]
pub(crate) struct Held<S, H> {
    stream: S,
    holds: H,
    info: TcpConnectInfo,
}

impl<S, H> Held<S, H> {
    /// `stream` holding `holds`, seen by the service as coming from `info`.
    pub(crate) fn new(stream: S, holds: H, info: TcpConnectInfo) -> Held<S, H> {
        Held { stream, holds, info }
    }
}

impl<S: Send + Sync + Unpin + 'static, H: Holding + Sync> Connected for Held<S, H> {
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.info.clone()
    }
}

impl<S: AsyncRead + Unpin, H: Holding> AsyncRead for Held<S, H> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if !self.holds.open() {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin, H: Holding> AsyncWrite for Held<S, H> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}
