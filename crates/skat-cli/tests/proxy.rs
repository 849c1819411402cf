//! `skat serve` behind a real reverse proxy: Debian's nginx with deploy/nginx/skat.conf
//! (only ports, certificate paths and upstreams replaced) ends TLS and passes gRPC on to
//! a plain-text `skat serve --trusted-proxies 127.0.0.1/32`. Clients come from two
//! loopback addresses (127.0.0.2, 127.0.0.3): each gets its own per-address limits, the
//! server's log names each, a header a client forges changes nothing (through the proxy
//! or straight to the server), and streams past the per-address limit on one connection
//! through the proxy are refused with a status, the rest served.
//!
//! Needs `nginx` (scripts/test-all installs it; SKAT_REQUIRE_NGINX=1 makes its absence
//! a failure instead of a skip).

mod common;

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{Kill, reserve_port, serve, skat};
use skat_proto::convert;
use skat_proto::pb::{self, ErrorReason, skat_service_client::SkatServiceClient, watch_table_response::Kind};
use skat_sdk::ServerAddress;
use tokio_stream::StreamExt;
use tonic::transport::Channel;

fn nginx_binary() -> Option<PathBuf> {
    ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// The repository's nginx file for this test: ports, certificates and upstreams replaced,
/// inside a minimal main configuration that keeps everything in `dir`.
fn nginx_conf(dir: &Path, listen: u16, web_listen: u16, grpc: u16, web: u16) -> PathBuf {
    let replace = [
        ("/etc/ssl/skat/fullchain.pem", dir.join("server.pem").display().to_string()),
        ("/etc/ssl/skat/privkey.pem", dir.join("server-key.pem").display().to_string()),
        ("127.0.0.1:50051", format!("127.0.0.1:{grpc}")),
        ("127.0.0.1:8080", format!("127.0.0.1:{web}")),
    ];
    site_conf(dir, "skat.conf", "nginx.conf", (listen, web_listen), &replace)
}

/// `deploy/nginx/<file>` with its two servers' `listen` lines on `listens` and the other
/// replacements made, as `dir/<out>`.
fn site_conf(dir: &Path, file: &str, out: &str, listens: (u16, u16), replace: &[(&str, String)]) -> PathBuf {
    let template =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/nginx").join(file))
            .unwrap();
    let mut seen = 0;
    let site: String = template
        .lines()
        .map(|line| {
            if line.trim() == "listen 443 ssl http2;" {
                seen += 1;
                let port = if seen == 1 { listens.0 } else { listens.1 };
                format!("    listen 127.0.0.1:{port} ssl http2;")
            } else {
                replace.iter().fold(line.to_string(), |l, (from, to)| l.replace(from, to))
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(seen, 2, "deploy/nginx/{file} has its two servers");
    let d = dir.display();
    let main = format!(
        "daemon off;\nmaster_process off;\npid {d}/{out}.pid;\nerror_log {d}/{out}-error.log warn;\n\
         events {{ worker_connections 1024; }}\n\
         http {{\n  access_log {d}/{out}-access.log;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n\
         fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n{site}\n}}\n"
    );
    let path = dir.join(out);
    std::fs::write(&path, main).unwrap();
    path
}

/// nginx on `conf`, stopped when dropped.
fn start_nginx(nginx: &Path, conf: &Path, dir: &Path) -> Kill {
    Kill(
        Command::new(nginx)
            .arg("-c")
            .arg(conf)
            .arg("-p")
            .arg(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

/// A client from `from` (a loopback address of its own) to `address`.
async fn client_from(address: &ServerAddress, from: &str) -> SkatServiceClient<Channel> {
    let ip: IpAddr = from.parse().unwrap();
    for _ in 0..200 {
        if let Ok(channel) = address.endpoint().unwrap().local_address(Some(ip)).connect().await {
            return SkatServiceClient::new(channel);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("nothing at {} from {from}", address.url());
}

fn forged<T>(message: T, header: &'static str, value: &str) -> tonic::Request<T> {
    let mut r = tonic::Request::new(message);
    r.metadata_mut().insert(header, value.parse().unwrap());
    r
}

async fn create(
    c: &mut SkatServiceClient<Channel>,
    request: tonic::Request<pb::CreateTableRequest>,
) -> Result<String, tonic::Status> {
    c.create_table(request).await.map(|r| r.into_inner().table_id)
}

fn table() -> pb::CreateTableRequest {
    pb::CreateTableRequest { seats: 3, deals: 1, ..Default::default() }
}

fn refused_for_limit(r: Result<String, tonic::Status>, what: &str) {
    let s = r.expect_err(what);
    assert_eq!(s.code(), tonic::Code::ResourceExhausted, "{what}: {s:?}");
    assert_eq!(convert::status_reason(&s), Some(ErrorReason::Limit), "{what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_nginx_every_client_is_counted_by_its_own_address() {
    let Some(nginx) = nginx_binary() else {
        assert!(
            std::env::var_os("SKAT_REQUIRE_NGINX").is_none(),
            "SKAT_REQUIRE_NGINX is set but nginx is missing"
        );
        eprintln!("skipped: nginx is not installed");
        return;
    };
    let dir = std::env::temp_dir().join(format!("skat-proxy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = skat().args(["certs", "--out"]).arg(&dir).output().unwrap();
    assert!(out.status.success());
    let server = serve()
        .web()
        .args(["--database", "memory", "--trusted-proxies", "127.0.0.1/32"])
        .args(["--max-tables-per-client", "1", "--max-streams-per-client", "8"])
        .start();
    let (grpc, web) = (server.port(), server.web.expect("the page on").port());
    // nginx's own ports are in its configuration, written before it starts.
    let (listen, web_listen) = (reserve_port(), reserve_port());
    let conf = nginx_conf(&dir, listen, web_listen, grpc, web);
    let _nginx = start_nginx(&nginx, &conf, &dir);
    let proxy =
        ServerAddress::new(&format!("https://localhost:{listen}")).with_ca_file(Some(dir.join("ca.pem")));
    let direct = ServerAddress::new(&format!("http://127.0.0.1:{grpc}"));
    let mut a = client_from(&proxy, "127.0.0.2").await;
    let mut b = client_from(&proxy, "127.0.0.3").await;

    // Through the proxy, each address has its own quota of one table.
    let table_a = create(&mut a, tonic::Request::new(table())).await.expect("A's first table");
    refused_for_limit(create(&mut a, tonic::Request::new(table())).await, "A's second table");
    // A header A forges through the proxy is on the left of the address nginx appends:
    // the server takes the rightmost untrusted one, A's.
    refused_for_limit(create(&mut a, forged(table(), "x-forwarded-for", "203.0.113.7")).await, "A, forging");
    refused_for_limit(
        create(&mut a, forged(table(), "forwarded", "for=203.0.113.8")).await,
        "A, forging RFC 7239",
    );
    create(&mut b, tonic::Request::new(table())).await.expect("B has a quota of its own");

    // Straight to the server from an untrusted peer, the header is ignored: 127.0.0.4
    // claiming to be A (whose quota is used) is counted as itself.
    let mut d = client_from(&direct, "127.0.0.4").await;
    create(&mut d, forged(table(), "x-forwarded-for", "127.0.0.2"))
        .await
        .expect("counted as 127.0.0.4, not as A");
    refused_for_limit(
        create(&mut d, forged(table(), "x-forwarded-for", "127.0.0.9")).await,
        "its own second",
    );

    // The log names the real clients.
    let logged = server.log();
    for who in ["client=127.0.0.2", "client=127.0.0.3", "client=127.0.0.4"] {
        assert!(
            logged.lines().any(|l| l.contains(who) && l.contains("table created")),
            "{who} in the log:\n{logged}"
        );
    }
    assert!(!logged.contains("client=203.0.113"), "a forged address never appears:\n{logged}");

    // Many streams on one connection through the proxy: the per-address limit (8) counts
    // each; the ones past it are refused with a status, every other one hears the next
    // event. (nginx passes a stream's headers on with its first message, so a served
    // stream shows itself by its first event: the join below.) A served stream is held
    // open to the end, so exactly 8 are served whatever the order.
    let mut tasks = Vec::new();
    for _ in 0..12 {
        let (mut c, table) = (a.clone(), table_a.clone());
        tasks.push(tokio::spawn(async move {
            let mut stream = c
                .watch_table(pb::WatchTableRequest { table_id: table, after_seq: Some(0) })
                .await?
                .into_inner();
            while let Some(msg) = stream.next().await {
                if let Some(Kind::Event(pb::Event { kind: Some(pb::event::Kind::SeatJoined(_)), .. })) =
                    msg?.kind
                {
                    return Ok(stream);
                }
            }
            Err(tonic::Status::unknown("the stream ended without the join"))
        }));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut joiner = client_from(&proxy, "127.0.0.5").await;
    joiner
        .join_table(pb::JoinTableRequest {
            table_id: table_a.clone(),
            name: "j".into(),
            ..Default::default()
        })
        .await
        .expect("a seat");
    let mut served = Vec::new();
    let mut refused = Vec::new();
    for t in tasks {
        match tokio::time::timeout(Duration::from_secs(10), t)
            .await
            .expect("every stream is served or refused")
            .unwrap()
        {
            Ok(stream) => served.push(stream),
            Err(s) => refused.push(s),
        }
    }
    assert_eq!((served.len(), refused.len()), (8, 4), "8 streams per address: {refused:?}");
    for s in &refused {
        assert_eq!(s.code(), tonic::Code::ResourceExhausted, "{s:?}");
        assert_eq!(convert::status_reason(s), Some(ErrorReason::Limit));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The gRPC status a call through nginx gets when nothing answers behind it.
fn assert_unavailable(r: Result<String, tonic::Status>, what: &str) {
    let s = r.expect_err(what);
    assert_eq!(s.code(), tonic::Code::Unavailable, "{what}: {s:?}");
    assert!(s.message().contains("retry"), "{what}: nginx's own words, not its HTML page: {s:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_nginx_a_tls_upstream_is_verified_and_a_stopped_server_answers_unavailable() {
    let Some(nginx) = nginx_binary() else {
        assert!(
            std::env::var_os("SKAT_REQUIRE_NGINX").is_none(),
            "SKAT_REQUIRE_NGINX is set but nginx is missing"
        );
        eprintln!("skipped: nginx is not installed");
        return;
    };
    let dir = std::env::temp_dir().join(format!("skat-proxy-tls-{}", std::process::id()));
    let other_ca = dir.join("other");
    let _ = std::fs::remove_dir_all(&dir);
    for out in [&dir, &other_ca] {
        let made = skat().args(["certs", "--out"]).arg(out).args(["--host", "localhost"]).output().unwrap();
        assert!(made.status.success());
    }
    let server =
        serve().web().args(["--database", "memory", "--trusted-proxies", "127.0.0.1/32"]).tls(&dir).start();
    let (grpc, web) = (server.port(), server.web.expect("the page on").port());
    // Two nginx: one trusting skat's CA (deploy/nginx/skat-upstream-tls.conf as shipped),
    // one trusting another CA (a man in the middle's certificate looks like that).
    let mut proxies = Vec::new();
    let mut nginxes = Vec::new();
    for (name, ca) in [("trusting", dir.join("ca.pem")), ("wrong-ca", other_ca.join("ca.pem"))] {
        let (listen, web_listen) = (reserve_port(), reserve_port());
        let replace = [
            ("/etc/ssl/skat/fullchain.pem", dir.join("server.pem").display().to_string()),
            ("/etc/ssl/skat/privkey.pem", dir.join("server-key.pem").display().to_string()),
            ("/etc/ssl/skat/upstream-ca.pem", ca.display().to_string()),
            ("skat.internal", "localhost".to_string()),
            ("10.0.0.5:50051", format!("127.0.0.1:{grpc}")),
            ("10.0.0.5:8080", format!("127.0.0.1:{web}")),
        ];
        let conf = site_conf(
            &dir,
            "skat-upstream-tls.conf",
            &format!("{name}.conf"),
            (listen, web_listen),
            &replace,
        );
        nginxes.push(start_nginx(&nginx, &conf, &dir));
        proxies.push(
            ServerAddress::new(&format!("https://localhost:{listen}")).with_ca_file(Some(dir.join("ca.pem"))),
        );
    }
    let mut trusting = client_from(&proxies[0], "127.0.0.2").await;
    let mut wrong = client_from(&proxies[1], "127.0.0.2").await;
    // Through TLS to skat, its certificate verified: the call goes through.
    let mut served = Err(tonic::Status::unknown("not tried"));
    for _ in 0..100 {
        served = create(&mut trusting, tonic::Request::new(table())).await;
        if served.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    served.expect("a table through nginx and a verified TLS upstream");
    // A certificate from another CA is refused by nginx: the client hears UNAVAILABLE.
    assert_unavailable(create(&mut wrong, tonic::Request::new(table())).await, "an unverified upstream");
    let errors = std::fs::read_to_string(dir.join("wrong-ca.conf-error.log")).unwrap_or_default();
    assert!(
        errors.contains("certificate verify failed") || errors.contains("upstream SSL certificate"),
        "{errors}"
    );
    // skat stops (a restart): a gRPC status, not the HTML 502 page.
    server.kill9();
    assert_unavailable(create(&mut trusting, tonic::Request::new(table())).await, "a stopped server");
    let mut stream =
        trusting.watch_table(pb::WatchTableRequest { table_id: "t".into(), after_seq: Some(0) }).await;
    if let Ok(s) = &mut stream {
        let first = s.get_mut().next().await.expect("a status").expect_err("no event from a stopped server");
        assert_eq!(first.code(), tonic::Code::Unavailable);
    } else {
        assert_eq!(stream.expect_err("a status").code(), tonic::Code::Unavailable);
    }
    drop(nginxes);
    let _ = std::fs::remove_dir_all(&dir);
}
