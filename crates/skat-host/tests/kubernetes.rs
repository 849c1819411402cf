//! The Kubernetes engine against the API's wire protocol: no API server can run here, so
//! each test answers the runner's HTTP requests as the API server documents them
//! (objects, `Status` on failure) and checks what the runner asked for, in order: the
//! Secret before the Pod, no token in the Pod, a stop that keeps the Pod, its log read
//! before it is deleted, leftovers found by label. The Pod and Secret themselves are
//! validated against Kubernetes' schemas in deploy/test-hosted.sh.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::{Method, Request, Response, StatusCode};
use kube::client::Body;
use serde_json::{Value, json};
use skat_host::kubernetes::{ClusterServer, Kubernetes};
use skat_host::sandbox::{self, Limits, Seat};
use skat_host::{Engine, SandboxSpec};

/// One request as the runner sent it.
#[derive(Debug, Clone)]
struct Sent {
    method: Method,
    path: String,
    body: Value,
}

type Answer = Box<dyn FnMut(&Sent) -> (StatusCode, Value) + Send>;

/// An engine whose API calls are answered by `answer`; the requests, in order.
fn engine(mut answer: Answer) -> (Engine, Arc<Mutex<Vec<Sent>>>) {
    let (service, mut handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
    let sent = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&sent);
    tokio::spawn(async move {
        while let Some((request, reply)) = handle.next_request().await {
            let (parts, body) = request.into_parts();
            let bytes = body.collect_bytes().await.unwrap_or_default();
            let s = Sent {
                method: parts.method,
                path: parts.uri.path_and_query().map_or(String::new(), ToString::to_string),
                body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
            };
            // The namespace's quotas: none unless the test answers them.
            let (status, value) = if s.path.contains("/resourcequotas") && s.method == Method::GET {
                match answer(&s) {
                    (StatusCode::OK, v) if v["kind"] == "ResourceQuotaList" => (StatusCode::OK, v),
                    _ => (
                        StatusCode::OK,
                        json!({"apiVersion": "v1", "kind": "ResourceQuotaList", "metadata": {}, "items": []}),
                    ),
                }
            } else {
                answer(&s)
            };
            log.lock().unwrap().push(s);
            let text = match value {
                Value::String(t) => t.into_bytes(),
                v => serde_json::to_vec(&v).unwrap(),
            };
            reply.send_response(Response::builder().status(status).body(Body::from(text)).unwrap());
        }
    });
    let client = kube::Client::new(service, "default");
    let server = ClusterServer {
        url: "https://skat-0.skat-headless.skat.svc.cluster.local:50051".into(),
        alias: Some(("skat-0.skat-headless.skat.svc.cluster.local".into(), "10.1.2.3".parse().unwrap())),
        ca_pem: Some("-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n".into()),
    };
    (Engine::Kubernetes(Kubernetes::with_client(client, "skat-bots", server)), sent)
}

fn seat() -> Seat {
    Seat {
        bot_name: "alice".into(),
        digest: "sha256:00".into(),
        version_id: "00".into(),
        socket: None,
        image: "registry.example.org/alice@sha256:00".into(),
        command: Vec::new(),
        table_id: "t1".into(),
        seat: 2,
        seat_token: "the-seat-token".into(),
        tournament_id: String::new(),
        cpu_millis: 1000,
        memory_mib: 512,
    }
}

fn limits(wall: Duration) -> Limits {
    Limits {
        runner: "skat-runner-0".into(),
        work_dir: std::env::temp_dir(),
        wall,
        pids: 64,
        tmpfs_mib: 16,
        runtime_class: Some("gvisor".into()),
        cpuset: None,
    }
}

/// A Pod the engine started (its name; its output is the API's).
fn started() -> skat_host::engine::Started {
    skat_host::engine::Started { name: "skat-abc".into(), output: None }
}

/// The watch of the Pod [`started`] for [`seat`], to its end.
async fn watched(engine: &Engine, limits: Limits) -> sandbox::Ending {
    let (_supersede, superseded) = tokio::sync::watch::channel(false);
    sandbox::watch(engine, started(), &seat(), &limits, None, &superseded).await
}

fn spec() -> SandboxSpec {
    sandbox::spec_of("abc", &seat(), &limits(Duration::from_secs(60)), None)
}

fn pod(status: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "skat-abc", "namespace": "skat-bots"}, "status": status})
}

fn terminated(exit: i32, reason: &str) -> Value {
    pod(json!({"phase": "Failed", "containerStatuses": [{
        "name": "bot", "image": "i", "imageID": "", "ready": false, "restartCount": 0,
        "state": {"terminated": {"exitCode": exit, "reason": reason}}
    }]}))
}

