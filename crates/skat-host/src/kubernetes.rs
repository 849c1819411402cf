//! The Kubernetes engine: a sandbox is a Pod in the bots' namespace, created through the
//! API with the runner's ServiceAccount (deploy/k8s/hosted: a Role on Pods and Secrets in
//! that namespace only). The Pod is [`SandboxSpec::pod`], the one podman's `kube play`
//! runs, with three differences a cluster needs:
//!
//! | | podman | Kubernetes |
//! |---|---|---|
//! | the seat token | the env, from a file of mode 0600 | a Secret of the same name (`secretKeyRef`), so the Pod's spec holds no secret |
//! | the way to the server | its Unix socket, mounted | TLS to the replica the runner follows; its name is pinned in `hostAliases` (the NetworkPolicy allows no DNS) |
//! | the server's CA | none (a socket) | the same Secret, mounted read-only at [`CA_IN_SANDBOX`] (`SKAT_CA_FILE`) |
//!
//! | runner's act | API call | why |
//! |---|---|---|
//! | start | read the namespace's ResourceQuotas; create the Secret, then the Pod | a Pod the quota has no room for would wait `Pending` into a forfeit: it is not created; the kubelet waits for the Secret; a Pod refused removes its Secret |
//! | look | get the Pod | its phase, the container's state (`OOMKilled`, exit code, an image that cannot be pulled), `DeadlineExceeded` |
//! | stop | patch `activeDeadlineSeconds` to 1 | the kubelet stops it and keeps the Pod, so its state and output can still be read |
//! | output | the Pod's log, its last 1 MiB | read before removal |
//! | remove | delete the Pod and its Secret | nothing left behind |
//! | after a restart | list Pods and Secrets by the labels `skat.hosted=1,skat.runner=<name>` | the sandboxes this runner left when it died; other runners' are theirs |
//!
//! Not measured on a cluster: CPU seconds and peak memory (the runner is not on the node
//! and reads no cgroup; the cluster's own metrics have them per Pod, by label).

use std::net::IpAddr;

use k8s_openapi::api::core::v1::{Pod, ResourceQuota, Secret};
use kube::api::{Api, DeleteParams, ListParams, LogParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};

use crate::podman::State;
use crate::spec::{LABEL, MAX_LOG, RUNNER_LABEL, SandboxSpec};

/// Where a cluster sandbox finds the server's CA.
pub const CA_IN_SANDBOX: &str = "/run/skat-ca";

/// A container waiting for one of these will never start by itself.
const NEVER_STARTS: [&str; 6] = [
    "ErrImagePull",
    "ImagePullBackOff",
    "InvalidImageName",
    "ErrImageNeverPull",
    "CreateContainerConfigError",
    "CreateContainerError",
];

/// How a cluster sandbox reaches the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterServer {
    /// `SKAT_SERVER` in the sandbox (`https://skat-0.skat-headless.skat.svc.cluster.local:50051`).
    pub url: String,
    /// The host name of `url` and its address (for `hostAliases`); `None` for an address.
    pub alias: Option<(String, IpAddr)>,
    /// The CA the server's certificate is checked against (PEM).
    pub ca_pem: Option<String>,
}

impl ClusterServer {
    /// The server at `url`, its host name resolved here (the runner may use DNS; the
    /// sandbox may not), with the CA in `ca_pem`.
    pub async fn resolve(url: &str, ca_pem: Option<String>) -> Result<ClusterServer, String> {
        let rest = url.split_once("://").map_or(url, |(_, r)| r);
        let authority = rest.split('/').next().unwrap_or(rest);
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) if !h.ends_with(']') || authority.starts_with('[') => {
                (h.trim_matches(['[', ']']), p.parse::<u16>().unwrap_or(443))
            }
            _ => (authority, 443),
        };
        if host.parse::<IpAddr>().is_ok() {
            return Ok(ClusterServer { url: url.to_string(), alias: None, ca_pem });
        }
        let ip = tokio::net::lookup_host((host, port))
            .await
            .map_err(|e| format!("the sandboxes' server {host} cannot be resolved here: {e}"))?
            .next()
            .ok_or_else(|| format!("the sandboxes' server {host} has no address"))?
            .ip();
        Ok(ClusterServer { url: url.to_string(), alias: Some((host.to_string(), ip)), ca_pem })
    }
}

/// The Kubernetes engine (see the module header).
#[derive(Clone)]
pub struct Kubernetes {
    client: kube::Client,
    namespace: String,
    server: ClusterServer,
}

impl std::fmt::Debug for Kubernetes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kubernetes")
            .field("namespace", &self.namespace)
            .field("server", &self.server.url)
            .finish()
    }
}

/// The API's words for a failure.
fn words(e: &kube::Error) -> String {
    match e {
        kube::Error::Api(s) => format!("{} ({})", s.message, s.reason),
        other => other.to_string(),
    }
}

fn not_found(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == 404)
}

