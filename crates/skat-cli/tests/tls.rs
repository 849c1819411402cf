//! The `skat` commands over TLS, with a CA made at run time by `skat certs`: a server
//! with a certificate, a table created and played by three `skat bot`s over `https://`,
//! clear errors for plain text against TLS and for a CA not trusted, a rotation by
//! running `skat certs` again, and no token sent in plain text to another machine.

mod common;

use std::io::Read;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use common::{Kill, ServerProcess, serve, skat};

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn certs(dir: &Path) {
    let out = skat().args(["certs", "--out"]).arg(dir).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
}

/// A TLS server with the certificate `skat certs` made in `dir`, the page on.
fn serve_tls(dir: &Path) -> ServerProcess {
    serve().web().args(["--database", "memory", "--tls-reload", "200ms"]).tls(dir).start()
}

/// `skat table list` against `server` until it answers (or 10 s).
fn wait_for(server: &str, ca: &Path) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        let out = skat().args(["table", "list", "--server", server, "--ca-file"]).arg(ca).output().unwrap();
        if out.status.success() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("no TLS server at {server}");
}

#[test]
fn bots_play_over_tls_and_the_errors_say_what_to_do() {
    let dir = std::env::temp_dir().join(format!("skat-cli-tls-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    certs(&dir);
    let running = serve_tls(&dir);
    let port = running.port();
    let server = format!("https://localhost:{port}");
    let ca = dir.join("ca.pem");
    wait_for(&server, &ca);

    let out = skat()
        .args(["table", "create", "--server", &server, "--deals", "3", "--seed", "4", "--ca-file"])
        .arg(&ca)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let printed = text(&out);
    let table =
        printed.lines().find_map(|l| l.strip_prefix("table ")).expect("a table id").trim().to_string();
    assert!(
        printed.contains(&format!("server {server}")),
        "the seats are told the https:// address:\n{printed}"
    );

    // The CA from the environment, as a bot's operator would set it.
    let bots: Vec<Kill> = (0..3)
        .map(|i| {
            Kill(
                skat()
                    .args(["bot", "--server", &server, "--table", &table, "--name", &format!("tls{i}")])
                    .env("SKAT_CA_FILE", &ca)
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap(),
            )
        })
        .collect();
    for mut bot in bots {
        let mut said = String::new();
        bot.0.stdout.take().unwrap().read_to_string(&mut said).unwrap();
        bot.0.stderr.take().unwrap().read_to_string(&mut said).unwrap();
        assert!(bot.0.wait().unwrap().success(), "{said}");
        assert!(said.contains("finished"), "{said}");
    }

    // Plain text to the TLS port: an error that says to use https://.
    let out =
        skat().args(["table", "list", "--server", &format!("http://127.0.0.1:{port}")]).output().unwrap();
    assert!(!out.status.success());
    assert!(text(&out).contains("use https://"), "{}", text(&out));
    // No CA: the certificate is not trusted, and the error says how to trust it.
    let out =
        skat().args(["table", "list", "--server", &server]).env_remove("SKAT_CA_FILE").output().unwrap();
    assert!(!out.status.success());
    assert!(text(&out).contains("--ca-file"), "{}", text(&out));

    // A rotation: `skat certs` again keeps the CA and replaces the server's certificate;
    // clients that trust the CA do not notice.
    let before = std::fs::read(dir.join("server.pem")).unwrap();
    certs(&dir);
    assert_ne!(before, std::fs::read(dir.join("server.pem")).unwrap());
    std::thread::sleep(Duration::from_millis(600));
    let out = skat().args(["table", "list", "--server", &server, "--ca-file"]).arg(&ca).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains(&table), "{}", text(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_token_goes_in_plain_text_to_another_machine() {
    // 192.0.2.1 is TEST-NET-1: never this machine. Every command refuses before it
    // connects, so each answers at once.
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["bot", "--server", "192.0.2.1:50051", "--table", "t"], "seat token"),
        (vec!["bot", "--server", "http://192.0.2.1:50051", "--bot-token", "b"], "bot token"),
        (
            vec!["admin", "register-bot", "--server", "192.0.2.1:1", "--admin-token", "a", "--name", "x"],
            "admin token",
        ),
        (vec!["tournament", "list", "--server", "192.0.2.1:1", "--admin-token", "a"], "admin token"),
        (vec!["table", "create", "--server", "192.0.2.1:1", "--create-token", "c"], "create token"),
        (vec!["watch", "t", "--server", "192.0.2.1:1", "--token", "s"], "seat token"),
        (vec!["arena", "--server", "http://192.0.2.1:1", "--no-records"], "seat token"),
    ];
    for (args, what) in cases {
        let start = Instant::now();
        let out = skat().args(&args).env_remove("SKAT_INSECURE").output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        let said = text(&out);
        assert!(said.contains(&format!("refusing to send the {what} in plain text")), "{args:?}: {said}");
        assert!(said.contains("https://") && said.contains("--insecure"), "says how to fix it: {said}");
        assert!(start.elapsed() < Duration::from_secs(5), "{args:?} refused before connecting");
    }
    // With --insecure the command goes ahead (and here finds nothing listening on this
    // machine's unspecified address: a connection error, not a refusal to send).
    let out = skat().args(["bot", "--server", "0.0.0.0:1", "--table", "t", "--insecure"]).output().unwrap();
    assert!(!out.status.success());
    assert!(!text(&out).contains("refusing"), "{}", text(&out));
    assert!(text(&out).contains("cannot connect"), "{}", text(&out));
}

#[test]
fn a_server_with_unusable_certificate_files_does_not_start() {
    let out = skat()
        .args(["serve", "--addr", "127.0.0.1:0", "--metrics-addr", "off", "--web-addr", "off"])
        .args([
            "--database",
            "memory",
            "--tls-cert",
            "/nonexistent/cert.pem",
            "--tls-key",
            "/nonexistent/key.pem",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(text(&out).contains("/nonexistent/cert.pem"), "names the file: {}", text(&out));
    let out = skat().args(["serve", "--tls-cert", "/x.pem"]).output().unwrap();
    assert!(!out.status.success(), "a certificate without its key is refused by the flags");
}

#[test]
fn loadbench_measures_tls_against_plain_text_in_one_run() {
    let out = skat()
        .args([
            "loadbench",
            "--tables",
            "2",
            "--deals",
            "2",
            "--transport",
            "plain,tls",
            "--idle-tables",
            "0",
        ])
        .args(["--baseline", "50ms", "--handshakes", "5"])
        .output()
        .unwrap();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(said.contains("server: https://127.0.0.1:"), "{said}");
    assert_eq!(said.matches("handshake: p50").count(), 2, "{said}");
    assert!(said.contains("(5 fresh connections: TCP, TLS, HTTP/2)"), "{said}");
    assert!(
        said.lines().any(|l| l.contains(", TLS:") && l.contains("deals/s")),
        "the summary has the TLS run: {said}"
    );
}
