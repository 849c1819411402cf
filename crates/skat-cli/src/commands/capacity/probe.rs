//! What the server says about itself: its Prometheus exposition, read from its metrics
//! port (an HTTP/1.0 GET of `/metrics`; the exposition needs nothing more) or, for the
//! embedded server, rendered in process. From two readings: the action latency's p99 as
//! the server timed it (the histogram's buckets between them), and its memory, file
//! descriptors, tasks, database size and counters at the second.

use std::collections::HashMap;
use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The RPCs a bot acts with.
const ACTIONS: [&str; 5] = ["Bid", "TakeSkat", "Discard", "Declare", "PlayCard"];

/// Where the exposition comes from.
pub enum Source {
    Embedded(skat_server::Metrics),
    Http(SocketAddr),
}

/// One reading.
#[derive(Debug, Clone, Default)]
pub struct Reading {
    /// Cumulative action-latency buckets: (upper bound in seconds, count).
    buckets: Vec<(f64, f64)>,
    pub gauges: HashMap<String, f64>,
}

impl Source {
    pub async fn read(&self) -> Result<Reading, Box<dyn std::error::Error + Send + Sync>> {
        let text = match self {
            Source::Embedded(m) => m.render(),
            // A metrics port that accepts and never answers must not stop the run.
            Source::Http(addr) => {
                tokio::time::timeout(std::time::Duration::from_secs(10), async {
                    let mut s = tokio::net::TcpStream::connect(addr).await?;
                    s.write_all(b"GET /metrics HTTP/1.0\r\nHost: metrics\r\n\r\n").await?;
                    let mut body = String::new();
                    s.read_to_string(&mut body).await?;
                    Ok::<_, std::io::Error>(
                        body.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default(),
                    )
                })
                .await??
            }
        };
        Ok(parse(&text))
    }
}

fn labels(s: &str) -> HashMap<&str, &str> {
    s.split(',')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.trim(), v.trim().trim_matches('"')))
        .collect()
}

/// The action buckets summed over methods, and every unlabelled gauge or counter.
pub fn parse(text: &str) -> Reading {
    let mut buckets: HashMap<String, f64> = HashMap::new();
    let mut gauges = HashMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((name_labels, value)) = line.rsplit_once(' ') else { continue };
        let Ok(value) = value.parse::<f64>() else { continue };
        match name_labels.split_once('{') {
            Some(("skat_rpc_duration_seconds_bucket", rest)) => {
                let l = labels(rest.trim_end_matches('}'));
                if l.get("method").is_some_and(|m| ACTIONS.contains(m))
                    && let Some(le) = l.get("le")
                {
                    *buckets.entry((*le).to_string()).or_default() += value;
                }
            }
            Some(_) => {}
            None => {
                gauges.insert(name_labels.to_string(), value);
            }
        }
    }
    let mut buckets: Vec<(f64, f64)> = buckets
        .into_iter()
        .map(|(le, n)| (if le == "+Inf" { f64::INFINITY } else { le.parse().unwrap_or(f64::INFINITY) }, n))
        .collect();
    buckets.sort_by(|a, b| a.0.total_cmp(&b.0));
    Reading { buckets, gauges }
}

impl Reading {
    pub fn gauge(&self, name: &str) -> f64 {
        self.gauges.get(name).copied().unwrap_or(0.0)
    }

    /// The `p` quantile of the action latencies observed between `earlier` and this
    /// reading, in seconds, interpolated within its bucket (the buckets double from 50 µs,
    /// so this is an estimate within a factor of 2 at worst); `None` without actions.
    pub fn quantile_since(&self, earlier: &Reading, p: f64) -> Option<f64> {
        let count = |r: &Reading, le: f64| r.buckets.iter().find(|b| b.0 == le).map_or(0.0, |b| b.1);
        let delta: Vec<(f64, f64)> =
            self.buckets.iter().map(|(le, n)| (*le, n - count(earlier, *le))).collect();
        let total = delta.last()?.1;
        if total <= 0.0 {
            return None;
        }
        let want = p * total;
        let mut below = (0.0, 0.0);
        for (le, n) in delta {
            if n >= want {
                if le.is_infinite() {
                    return Some(below.0);
                }
                let share = if n > below.1 { (want - below.1) / (n - below.1) } else { 1.0 };
                return Some(below.0 + share * (le - below.0));
            }
            below = (le, n);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_servers_quantile_comes_from_the_bucket_deltas() {
        let before = parse(
            "skat_rpc_duration_seconds_bucket{le=\"0.001\",method=\"Bid\"} 10\nskat_rpc_duration_seconds_bucket{le=\"0.002\",method=\"Bid\"} 10\nskat_rpc_duration_seconds_bucket{le=\"+Inf\",method=\"Bid\"} 10\nskat_tables 3\n",
        );
        let after = parse(
            "skat_rpc_duration_seconds_bucket{le=\"0.001\",method=\"Bid\"} 60\nskat_rpc_duration_seconds_bucket{le=\"0.002\",method=\"Bid\"} 110\nskat_rpc_duration_seconds_bucket{le=\"+Inf\",method=\"Bid\"} 110\nskat_rpc_duration_seconds_bucket{le=\"+Inf\",method=\"Health\"} 999\nskat_tables 5\n",
        );
        // 100 new actions: 50 below 1 ms, 50 between 1 and 2 ms; p99 is near 2 ms.
        let p99 = after.quantile_since(&before, 0.99).expect("actions");
        assert!((p99 - 0.00198).abs() < 1e-6, "{p99}");
        assert_eq!(after.quantile_since(&after, 0.99), None);
        assert_eq!(after.gauge("skat_tables"), 5.0);
    }
}