fn running() -> Value {
    pod(json!({"phase": "Running", "containerStatuses": [{
        "name": "bot", "image": "i", "imageID": "", "ready": true, "restartCount": 0,
        "state": {"running": {}}
    }]}))
}

fn status(code: u16, reason: &str, message: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Status", "status": "Failure", "code": code, "reason": reason, "message": message})
}

fn paths(sent: &Arc<Mutex<Vec<Sent>>>) -> Vec<String> {
    sent.lock()
        .unwrap()
        .iter()
        .map(|s| format!("{} {}", s.method, s.path.split('?').next().unwrap_or("")))
        .collect()
}

#[tokio::test]
async fn start_creates_the_secret_then_a_pod_without_the_token() {
    let (engine, sent) = engine(Box::new(|s: &Sent| (StatusCode::CREATED, s.body.clone())));
    let started = engine.start("abc", &spec(), &limits(Duration::from_secs(60))).await.unwrap();
    assert_eq!(started.name, "skat-abc");
    assert!(started.output.is_none(), "a Pod's output is read from the API");
    assert_eq!(
        paths(&sent),
        [
            "GET /api/v1/namespaces/skat-bots/resourcequotas",
            "POST /api/v1/namespaces/skat-bots/secrets",
            "POST /api/v1/namespaces/skat-bots/pods"
        ]
    );
    let sent = sent.lock().unwrap();
    let secret = &sent[1].body;
    assert_eq!(secret["stringData"]["seat-token"], "the-seat-token");
    assert!(secret["stringData"]["ca.crt"].as_str().unwrap().contains("BEGIN CERTIFICATE"));
    assert_eq!(secret["metadata"]["labels"]["skat.hosted"], "1");
    assert_eq!(secret["metadata"]["labels"]["skat.runner"], "skat-runner-0", "the runner names what it made");
    let pod = &sent[2].body;
    assert!(!pod.to_string().contains("the-seat-token"), "the token is in the Pod's spec");
    let env = pod["spec"]["containers"][0]["env"].as_array().unwrap();
    let var = |n: &str| env.iter().find(|e| e["name"] == n).cloned().unwrap_or(Value::Null);
    assert_eq!(var("SKAT_SEAT_TOKEN")["valueFrom"]["secretKeyRef"]["name"], "skat-abc");
    assert_eq!(var("SKAT_SERVER")["value"], "https://skat-0.skat-headless.skat.svc.cluster.local:50051");
    assert_eq!(var("SKAT_CA_FILE")["value"], "/run/skat-ca/ca.crt");
    assert_eq!(pod["spec"]["hostAliases"][0]["ip"], "10.1.2.3");
    assert_eq!(pod["spec"]["runtimeClassName"], "gvisor");
    assert_eq!(pod["spec"]["automountServiceAccountToken"], false);
    let c = &pod["spec"]["containers"][0];
    assert_eq!(c["resources"]["requests"], c["resources"]["limits"]);
    assert!(pod["spec"]["volumes"].as_array().unwrap().iter().all(|v| v.get("hostPath").is_none()));
}

/// The namespace's quota as the API shows it: `hard` and `used`.
fn quota(hard: Value, used: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ResourceQuotaList", "metadata": {}, "items": [{
        "apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "skat-bots", "namespace": "skat-bots"},
        "spec": {"hard": hard.clone()}, "status": {"hard": hard, "used": used}
    }]})
}

#[tokio::test]
async fn the_quota_is_read_as_capacity_and_no_pod_is_created_beyond_it() {
    // Two CPUs and 2 GiB for the namespace: what the runner states (its share of it).
    let hard = json!({"requests.cpu": "2", "requests.memory": "2Gi", "pods": "8"});
    let full = json!({"requests.cpu": "1500m", "requests.memory": "512Mi", "pods": "3"});
    let (engine, sent) = engine(Box::new(move |s: &Sent| {
        if s.path.contains("/resourcequotas") {
            (StatusCode::OK, quota(hard.clone(), full.clone()))
        } else {
            (StatusCode::CREATED, s.body.clone())
        }
    }));
    let Engine::Kubernetes(k) = &engine else { unreachable!() };
    let capacity = skat_host::capacity::of_quotas(&k.quotas().await);
    assert_eq!(capacity, skat_host::capacity::Capacity { millis: 2000, mib: 2048 });
    // 1.5 CPUs are taken: a sandbox of one more does not fit; nothing is created.
    let err = engine.start("abc", &spec(), &limits(Duration::from_secs(60))).await.unwrap_err();
    assert!(err.contains("ResourceQuota `skat-bots` has no room for the sandbox's CPU"), "{err}");
    assert!(paths(&sent).iter().all(|p| !p.starts_with("POST")), "{:?}", paths(&sent));
}

