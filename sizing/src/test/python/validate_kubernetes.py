"""Validates Kubernetes YAML against the Kubernetes API's JSON schemas, offline.

kubernetes-validate ships the schemas of each Kubernetes release inside the package, so nothing is downloaded (unlike
kubeconform, which fetches them at run time). Strict mode: a field the API does not define is an error, as it is for
`kubectl apply --validate=strict`. Every YAML document of every file named is checked; the result lists each one,
with "schema": false for a kind the API does not define (a CRD such as the Prometheus Operator's ServiceMonitor).

    validate_kubernetes.py FILE...   (KUBERNETES_VERSION in the environment, default the package's newest)
"""
import os
import sys

import kubernetes_validate
import yaml

from sluice_harness import log, main


def run():
    version = os.environ.get("KUBERNETES_VERSION") or kubernetes_validate.latest_version()
    documents = []
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            for data in yaml.safe_load_all(f):
                if data is None:
                    continue
                entry = {"file": path, "kind": data.get("kind"), "name": (data.get("metadata") or {}).get("name"),
                         "schema": True, "errors": []}
                try:
                    kubernetes_validate.validate(data, version, strict=True)
                except kubernetes_validate.SchemaNotFoundError as e:
                    entry["schema"] = False
                    entry["errors"].append("no schema for %s %s in Kubernetes %s" % (data.get("apiVersion"), entry["kind"], version))
                except kubernetes_validate.ValidationError as e:
                    location = ".".join(str(p) for p in e.path)
                    entry["errors"].append((location + ": " if location else "") + e.message)
                log(path, entry["kind"], entry["name"], "ok" if not entry["errors"] else entry["errors"])
                documents.append(entry)
    return {"kubernetesVersion": version, "documents": documents}


main(run)
