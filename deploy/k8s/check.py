"""Checks what kubernetes-validate cannot: the custom resources against their CRDs'
schemas (deploy/k8s/schemas), and the properties this deployment promises.

Usage: python deploy/k8s/check.py RENDERED.yaml OVERLAY_NAME

What cannot be checked offline, and is not: the CRDs' CEL rules (x-kubernetes-validations,
e.g. "a GRPCRoute's hostnames must match its listener"); the properties below check the
ones this deployment relies on by hand. Whether a Gateway implementation, cert-manager and
the ClusterIssuer exist in the cluster is for the operator (docs/deploy.md).
"""

import ipaddress
import json
import pathlib
import re
import sys

import jsonschema
import yaml

SCHEMAS = pathlib.Path(__file__).resolve().parent / "schemas"


def seconds(text: str) -> float:
    """A duration as skat (`10s`, `2m`) or Envoy Gateway (`6h`, `1h30m`) writes it."""
    parts = re.findall(r"(\d+)(ms|h|m|s)", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ValueError(f"cannot read duration {text!r}")
    scale = {"ms": 0.001, "s": 1, "m": 60, "h": 3600}
    return sum(int(n) * scale[u] for n, u in parts)


def closed(schema):
    """The schema with unknown fields refused wherever it lists its fields (the API server
    prunes them; kubectl --validate=strict refuses them: a typo must not pass)."""
    if isinstance(schema, list):
        return [closed(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: closed(v) for k, v in schema.items()}
    if "properties" in out and "additionalProperties" not in out and not out.get("x-kubernetes-preserve-unknown-fields"):
        out["additionalProperties"] = False
    return out


def validate_custom(doc) -> bool:
    """Validates a custom resource against its vendored schema; False for built-in kinds."""
    group, _, version = doc["apiVersion"].rpartition("/")
    # Kubernetes' own groups (apps, policy, networking.k8s.io...) are kubernetes-validate's.
    if "." not in group or (group.endswith(".k8s.io") and group != "gateway.networking.k8s.io"):
        return False
    path = SCHEMAS / f"{group}_{doc['kind']}_{version}.json"
    assert path.exists(), f"no schema for {doc['apiVersion']} {doc['kind']}: add its CRD (deploy/k8s/schemas/README.md)"
    schema = closed(json.loads(path.read_text()))
    # metadata is the API server's ObjectMeta, which the CRD schema leaves open.
    schema.setdefault("properties", {})["metadata"] = {"type": "object"}
    errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, f"{doc['kind']} {doc['metadata']['name']}: " + "; ".join(
        f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors[:5]
    )
    return True


def main(path: str, overlay: str) -> None:
    docs = [d for d in yaml.safe_load_all(open(path)) if d]
    custom = sum(validate_custom(d) for d in docs)
    kinds = {(d["kind"], d["metadata"]["name"]) for d in docs}
    for needed in [("StatefulSet", "skat"), ("Service", "skat"), ("Service", "skat-headless"),
                   ("Service", "skat-metrics"), ("PodDisruptionBudget", "skat"), ("ConfigMap", "skat-config")]:
        assert needed in kinds, f"{overlay}: missing {needed}"
    sts = next(d for d in docs if d["kind"] == "StatefulSet")
    cfg = next(d for d in docs if d["kind"] == "ConfigMap")["data"]
    headless = next(d for d in docs if d["kind"] == "Service" and d["metadata"]["name"] == "skat-headless")
    assert headless["spec"]["clusterIP"] == "None", "the headless Service gives pods DNS names"
    assert sts["spec"]["serviceName"] == "skat-headless"
    pod = sts["spec"]["template"]["spec"]
    c = pod["containers"][0]
    env = {e["name"]: e for e in c["env"]}
    assert env["SKAT_NODE_ID"]["value"] == "$(POD_NAME)"
    # Restrictive security context.
    sc, psc = c["securityContext"], pod["securityContext"]
    assert psc["runAsNonRoot"] is True and psc["runAsUser"] != 0
    assert sc["readOnlyRootFilesystem"] is True
    assert sc["allowPrivilegeEscalation"] is False
    assert sc["capabilities"]["drop"] == ["ALL"]
    assert c["resources"]["requests"] and c["resources"]["limits"]
    # The grace period covers the drain plus time to close streams.
    drain = seconds(cfg["SKAT_DRAIN"])
    grace = pod["terminationGracePeriodSeconds"]
    assert grace >= drain + 5, f"{overlay}: grace {grace}s does not cover drain {drain}s + 5s"
    # The journal: SQLite on a claim per pod (dev), PostgreSQL from a Secret (prod).
    mounts = {m["name"]: m["mountPath"] for m in c.get("volumeMounts", [])}
    if overlay == "dev":
        claims = {t["metadata"]["name"] for t in sts["spec"].get("volumeClaimTemplates", [])}
        assert "data" in claims, "dev: the SQLite journal needs a PersistentVolumeClaim per pod"
        assert mounts.get("data") == env["SKAT_DATA_DIR"]["value"], "dev: the claim is the data directory"
        assert "SKAT_DATABASE" not in env, "dev: SQLite (the default)"
        assert "{node}.skat-headless" in env["SKAT_PEER_ADDRESS_TEMPLATE"]["value"]
        # Native gRPC probes on grpc.health.v1: readiness on "" (NOT_SERVING while
        # draining), liveness on "liveness" (SERVING until exit).
        assert c["readinessProbe"]["grpc"] == {"port": 50051, "service": ""}
        assert c["livenessProbe"]["grpc"] == {"port": 50051, "service": "liveness"}
        journal = "sqlite on a PVC per pod"
        entrance = "no entrance (port-forward)"
    else:
        ref = env["SKAT_DATABASE"]["valueFrom"]["secretKeyRef"]
        assert ref["name"] == "skat-database" and ref["key"] == "url" and not ref.get("optional", False)
        journal = "postgres from Secret skat-database"
        entrance = check_entrance(docs, sts, c, env, cfg, mounts)
    print(
        f"{overlay}: {sts['spec']['replicas']} replica(s), drain {drain:g}s, grace {grace}s, {journal}, "
        f"{entrance}, {custom} custom resources valid: ok"
    )


def named(docs, kind):
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}


def check_entrance(docs, sts, c, env, cfg, mounts) -> str:
    """prod: the Gateway, its routes and certificates, TLS to the pods, the per-pod names,
    the trusted proxies and the NetworkPolicy fit together."""
    gateways, grpc_routes, http_routes = named(docs, "Gateway"), named(docs, "GRPCRoute"), named(docs, "HTTPRoute")
    certs, issuers, services = named(docs, "Certificate"), named(docs, "Issuer"), named(docs, "Service")
    assert len(gateways) == 1, "one Gateway"
    gateway = next(iter(gateways.values()))
    listeners = {l["name"]: l for l in gateway["spec"]["listeners"]}
    # Every listener ends TLS with the public certificate, which names every hostname a
    # route answers on.
    public = {ref["name"] for l in listeners.values() for ref in l["tls"]["certificateRefs"]}
    assert all(l["protocol"] == "HTTPS" and l["port"] == 443 and l["tls"]["mode"] == "Terminate" for l in listeners.values())
    assert len(public) == 1, "one public certificate"
    public_cert = next(cert for cert in certs.values() if cert["spec"]["secretName"] in public)
    assert public_cert["spec"]["issuerRef"]["kind"] == "ClusterIssuer", "a public CA through the operator's ClusterIssuer"
    names = set(public_cert["spec"]["dnsNames"])
    routes = list(grpc_routes.values()) + list(http_routes.values())
    for route in routes:
        for host in route["spec"]["hostnames"]:
            assert host in names, f"{route['metadata']['name']}: {host} is not in the public certificate"
        for parent in route["spec"]["parentRefs"]:
            listener = listeners[parent["sectionName"]]
            pattern = re.escape(listener["hostname"]).replace(r"\*", "[^.]+")
            assert all(re.fullmatch(pattern, h) for h in route["spec"]["hostnames"]), f"{route['metadata']['name']} fits its listener"
    # One public name per pod, routed to that pod alone, and the server sends clients there.
    template = env["SKAT_PEER_ADDRESS_TEMPLATE"]["value"]
    backends = set()
    for i in range(sts["spec"]["replicas"]):
        podname = f"skat-{i}"
        host, _, port = template.replace("{node}", podname).rpartition(":")
        assert port == "443", "redirects go to the Gateway's port"
        route = next((r for r in grpc_routes.values() if host in r["spec"]["hostnames"]), None)
        assert route, f"no GRPCRoute for {host}: a client sent to {podname} would find nothing"
        (backend,) = [b for rule in route["spec"]["rules"] for b in rule["backendRefs"]]
        assert services[backend["name"]]["spec"]["selector"] == {"statefulset.kubernetes.io/pod-name": podname}
        backends.add(backend["name"])
    for route in routes:
        backends |= {b["name"] for rule in route["spec"]["rules"] for b in rule["backendRefs"]}
    # TLS from the Gateway to every backend Service, checked against the pods' CA.
    (policy,) = named(docs, "BackendTLSPolicy").values()
    assert {t["name"] for t in policy["spec"]["targetRefs"]} >= backends, "TLS to every backend"
    internal = next(cert for cert in certs.values() if cert["spec"]["secretName"] == sts_secret(sts, mounts, env))
    assert policy["spec"]["validation"]["hostname"] in internal["spec"]["dnsNames"]
    issuer = issuers[internal["spec"]["issuerRef"]["name"]]
    assert [r["name"] for r in policy["spec"]["validation"]["caCertificateRefs"]] == [issuer["spec"]["ca"]["secretName"]]
    for service in backends:
        for port in services[service]["spec"]["ports"]:
            assert port.get("appProtocol") != "kubernetes.io/h2c", f"{service} speaks TLS, not h2c"
    # Probes without gRPC (no TLS in Kubernetes' gRPC probes): HTTP on the metrics port.
    assert c["readinessProbe"]["httpGet"] == {"path": "/health/ready", "port": "metrics"}
    assert c["livenessProbe"]["httpGet"] == {"path": "/health/live", "port": "metrics"}
    # Streams as long as a list: no request timeout, idle timeouts of hours.
    longest = 48 * 3 * seconds(cfg.get("SKAT_DEAL_CLOCK", "2m"))  # a 4-seat list, every active seat's clock used up
    (backend_policy,) = named(docs, "BackendTrafficPolicy").values()
    targets = {(t["kind"], t["name"]) for t in backend_policy["spec"]["targetRefs"]}
    assert targets >= {("GRPCRoute", n) for n in grpc_routes} | {("HTTPRoute", n) for n in http_routes}
    timeout = backend_policy["spec"]["timeout"]["http"]
    assert seconds(timeout["requestTimeout"]) == 0, "no request timeout on streams"
    assert seconds(timeout["streamIdleTimeout"]) >= 3600
    (client_policy,) = named(docs, "ClientTrafficPolicy").values()
    assert client_policy["spec"]["targetRefs"][0]["kind"] == "Gateway"
    assert seconds(client_policy["spec"]["timeout"]["http"]["idleTimeout"]) >= longest, "a connection outlives a list"
    for route in http_routes.values():
        assert all(seconds(rule["timeouts"]["request"]) == 0 for rule in route["spec"]["rules"])
    # The Gateway's proxies are trusted to name clients, and only they reach the pods.
    proxies = [ipaddress.ip_network(n) for n in cfg["SKAT_TRUSTED_PROXIES"].split(",")]
    assert proxies and all(p.is_private for p in proxies), "trusted proxies: private ranges only"
    (netpol,) = named(docs, "NetworkPolicy").values()
    assert set(netpol["spec"]["policyTypes"]) == {"Ingress", "Egress"}
    allowed = {}
    for rule in netpol["spec"]["ingress"]:
        (source,) = rule["from"]
        ns = source["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"]
        allowed[ns] = {p["port"] for p in rule["ports"]}
    assert allowed == {"envoy-gateway-system": {"grpc", "web"}, "monitoring": {"metrics"}}, allowed
    egress_ports = {p["port"] for rule in netpol["spec"]["egress"] for p in rule["ports"]}
    assert egress_ports == {5432, 53}, "out: PostgreSQL and DNS only"
    return f"Gateway with {len(grpc_routes)} GRPCRoutes, TLS to the pods, trusted proxies {cfg['SKAT_TRUSTED_PROXIES']}"


def sts_secret(sts, mounts, env) -> str:
    """The Secret whose files SKAT_TLS_CERT and SKAT_TLS_KEY name."""
    volumes = {v["name"]: v for v in sts["spec"]["template"]["spec"]["volumes"]}
    cert, key = env["SKAT_TLS_CERT"]["value"], env["SKAT_TLS_KEY"]["value"]
    (volume,) = [name for name, path in mounts.items() if cert.startswith(path + "/") and key.startswith(path + "/")]
    return volumes[volume]["secret"]["secretName"]


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