#[tokio::test]
async fn a_pod_the_api_refuses_takes_its_secret_with_it() {
    let (engine, sent) = engine(Box::new(|s: &Sent| match (s.method.as_str(), s.path.contains("/pods")) {
        ("POST", true) => (
            StatusCode::FORBIDDEN,
            status(
                403,
                "Forbidden",
                "pods \"skat-abc\" is forbidden: violates PodSecurity \"restricted:latest\"",
            ),
        ),
        ("DELETE", true) => (StatusCode::NOT_FOUND, status(404, "NotFound", "pods \"skat-abc\" not found")),
        _ => (StatusCode::OK, s.body.clone()),
    }));
    let err = engine.start("abc", &spec(), &limits(Duration::from_secs(60))).await.unwrap_err();
    assert!(err.contains("violates PodSecurity"), "{err}");
    assert_eq!(
        paths(&sent),
        [
            "GET /api/v1/namespaces/skat-bots/resourcequotas",
            "POST /api/v1/namespaces/skat-bots/secrets",
            "POST /api/v1/namespaces/skat-bots/pods",
            "DELETE /api/v1/namespaces/skat-bots/pods/skat-abc",
            "DELETE /api/v1/namespaces/skat-bots/secrets/skat-abc",
        ]
    );
}

#[tokio::test]
async fn an_oom_kill_is_read_from_the_pod_and_its_output_before_deletion() {
    let mut looks = 0;
    let (engine, sent) = engine(Box::new(move |s: &Sent| match (s.method.as_str(), s.path.as_str()) {
        ("GET", p) if p.starts_with("/api/v1/namespaces/skat-bots/pods/skat-abc/log") => {
            (StatusCode::OK, Value::String("thinking\nallocating\n".into()))
        }
        ("GET", _) => {
            looks += 1;
            (StatusCode::OK, if looks < 2 { running() } else { terminated(137, "OOMKilled") })
        }
        _ => (StatusCode::OK, status(200, "", "")),
    }));
    let ending = watched(&engine, limits(Duration::from_secs(60))).await;
    assert_eq!(ending.outcome, "out-of-memory", "{}", ending.detail);
    assert_eq!(ending.exit_code, 137);
    assert_eq!(ending.log, b"thinking\nallocating\n");
    let p = paths(&sent);
    let log_at = p.iter().position(|x| x.ends_with("/log")).unwrap();
    let delete_at = p.iter().position(|x| x.starts_with("DELETE") && x.contains("/pods/")).unwrap();
    assert!(log_at < delete_at, "{p:?}");
    assert!(p.contains(&"DELETE /api/v1/namespaces/skat-bots/secrets/skat-abc".to_string()));
    let log_query = &sent.lock().unwrap()[log_at].path;
    assert!(log_query.contains("container=bot") && log_query.contains("limitBytes="), "{log_query}");
}

#[tokio::test]
async fn an_image_the_cluster_cannot_pull_fails_the_version() {
    let (engine, _) = engine(Box::new(|s: &Sent| match s.method.as_str() {
        "GET" => (
            StatusCode::OK,
            pod(json!({"phase": "Pending", "containerStatuses": [{
                "name": "bot", "image": "i", "imageID": "", "ready": false, "restartCount": 0,
                "state": {"waiting": {"reason": "ErrImagePull", "message": "manifest unknown"}}
            }]})),
        ),
        _ => (StatusCode::OK, status(200, "", "")),
    }));
    let ending = watched(&engine, limits(Duration::from_secs(60))).await;
    assert_eq!(ending.outcome, "failed-to-start");
    assert!(ending.image_failed);
    assert!(ending.detail.contains("ErrImagePull: manifest unknown"), "{}", ending.detail);
}

