"""Makes the JSON schemas in this folder from CustomResourceDefinitions.

    python deploy/k8s/schemas/extract.py CRD.yaml... > /dev/null

For each CRD its stored version is written as `<group>_<kind>_<version>.json`: the version's
openAPIV3Schema without its descriptions (prose, most of the bytes), so that
deploy/k8s/check.py can validate the manifests offline with jsonschema. The CRDs come
from the upstream releases named in README.md (Apache-2.0).
"""

import json
import pathlib
import sys

import yaml

HERE = pathlib.Path(__file__).resolve().parent


def strip(node):
    if isinstance(node, dict):
        return {k: strip(v) for k, v in node.items() if k != "description"}
    if isinstance(node, list):
        return [strip(v) for v in node]
    return node


def main(paths):
    for path in paths:
        for crd in yaml.safe_load_all(open(path)):
            if not crd or crd.get("kind") != "CustomResourceDefinition":
                continue
            group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
            for version in crd["spec"]["versions"]:
                if not version.get("storage", False):
                    continue
                schema = strip(version["schema"]["openAPIV3Schema"])
                out = HERE / f"{group}_{kind}_{version['name']}.json"
                out.write_text(json.dumps(schema, separators=(",", ":"), sort_keys=True) + "\n")
                print(out.name)


if __name__ == "__main__":
    main(sys.argv[1:])
