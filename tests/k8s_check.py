#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""k8s_check.py MANIFEST...: a schema check of Kubernetes manifests offline.

kubectl's own checks need a cluster (discovery, OpenAPI from the server),
so the schema here is the one Debian's python3-kubernetes models were
generated from (the Kubernetes OpenAPI spec of its release): every field
must be one the model knows (strict, like the API server's strict field
validation), of its type, and the models' required fields must be there.
On top, what the schema cannot say: the selector matches the template's
labels, capabilities are Linux's (linux/capability.h), the seccomp type is
one of three.  Prints "ok KIND/NAME" per object; exit 1 with one line per
problem otherwise."""
import re
import sys

import yaml
from kubernetes import client

SCALARS = {"str": str, "int": int, "bool": bool, "float": (int, float), "object": object}
SECCOMP = {"RuntimeDefault", "Unconfined", "Localhost"}


def capabilities():
    with open("/usr/include/linux/capability.h") as f:
        return set(re.findall(r"#define CAP_([A-Z_]+)\s+\d+", f.read()))


def walk(value, typ, path, errors):
    """Checks value against the model type name typ (strictly)."""
    m = re.fullmatch(r"list\[(.+)\]", typ)
    if m:
        if not isinstance(value, list):
            errors.append(f"{path}: a list expected")
            return
        for i, v in enumerate(value):
            walk(v, m.group(1), f"{path}[{i}]", errors)
        return
    m = re.fullmatch(r"dict\(str, (.+)\)", typ)
    if m:
        if not isinstance(value, dict):
            errors.append(f"{path}: a map expected")
            return
        for k, v in value.items():
            walk(v, m.group(1), f"{path}.{k}", errors)
        return
    if typ in SCALARS:
        if not isinstance(value, SCALARS[typ]) or (typ == "int" and isinstance(value, bool)):
            errors.append(f"{path}: {typ} expected, got {type(value).__name__}")
        return
    model = getattr(client, typ)
    if not isinstance(value, dict):
        errors.append(f"{path}: an object ({typ}) expected")
        return
    by_json = {v: k for k, v in model.attribute_map.items()}
    for key, v in value.items():
        if key not in by_json:
            errors.append(f"{path}.{key}: unknown field of {typ}")
            continue
        walk(v, model.openapi_types[by_json[key]], f"{path}.{key}", errors)
    # the models' setters refuse a missing required field
    try:
        model(**{by_json[k]: v for k, v in value.items() if k in by_json})
    except (ValueError, TypeError) as e:
        errors.append(f"{path}: {e}")


def semantic(doc, errors):
    spec = doc.get("spec", {})
    sel = spec.get("selector", {}).get("matchLabels", {})
    labels = spec.get("template", {}).get("metadata", {}).get("labels", {})
    if not sel or any(labels.get(k) != v for k, v in sel.items()):
        errors.append("spec.selector.matchLabels: does not select spec.template's labels")
    known = capabilities()
    pod = spec.get("template", {}).get("spec", {})
    for c in pod.get("containers", []) + pod.get("initContainers", []):
        sc = c.get("securityContext", {})
        for how in ("add", "drop"):
            for cap in sc.get("capabilities", {}).get(how, []):
                if cap != "ALL" and cap not in known:
                    errors.append(f"container {c.get('name')}: no capability {cap!r} in linux/capability.h")
        st = sc.get("seccompProfile", {}).get("type")
        if st is not None and st not in SECCOMP:
            errors.append(f"container {c.get('name')}: seccompProfile.type {st!r}")


def main(paths):
    bad = 0
    for path in paths:
        with open(path) as f:
            docs = [d for d in yaml.safe_load_all(f) if d is not None]
        if not docs:
            print(f"{path}: no object")
            bad = 1
        for doc in docs:
            errors = []
            kind, version = doc.get("kind"), doc.get("apiVersion", "")
            typ = "V1" + str(kind)
            if version not in ("v1", "apps/v1") or not hasattr(client, typ):
                print(f"{path}: unchecked kind {version} {kind}")
                bad = 1
                continue
            walk(doc, typ, kind, errors)
            if kind == "DaemonSet":
                semantic(doc, errors)
            name = doc.get("metadata", {}).get("name")
            for e in errors:
                print(f"{path}: {e}")
            if errors:
                bad = 1
            else:
                print(f"ok {kind}/{name}")
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