#[tokio::test]
async fn the_wall_clock_limit_stops_the_pod_by_its_deadline_and_keeps_it_to_read() {
    let mut stopped = false;
    let (engine, sent) = engine(Box::new(move |s: &Sent| match s.method.as_str() {
        "PATCH" => {
            stopped = s.body["spec"]["activeDeadlineSeconds"] == 1;
            (StatusCode::OK, running())
        }
        "GET" if s.path.ends_with("/log") || s.path.contains("/log?") => {
            (StatusCode::OK, Value::String(String::new()))
        }
        "GET" if stopped => (StatusCode::OK, pod(json!({"phase": "Failed", "reason": "DeadlineExceeded"}))),
        "GET" => (StatusCode::OK, running()),
        _ => (StatusCode::OK, status(200, "", "")),
    }));
    let ending = watched(&engine, limits(Duration::ZERO)).await;
    assert_eq!(ending.outcome, "timed-out", "{}", ending.detail);
    let p = paths(&sent);
    assert_eq!(p[1], "PATCH /api/v1/namespaces/skat-bots/pods/skat-abc", "{p:?}");
}

#[tokio::test]
async fn a_sandbox_whose_seat_was_handed_out_again_is_stopped() {
    // The server restarted: the seat came again with a new token, a new sandbox plays it;
    // the old one's door is gone and it would hold its cores: it is stopped, and says why.
    let mut stopped = false;
    let (engine, sent) = engine(Box::new(move |s: &Sent| match s.method.as_str() {
        "PATCH" => {
            stopped = s.body["spec"]["activeDeadlineSeconds"] == 1;
            (StatusCode::OK, running())
        }
        "GET" if s.path.contains("/log") => (StatusCode::OK, Value::String(String::new())),
        "GET" if stopped => (StatusCode::OK, terminated(143, "Error")),
        "GET" => (StatusCode::OK, running()),
        _ => (StatusCode::OK, status(200, "", "")),
    }));
    let (supersede, superseded) = tokio::sync::watch::channel(false);
    let (seat, limits) = (seat(), limits(Duration::from_secs(60)));
    let watch = sandbox::watch(&engine, started(), &seat, &limits, None, &superseded);
    supersede.send_replace(true);
    let ending = tokio::time::timeout(Duration::from_secs(10), watch).await.expect("stopped at once");
    assert_eq!(ending.outcome, "stopped", "{}", ending.detail);
    assert!(ending.detail.contains("handed out again"), "{}", ending.detail);
    assert!(paths(&sent).contains(&"PATCH /api/v1/namespaces/skat-bots/pods/skat-abc".to_string()));
}

#[tokio::test]
async fn leftovers_are_found_by_label_names_only() {
    let (engine, sent) = engine(Box::new(|s: &Sent| {
        let names: &[&str] =
            if s.path.contains("/pods") { &["skat-a", "skat-b"] } else { &["skat-b", "skat-c"] };
        let items: Vec<Value> = names
            .iter()
            .map(|n| json!({"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata", "metadata": {"name": n}}))
            .collect();
        (
            StatusCode::OK,
            json!({"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadataList", "metadata": {}, "items": items}),
        )
    }));
    assert_eq!(engine.labelled("skat-runner-0").await, ["skat-a", "skat-b", "skat-c"]);
    let sent = sent.lock().unwrap();
    // Its own only: another runner's Pods in the same namespace are not its to remove.
    assert!(
        sent.iter().all(|s| s.path.contains("labelSelector=skat.hosted%3D1%2Cskat.runner%3Dskat-runner-0")),
        "{sent:?}"
    );
}

#[tokio::test]
async fn a_pod_that_never_stops_is_removed_by_force_and_the_watch_ends() {
    // The API takes the stop but the Pod keeps running: the watch gives it STOP_WITHIN,
    // then deletes the Pod and its Secret and reports it timed out.
    let (engine, sent) = engine(Box::new(|s: &Sent| match s.method.as_str() {
        "GET" if s.path.contains("/log") => (StatusCode::OK, Value::String("still here\n".into())),
        "GET" | "PATCH" => (StatusCode::OK, running()),
        _ => (StatusCode::OK, status(200, "", "")),
    }));
    let (seat, limits) = (seat(), limits(Duration::ZERO));
    let (_superseding, superseded) = tokio::sync::watch::channel(false);
    let watch = sandbox::watch(&engine, started(), &seat, &limits, None, &superseded);
    let ending = tokio::time::timeout(sandbox::STOP_WITHIN + Duration::from_secs(10), watch)
        .await
        .expect("the watch of a sandbox that never stops ends");
    assert_eq!(ending.outcome, "timed-out", "{}", ending.detail);
    let p = paths(&sent);
    assert!(p.contains(&"DELETE /api/v1/namespaces/skat-bots/pods/skat-abc".to_string()), "{p:?}");
    assert!(p.contains(&"DELETE /api/v1/namespaces/skat-bots/secrets/skat-abc".to_string()), "{p:?}");
}
