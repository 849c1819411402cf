//! Log lines never name a card: a few random lists played with debug logging on, and
//! every line scanned for card codes.

mod common;

use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_log_line_names_a_card() {
    let capture = skat_testkit::CapturedLog::default();
    tracing_subscriber::fmt()
        .with_env_filter("debug,h2=info,hyper=info,tower=info,tonic=info")
        .with_ansi(false)
        .with_writer(capture.writer())
        .init();
    let server = TestServer::start(config()).await;
    let mut client = server.client().await;
    for t in 0..3 {
        let table = create(&mut client, 3, 6, 500 + t).await;
        let mut seats = Vec::new();
        for n in ["a", "b", "c"] {
            seats.push(join(&mut client, &table, n).await);
        }
        let mut rng = RandomClient::new(t);
        loop {
            let v = view(&mut client, &table, None).await;
            if v.status == skat_proto::pb::TableStatus::Finished as i32 {
                break;
            }
            let seat = v.deal.as_ref().unwrap().seat_to_move.expect("a seat to move");
            let token = &seats.iter().find(|(s, _)| *s == seat).unwrap().1;
            let own = view(&mut client, &table, Some(token)).await;
            let Some(action) = rng.choose(&own) else { continue };
            // Also a refused card, whose refusal is logged at debug level (by its code only).
            let _ = send(
                &mut client,
                &table,
                token,
                skat_engine::Action::Play { card: "CJ".parse().unwrap() },
                Some(own.seq),
            )
            .await;
            let _ = send(&mut client, &table, token, action, Some(own.seq)).await;
        }
    }
    let text = capture.text();
    assert!(text.contains("accepted"), "debug logging was on: {}", &text[..text.len().min(500)]);
    assert!(text.contains("refused"), "refusals were logged");
    for line in text.lines() {
        let named = cards_named_in(line);
        assert!(named.is_empty(), "a log line names {named}: {line}");
    }
}
