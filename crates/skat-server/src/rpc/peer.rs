//! Who the client is: the peer's IP address, or, when the peer is a proxy the operator
//! trusts (`--trusted-proxies`), the address the proxy names in `x-forwarded-for` (or,
//! with `--forwarded-header forwarded`, in `forwarded`).
//!
//! | rule | why |
//! |---|---|
//! | headers are read only from trusted peers; from anyone else they are ignored | a client cannot pick the address its limits are counted against |
//! | one header only, the one the operator names; the other is ignored even from a trusted proxy | a proxy appends to the header it knows and passes the other on as the client wrote it: reading both would let a client choose |
//! | the client is the rightmost address in the chain that is not itself a trusted proxy | each proxy appends the address it saw; everything left of the last trusted hop may be forged |
//! | the edge layer works it out once per request ([`ClientAddr`] in the request's extensions); limits and log lines read it from there | one answer per request, everywhere |
//! | a trusted proxy's own connections count against no per-address connection limit | it carries many clients, each counted by its own address |

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use ipnet::IpNet;

use crate::config::ForwardedHeader;

/// The client's address as the server counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ClientAddr(pub(crate) IpAddr);

/// Whether `ip` is a trusted proxy.
pub(crate) fn trusted(ip: IpAddr, proxies: &[IpNet]) -> bool {
    proxies.iter().any(|net| net.contains(&ip))
}

/// One `for=` value of a `forwarded` header, or one entry of `x-forwarded-for`: an IP
/// address, maybe quoted, bracketed or with a port (`"[2001:db8::1]:4711"`, `1.2.3.4:80`).
fn address(text: &str) -> Option<IpAddr> {
    let t = text.trim().trim_matches('"');
    if let Ok(ip) = t.parse::<IpAddr>() {
        return Some(ip);
    }
    if let Ok(sock) = t.parse::<SocketAddr>() {
        return Some(sock.ip());
    }
    t.strip_prefix('[').and_then(|r| r.split(']').next()).and_then(|ip| ip.parse().ok())
}

/// The addresses a `forwarded` header names, nearest hop last.
fn forwarded_chain(f: &str) -> Vec<IpAddr> {
    f.split(',')
        .filter_map(|hop| {
            hop.split(';').find_map(|pair| {
                let (k, v) = pair.split_once('=')?;
                k.trim().eq_ignore_ascii_case("for").then(|| address(v)).flatten()
            })
        })
        .collect()
}

/// The client of a request from `peer` with these headers (see the module header).
pub(crate) fn client(
    peer: Option<SocketAddr>,
    headers: &http::HeaderMap,
    proxies: &[IpNet],
    header: ForwardedHeader,
) -> IpAddr {
    let Some(peer) = peer.map(|p| p.ip()) else { return IpAddr::V4(Ipv4Addr::UNSPECIFIED) };
    if !trusted(peer, proxies) {
        return peer;
    }
    // Every value of the header, in order (a proxy may add a second line).
    let values = |name: &str| -> String {
        headers.get_all(name).iter().filter_map(|v| v.to_str().ok()).collect::<Vec<_>>().join(",")
    };
    let hops: Vec<IpAddr> = match header {
        ForwardedHeader::XForwardedFor => values("x-forwarded-for").split(',').filter_map(address).collect(),
        ForwardedHeader::Forwarded => forwarded_chain(&values("forwarded")),
    };
    // From the nearest hop back: the first that is not a trusted proxy is the client.
    hops.iter().rev().copied().find(|ip| !trusted(*ip, proxies)).or(hops.first().copied()).unwrap_or(peer)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> http::HeaderMap {
        let mut h = http::HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, v.parse().unwrap());
        }
        h
    }

    #[test]
    fn only_a_trusted_peer_may_name_the_client() {
        let proxies: Vec<IpNet> = vec!["10.0.0.0/8".parse().unwrap(), "127.0.0.1/32".parse().unwrap()];
        let from = |ip: &str| Some(SocketAddr::new(ip.parse().unwrap(), 40000));
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let xff = ForwardedHeader::XForwardedFor;
        let h = headers(&[("x-forwarded-for", "203.0.113.9")]);
        // An untrusted peer's header changes nothing.
        assert_eq!(client(from("198.51.100.7"), &h, &proxies, xff), ip("198.51.100.7"));
        // A trusted one names the client.
        assert_eq!(client(from("10.1.2.3"), &h, &proxies, xff), ip("203.0.113.9"));
        // A forged entry left of the real one is skipped: the rightmost untrusted hop counts.
        let chain = headers(&[("x-forwarded-for", "1.2.3.4, 203.0.113.9, 10.9.9.9")]);
        assert_eq!(client(from("127.0.0.1"), &chain, &proxies, xff), ip("203.0.113.9"));
        // Two header lines are one list.
        let lines = headers(&[("x-forwarded-for", "1.2.3.4"), ("x-forwarded-for", "203.0.113.9")]);
        assert_eq!(client(from("10.0.0.1"), &lines, &proxies, xff), ip("203.0.113.9"));
        // RFC 7239, quoted, bracketed and with ports, when the operator names it; then
        // x-forwarded-for is ignored, and the other way round.
        let both = headers(&[
            ("forwarded", "for=192.0.2.60;proto=https, for=\"[2001:db8::7]:4711\""),
            ("x-forwarded-for", "198.51.100.1"),
        ]);
        assert_eq!(client(from("10.0.0.1"), &both, &proxies, ForwardedHeader::Forwarded), ip("2001:db8::7"));
        assert_eq!(client(from("10.0.0.1"), &both, &proxies, xff), ip("198.51.100.1"));
        let forged = headers(&[("forwarded", "for=192.0.2.1")]);
        assert_eq!(
            client(from("10.0.0.1"), &forged, &proxies, xff),
            ip("10.0.0.1"),
            "a client's own Forwarded"
        );
        // No header, or rubbish: the proxy itself.
        assert_eq!(client(from("10.0.0.1"), &headers(&[]), &proxies, xff), ip("10.0.0.1"));
        let bad = headers(&[("x-forwarded-for", "not an address")]);
        assert_eq!(client(from("10.0.0.1"), &bad, &proxies, xff), ip("10.0.0.1"));
        // Nothing is trusted without the flag.
        assert_eq!(client(from("10.1.2.3"), &h, &[], xff), ip("10.1.2.3"));
    }
}
