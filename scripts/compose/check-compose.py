"""Validates a compose file with real parsers: PyYAML reads it (anchors and merge keys resolved as
Compose resolves them), jsonschema checks it against the Compose Specification's own JSON schema
(compose-spec.json beside this file, from github.com/compose-spec/compose-spec, Apache-2.0), and
the references between its parts are checked: every depends_on names a service, every named volume
a service mounts is declared.
Usage: python3 scripts/compose/check-compose.py compose.yaml"""
import json
import os
import sys

import jsonschema
import yaml


def problems(path):
    with open(path, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    with open(os.path.join(os.path.dirname(__file__), "compose-spec.json"), encoding="utf-8") as f:
        schema = json.load(f)
    for error in jsonschema.Draft7Validator(schema).iter_errors(doc):
        yield f"{'/'.join(str(p) for p in error.absolute_path) or '(top)'}: {error.message}"
    services = doc.get("services", {})
    declared = set((doc.get("volumes") or {}).keys())
    for name, service in services.items():
        for dependency in service.get("depends_on") or []:
            if dependency not in services:
                yield f"services/{name}/depends_on: no service {dependency}"
        for volume in service.get("volumes") or []:
            source = volume.split(":")[0] if isinstance(volume, str) else volume.get("source", "")
            if source and not source.startswith((".", "/", "~", "$")) and source not in declared:
                yield f"services/{name}/volumes: named volume {source} is not declared"


if __name__ == "__main__":
    found = list(problems(sys.argv[1]))
    for p in found:
        print(f"check-compose: {sys.argv[1]}: {p}", file=sys.stderr)
    if not found:
        print(f"check-compose: {sys.argv[1]} is a valid Compose file")
    sys.exit(1 if found else 0)
