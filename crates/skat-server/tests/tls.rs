//! TLS on the gRPC port, with certificates from a CA made at run time: clients that trust
//! the CA play, a plain-text connection is closed at once, mutual TLS refuses a client
//! without a certificate from the client CA, and a rotated certificate is taken up by new
//! connections while a seat on an old connection plays its list to the end.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{TestServer, config};
use rcgen::{BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair};
use skat_engine::random::RandomPlayer;
use skat_proto::convert;
use skat_proto::pb::{self, event::Kind, watch_table_response::Kind as WatchKind};
use skat_sdk::{SeatClient, ServerAddress};
use skat_server::{ServerConfig, TlsFiles};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_stream::StreamExt;

/// A CA that signs certificates into a folder.
struct Ca {
    issuer: Issuer<'static, KeyPair>,
    dir: PathBuf,
}

impl Ca {
    fn new(dir: &Path, name: &str) -> Ca {
        std::fs::create_dir_all(dir).unwrap();
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.distinguished_name.push(DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let cert = params.self_signed(&key).unwrap();
        std::fs::write(dir.join(format!("{name}.pem")), cert.pem()).unwrap();
        Ca { issuer: Issuer::new(params, key), dir: dir.to_path_buf() }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// A leaf certificate and key, written (key first) to `{base}.pem`, `{base}-key.pem`.
    fn issue(&self, base: &str, names: &[&str], client: bool) -> (PathBuf, PathBuf) {
        let key = KeyPair::generate().unwrap();
        let mut params =
            CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>()).unwrap();
        params.distinguished_name.push(DnType::CommonName, base);
        params.extended_key_usages = vec![if client {
            ExtendedKeyUsagePurpose::ClientAuth
        } else {
            ExtendedKeyUsagePurpose::ServerAuth
        }];
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        let (cert_file, key_file) =
            (self.file(&format!("{base}.pem")), self.file(&format!("{base}-key.pem")));
        std::fs::write(&key_file, key.serialize_pem()).unwrap();
        std::fs::write(&cert_file, cert.pem()).unwrap();
        (cert_file, key_file)
    }
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("skat-tls-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

async fn tls_server(cert: PathBuf, key: PathBuf, client_ca: Option<PathBuf>) -> TestServer {
    TestServer::start(ServerConfig {
        tls: Some(TlsFiles { cert, key, client_ca, reload_every: Duration::from_millis(100) }),
        ..config()
    })
    .await
}

fn https(server: &TestServer, ca: &Path) -> ServerAddress {
    ServerAddress::new(&format!("https://localhost:{}", server.server.addr.port()))
        .with_ca_file(Some(ca.into()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_trusts_the_ca_plays_and_plain_text_is_closed_at_once() {
    let dir = temp_dir("basic");
    let ca = Ca::new(&dir, "ca");
    let (cert, key) = ca.issue("server", &["localhost", "127.0.0.1"], false);
    let server = tls_server(cert, key, None).await;
    let address = https(&server, &ca.file("ca.pem"));

    let mut client = address.connect().await.expect("TLS with the test CA");
    let table =
        client.create_table(pb::CreateTableRequest { seats: 3, deals: 1, ..Default::default() }).await;
    let table = table.expect("a call over TLS").into_inner().table_id;
    let (seat, _) = SeatClient::join(&address, &table, "tls", None).await.expect("join over TLS");
    assert!(!seat.token().is_empty());

    // The same server by its IP address (the certificate names it too).
    let by_ip = ServerAddress::new(&format!("https://127.0.0.1:{}", server.server.addr.port()))
        .with_ca_file(Some(ca.file("ca.pem")));
    by_ip.connect().await.expect("the IP address is in the certificate");

    // A client that does not trust the CA stops in the handshake, with a reason.
    let untrusted = ServerAddress::new(&format!("https://localhost:{}", server.server.addr.port()));
    let e = untrusted.connect().await.expect_err("an unknown CA").to_string();
    assert!(e.contains("certificate"), "{e}");

    // Plain text to the TLS port: HTTP/2's preface is not a TLS record; the server
    // answers with at most an alert and closes the connection at once.
    let mut raw = tokio::net::TcpStream::connect(server.server.addr).await.unwrap();
    raw.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").await.unwrap();
    let mut buf = [0u8; 256];
    let mut read = 0;
    let closed = tokio::time::timeout(Duration::from_secs(2), async {
        loop {
            match raw.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => read += n,
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "a plain-text connection is closed at once");
    assert!(read < 16, "nothing but a TLS alert is sent back ({read} bytes)");

    // And the tonic client in plain text gets an error, not an answer.
    let plain = ServerAddress::new(&format!("http://127.0.0.1:{}", server.server.addr.port()));
    let refused = match plain.connect().await {
        Err(_) => true,
        Ok(mut c) => c.list_tables(pb::ListTablesRequest::default()).await.is_err(),
    };
    assert!(refused, "plain text gets no answer from a TLS port");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mutual_tls_refuses_a_client_without_a_certificate_from_the_client_ca() {
    let dir = temp_dir("mutual");
    let ca = Ca::new(&dir, "ca");
    let other = Ca::new(&dir.join("other"), "other");
    let (cert, key) = ca.issue("server", &["localhost"], false);
    let (client_cert, client_key) = ca.issue("client", &[], true);
    let (stranger_cert, stranger_key) = other.issue("stranger", &[], true);
    let server = tls_server(cert, key, Some(ca.file("ca.pem"))).await;
    let address = https(&server, &ca.file("ca.pem"));

    let call = |a: ServerAddress| async move {
        let mut c = a.connect().await?;
        c.list_tables(pb::ListTablesRequest::default()).await.map_err(skat_sdk::SdkError::from)?;
        Ok::<_, skat_sdk::SdkError>(())
    };
    call(address.clone().with_client_identity(Some((client_cert, client_key))))
        .await
        .expect("a certificate from the client CA is let in");
    assert!(call(address.clone()).await.is_err(), "no client certificate: refused");
    assert!(
        call(address.with_client_identity(Some((stranger_cert, stranger_key)))).await.is_err(),
        "a certificate from another CA: refused"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Plays a seat with random legal actions from its stream; pauses (without acting) once
/// `pause_after` deals have ended, until `resume` fires. Returns the deals it saw end.
async fn random_seat(
    mut seat: SeatClient,
    seed: u64,
    pause_after: Option<(u32, tokio::sync::oneshot::Sender<()>, tokio::sync::oneshot::Receiver<()>)>,
) -> u32 {
    let mut player = RandomPlayer::new(seed);
    let mut stream = seat.watch(Some(0)).await.expect("watch");
    let mut ended = 0;
    let mut pause = pause_after;
    while let Some(msg) = stream.next().await {
        let Some(WatchKind::Event(event)) = msg.expect("the stream goes on").kind else { continue };
        match &event.kind {
            Some(Kind::DealEnded(_)) => {
                ended += 1;
                if pause.as_ref().is_some_and(|(after, _, _)| *after == ended) {
                    let (_, paused, resume) = pause.take().unwrap();
                    let _ = paused.send(());
                    let _ = resume.await;
                }
            }
            Some(Kind::MatchEnded(_)) => return ended,
            _ => {}
        }
        let Some(legal) = event.legal.as_ref() else { continue };
        let legal = convert::legal_from(legal).unwrap();
        let Some(action) = player.choose_from(&legal) else { continue };
        match seat.act(action, Some(event.seq)).await {
            Ok(_) => {}
            Err(s) if s.code() == tonic::Code::Aborted => {}
            Err(s) => panic!("refused: {s:?}"),
        }
    }
    panic!("the stream ended before the list did");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_certificate_serves_new_connections_while_a_seat_plays_on_its_old_one() {
    let dir = temp_dir("rotate");
    let ca = Ca::new(&dir, "ca");
    let next_ca = Ca::new(&dir.join("next"), "next");
    let (cert, key) = ca.issue("server", &["localhost"], false);
    let server = tls_server(cert.clone(), key.clone(), None).await;
    let old = https(&server, &ca.file("ca.pem"));
    let new = https(&server, &next_ca.file("next.pem"));

    let mut client = old.connect().await.unwrap();
    let table = client
        .create_table(pb::CreateTableRequest { seats: 3, deals: 6, seed: Some(5), ..Default::default() })
        .await
        .unwrap()
        .into_inner()
        .table_id;
    let mut seats = Vec::new();
    for i in 0..3 {
        seats.push(SeatClient::join(&old, &table, &format!("p{i}"), Some(i)).await.unwrap().0);
    }
    // Seat 0 stops acting after the second deal, so the rotation lands mid-list.
    let (paused_tx, paused) = tokio::sync::oneshot::channel();
    let (resume, resume_rx) = tokio::sync::oneshot::channel();
    let mut seats = seats.into_iter();
    let p0 = tokio::spawn(random_seat(seats.next().unwrap(), 1, Some((2, paused_tx, resume_rx))));
    let others: Vec<_> =
        seats.enumerate().map(|(i, s)| tokio::spawn(random_seat(s, 2 + i as u64, None))).collect();
    tokio::time::timeout(Duration::from_secs(30), paused).await.expect("two deals played").unwrap();

    // cert-manager's rotation: a new key and certificate (here from another CA, so that
    // a client can tell which one it was shown) written over the old files.
    let (next_cert, next_key) = next_ca.issue("server", &["localhost"], false);
    std::fs::copy(&next_key, &key).unwrap();
    std::fs::copy(&next_cert, &cert).unwrap();
    let reloaded = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if server.server.metrics.render().contains("skat_tls_reloads_total{result=\"ok\"} 1") {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(reloaded.is_ok(), "the reload is counted:\n{}", server.server.metrics.render());
    new.connect().await.expect("a new connection is shown the new certificate");
    assert!(old.connect().await.is_err(), "and no longer the old one");

    // The seats' connections were made before the rotation: the list plays to its end.
    resume.send(()).unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(60), p0).await.expect("the list ends").unwrap();
    assert_eq!(ended, 6, "every deal of the list was played on the old connection");
    for o in others {
        assert_eq!(o.await.unwrap(), 6);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every `skat_*` metric the alert rules (deploy/prometheus/skat-rules.yaml) use exists:
/// a typo in a rule would never fire.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_metric_the_alert_rules_use_exists() {
    let dir = temp_dir("rules");
    let ca = Ca::new(&dir, "ca");
    let (cert, key) = ca.issue("server", &["localhost"], false);
    let server = tls_server(cert.clone(), key.clone(), None).await;
    // A call (the per-method families), a rotation (the reload counter).
    let mut client = https(&server, &ca.file("ca.pem")).connect().await.unwrap();
    client.list_tables(pb::ListTablesRequest::default()).await.unwrap();
    let (next_cert, next_key) = ca.issue("next", &["localhost"], false);
    std::fs::copy(&next_key, &key).unwrap();
    std::fs::copy(&next_cert, &cert).unwrap();
    let rendered = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let r = server.server.metrics.render();
            if r.contains("skat_tls_reloads_total") {
                return r;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .unwrap();
    let rules = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../deploy/prometheus/skat-rules.yaml"
    ))
    .unwrap();
    let mut used: Vec<&str> = rules
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with("skat_") && w.len() > "skat_".len())
        .collect();
    used.sort_unstable();
    used.dedup();
    assert!(used.len() >= 6, "{used:?}");
    for name in used {
        let base =
            ["_total", "_bucket", "_sum", "_count"].iter().fold(name, |n, s| n.strip_suffix(s).unwrap_or(n));
        assert!(
            rendered.contains(&format!("# TYPE {base} ")),
            "{name} is in the rules but not in /metrics:\n{rendered}"
        );
        assert!(rendered.contains(name), "{name} is in the rules but not in /metrics:\n{rendered}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
