#!/usr/bin/env python3
"""Validates SARIF files against the SARIF 2.1.0 JSON Schema that npm's
@microsoft/jest-sarif ships (draft-04), with python3-jsonschema. Usage:
validate-sarif.py NPM_DIR FILE...  Prints one line per error and exits 1 if
any file is invalid, 0 when all are valid."""
import json
import os
import sys

import jsonschema

npm, files = sys.argv[1], sys.argv[2:]
path = os.path.join(npm, "node_modules", "@microsoft", "jest-sarif", "lib", "schemas", "sarif-2.1.0-rtm.5.json")
with open(path, encoding="utf-8") as f:
    schema = json.load(f)
validator = jsonschema.Draft4Validator(schema)
bad = 0
for name in files:
    with open(name, encoding="utf-8") as f:
        doc = json.load(f)
    for err in validator.iter_errors(doc):
        print(f"{name}: {'/'.join(str(p) for p in err.absolute_path)}: {err.message}")
        bad += 1
print(f"{len(files)} file(s), {bad} error(s) against {os.path.basename(path)}")
sys.exit(1 if bad else 0)
