"""Checks what kubernetes-validate cannot: the properties this deployment promises.

Usage: python deploy/k8s/check.py RENDERED.yaml OVERLAY_NAME
"""

import re
import sys

import yaml


def seconds(text: str) -> float:
    m = re.fullmatch(r"(\d+)(ms|s|m)", text)
    if not m:
        raise ValueError(f"cannot read duration {text!r}")
    n, unit = int(m.group(1)), m.group(2)
    return n / 1000 if unit == "ms" else n * (60 if unit == "m" else 1)


def main(path: str, overlay: str) -> None:
    docs = [d for d in yaml.safe_load_all(open(path)) if d]
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
    assert "{node}.skat-headless" in env["SKAT_PEER_ADDRESS_TEMPLATE"]["value"]
    # Native gRPC probes on grpc.health.v1: readiness on "" (NOT_SERVING while draining),
    # liveness on "liveness" (SERVING until exit).
    assert c["readinessProbe"]["grpc"] == {"port": 50051, "service": ""}
    assert c["livenessProbe"]["grpc"] == {"port": 50051, "service": "liveness"}
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
        journal = "sqlite on a PVC per pod"
    else:
        ref = env["SKAT_DATABASE"]["valueFrom"]["secretKeyRef"]
        assert ref["name"] == "skat-database" and ref["key"] == "url" and not ref.get("optional", False)
        journal = "postgres from Secret skat-database"
    print(f"{overlay}: {sts['spec']['replicas']} replica(s), drain {drain:g}s, grace {grace}s, {journal}: ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