/// The Secret beside a sandbox's Pod: its seat token and the server's CA.
pub fn cluster_secret(spec: &SandboxSpec, namespace: &str, server: &ClusterServer) -> Value {
    let token = spec.env.iter().find(|(k, _)| k == "SKAT_SEAT_TOKEN").map_or("", |(_, v)| v.as_str());
    let labels: serde_json::Map<String, Value> =
        spec.labels.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
    let mut data = json!({"seat-token": token});
    if let Some(ca) = &server.ca_pem {
        data["ca.crt"] = json!(ca);
    }
    json!({
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": spec.name, "namespace": namespace, "labels": labels},
        "type": "Opaque",
        "stringData": data,
    })
}

/// The Pod the Kubernetes engine creates: [`SandboxSpec::pod`] with the token from the
/// Secret, the server over the network and its CA mounted.
pub fn cluster_pod(spec: &SandboxSpec, namespace: &str, server: &ClusterServer) -> Value {
    let mut s = spec.clone();
    s.socket = None;
    s.env.retain(|(k, _)| k != "SKAT_SEAT_TOKEN");
    for (k, v) in &mut s.env {
        if k == "SKAT_SERVER" {
            v.clone_from(&server.url);
        }
    }
    if server.ca_pem.is_some() {
        s.env.push(("SKAT_CA_FILE".into(), format!("{CA_IN_SANDBOX}/ca.crt")));
    }
    let mut pod = s.pod(namespace);
    let from_secret = json!({"name": "SKAT_SEAT_TOKEN", "valueFrom": {"secretKeyRef": {"name": spec.name, "key": "seat-token"}}});
    let container = &mut pod["spec"]["containers"][0];
    if let Some(env) = container["env"].as_array_mut() {
        env.push(from_secret);
    }
    if server.ca_pem.is_some() {
        if let Some(mounts) = container["volumeMounts"].as_array_mut() {
            mounts.push(json!({"name": "skat-ca", "mountPath": CA_IN_SANDBOX, "readOnly": true}));
        }
        if let Some(volumes) = pod["spec"]["volumes"].as_array_mut() {
            volumes.push(json!({"name": "skat-ca", "secret": {
                "secretName": spec.name,
                "items": [{"key": "ca.crt", "path": "ca.crt"}],
                "defaultMode": 0o444,
            }}));
        }
    }
    if let Some((host, ip)) = &server.alias {
        pod["spec"]["hostAliases"] = json!([{"ip": ip.to_string(), "hostnames": [host]}]);
    }
    pod
}

/// A Pod's state as the runner reads it.
pub fn state_of(pod: &Pod) -> State {
    let mut state = State { running: true, exit_code: -1, ..State::default() };
    let Some(status) = &pod.status else { return state };
    let phase = status.phase.as_deref().unwrap_or("Pending");
    state.running = matches!(phase, "Pending" | "Running");
    if status.reason.as_deref() == Some("DeadlineExceeded") {
        state.running = false;
        state.deadline = true;
    }
    let container = status.container_statuses.iter().flatten().find(|c| c.name == "bot");
    let current = container.and_then(|c| c.state.as_ref());
    if let Some(t) = current.and_then(|s| s.terminated.as_ref()) {
        state.running = false;
        state.exit_code = t.exit_code;
        state.oom_killed = t.reason.as_deref() == Some("OOMKilled");
    }
    if let Some(w) = current.and_then(|s| s.waiting.as_ref()) {
        let reason = w.reason.clone().unwrap_or_default();
        if NEVER_STARTS.contains(&reason.as_str()) {
            state.running = false;
            state.image_failed = reason.contains("Image");
            state.error = format!("{reason}: {}", w.message.as_deref().unwrap_or(""));
        }
    }
    if phase == "Pending" && state.running {
        let unscheduled =
            status.conditions.iter().flatten().find(|c| c.type_ == "PodScheduled" && c.status == "False");
        state.waiting = Some(unscheduled.map_or_else(
            || "the Pod is being started".to_string(),
            |c| format!("not scheduled: {}", c.message.as_deref().unwrap_or("no node has room")),
        ));
    }
    state
}

impl Kubernetes {
    /// The engine with the runner's own credentials (in the cluster: its ServiceAccount;
    /// outside: the kubeconfig).
    pub async fn connect(namespace: &str, server: ClusterServer) -> Result<Kubernetes, String> {
        let client = kube::Client::try_default()
            .await
            .map_err(|e| format!("the Kubernetes API cannot be reached: {e}"))?;
        Ok(Kubernetes::with_client(client, namespace, server))
    }

    /// The engine over `client`.
    pub fn with_client(client: kube::Client, namespace: &str, server: ClusterServer) -> Kubernetes {
        Kubernetes { client, namespace: namespace.to_string(), server }
    }

    fn pods(&self) -> Api<Pod> {
        Api::namespaced(self.client.clone(), &self.namespace)
    }

    fn secrets(&self) -> Api<Secret> {
        Api::namespaced(self.client.clone(), &self.namespace)
    }

    /// The namespace's ResourceQuotas (none when they cannot be read: the API decides).
    pub async fn quotas(&self) -> Vec<ResourceQuota> {
        let api: Api<ResourceQuota> = Api::namespaced(self.client.clone(), &self.namespace);
        match api.list(&ListParams::default()).await {
            Ok(list) => list.items,
            Err(e) => {
                tracing::warn!(error = %words(&e), "the namespace's ResourceQuotas cannot be read");
                Vec::new()
            }
        }
    }

    /// Creates the Secret and the Pod: the Pod's name, or the API's words. A Pod the
    /// namespace's quota has no room for is not created: it would wait `Pending` and its
    /// seat forfeit on the clock.
    pub async fn start(&self, spec: &SandboxSpec) -> Result<String, String> {
        let quotas = self.quotas().await;
        crate::capacity::room_in(&quotas, u64::from(spec.cpu_millis), u64::from(spec.memory_mib))
            .map_err(|why| format!("the sandbox did not start: {why}"))?;
        let secret: Secret = serde_json::from_value(cluster_secret(spec, &self.namespace, &self.server))
            .map_err(|e| format!("the sandbox's Secret: {e}"))?;
        let pod: Pod = serde_json::from_value(cluster_pod(spec, &self.namespace, &self.server))
            .map_err(|e| format!("the sandbox's Pod: {e}"))?;
        let pp = PostParams::default();
        self.secrets()
            .create(&pp, &secret)
            .await
            .map_err(|e| format!("the sandbox did not start: {}", words(&e)))?;
        if let Err(e) = self.pods().create(&pp, &pod).await {
            self.remove(&spec.name).await;
            return Err(format!("the sandbox did not start: {}", words(&e)));
        }
        Ok(spec.name.clone())
    }

    /// The Pod's state; `None` when it is gone.
    pub async fn look(&self, name: &str) -> Option<State> {
        match self.pods().get_opt(name).await {
            Ok(pod) => pod.map(|p| state_of(&p)),
            Err(e) => {
                // The API did not answer: the sandbox is taken to run on (the next look asks again).
                tracing::warn!(sandbox = name, error = %words(&e), "the Pod could not be read");
                Some(State { running: true, ..State::default() })
            }
        }
    }

    /// Stops the Pod and keeps it (its deadline, now).
    pub async fn stop(&self, name: &str) {
        let patch = Patch::Merge(json!({"spec": {"activeDeadlineSeconds": 1}}));
        if let Err(e) = self.pods().patch(name, &PatchParams::default(), &patch).await
            && !not_found(&e)
        {
            tracing::warn!(sandbox = name, error = %words(&e), "the Pod could not be stopped; deleting it");
            let _ = self.pods().delete(name, &DeleteParams::default().grace_period(1)).await;
        }
    }

    /// The Pod's output, its last [`MAX_LOG`] bytes, and whether older output was dropped.
    pub async fn output(&self, name: &str) -> (Vec<u8>, bool) {
        let lp = LogParams {
            container: Some("bot".into()),
            limit_bytes: Some(MAX_LOG as i64 + 1),
            ..LogParams::default()
        };
        match self.pods().logs(name, &lp).await {
            Ok(text) => {
                let mut bytes = text.into_bytes();
                let cut = bytes.len() > MAX_LOG;
                bytes.truncate(MAX_LOG);
                (bytes, cut)
            }
            Err(e) => (format!("(the output could not be read: {})\n", words(&e)).into_bytes(), false),
        }
    }

    /// Deletes the Pod and its Secret, whatever their state.
    pub async fn remove(&self, name: &str) {
        let now = DeleteParams::default().grace_period(0);
        for result in [
            self.pods().delete(name, &now).await.map(|_| ()),
            self.secrets().delete(name, &now).await.map(|_| ()),
        ] {
            if let Err(e) = result
                && !not_found(&e)
            {
                tracing::warn!(sandbox = name, error = %words(&e), "could not delete");
            }
        }
    }

    /// Every Pod or Secret `runner` made (its label and the runner's).
    pub async fn labelled(&self, runner: &str) -> Vec<String> {
        let lp = ListParams::default().labels(&format!("{LABEL}=1,{RUNNER_LABEL}={runner}"));
        let mut names: Vec<String> = Vec::new();
        match self.pods().list_metadata(&lp).await {
            Ok(list) => names.extend(list.items.into_iter().filter_map(|p| p.metadata.name)),
            Err(e) => tracing::warn!(error = %words(&e), "cannot list the Pods left over"),
        }
        // Names only: the runner has no use for other sandboxes' tokens.
        match self.secrets().list_metadata(&lp).await {
            Ok(list) => names.extend(list.items.into_iter().filter_map(|s| s.metadata.name)),
            Err(e) => tracing::warn!(error = %words(&e), "cannot list the Secrets left over"),
        }
        names.sort();
        names.dedup();
        names
    }
}
