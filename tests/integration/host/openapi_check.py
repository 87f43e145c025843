#!/usr/bin/python3
"""Checks a host's /openapi.json (argv[1]) against the docs and against the committed snapshot.

  openapi_check.py DOC API_MD SNAPSHOT CHANGES ROUTES_JSON

- every schema in the document is a valid JSON Schema (draft 2020-12, what OpenAPI 3.1 uses), and every
  $ref resolves;
- every endpoint in docs/api.md's tables ("| `GET /alive` |") and every route a plugin manifest declares
  (ROUTES_JSON: the `actionhost --list-plugins` output) is an operation of the document;
- every example of docs/api.md marked `<!-- example: METHOD /path -->` validates against that
  operation's request schema;
- nothing of the snapshot (docs/openapi/openapi.json) is removed or narrowed — an operation, an action,
  an argument, an argument's types, an optional argument becoming required — unless CHANGES
  (docs/openapi/changes.md) has a line "BREAKING: <what>" for it.
Prints one line per problem and exits 1 if there is any; prints what was added (refresh the snapshot
with scripts/update-openapi) but does not fail for it.
"""
import json
import re
import sys

import jsonschema

doc_path, api_md, snapshot_path, changes_path, routes_path = sys.argv[1:6]
doc = json.load(open(doc_path))
problems = []

# 1. Schemas and references.
validator = jsonschema.Draft202012Validator
def refs(node, out):
    if isinstance(node, dict):
        if "$ref" in node:
            out.append(node["$ref"])
        for v in node.values():
            refs(v, out)
    elif isinstance(node, list):
        for v in node:
            refs(v, out)
    return out
for name, schema in doc["components"]["schemas"].items():
    try:
        validator.check_schema(schema)
    except jsonschema.SchemaError as e:
        problems.append(f"components.schemas.{name} is not a valid JSON Schema: {e.message}")
for r in refs(doc, []):
    m = re.fullmatch(r"#/components/schemas/(.+)", r)
    if not m or m.group(1) not in doc["components"]["schemas"]:
        problems.append(f"unresolved $ref {r}")
operations = {(path, method) for path, item in doc["paths"].items() for method in item}
if len(operations) < 10:
    problems.append(f"only {len(operations)} operations: the document is not the host's")

# 2. Documented endpoints and declared routes are operations.
text = open(api_md).read()
for method, path in re.findall(r"^\| `(GET|POST|DELETE|PUT) (/[^ ?`]*)", text, re.M):
    if (path, method.lower()) not in operations:
        problems.append(f"docs/api.md documents {method} {path}, which /openapi.json lacks")
for module in json.load(open(routes_path))["ALL_PLUGINS"]:
    for route in module.get("http_routes", []):
        if route not in doc["paths"]:
            problems.append(f"the {module['name']} plugin's route {route} is not in /openapi.json")

# 3. The examples of docs/api.md validate.
registry_schema = {"$defs": doc["components"]["schemas"]}
def resolve(schema):
    # $refs point at #/components/schemas/X: make them local to a wrapper document.
    s = json.loads(json.dumps(schema).replace("#/components/schemas/", "#/$defs/"))
    return {**s, "$defs": json.loads(json.dumps(doc["components"]["schemas"]).replace("#/components/schemas/", "#/$defs/"))}
examples = re.findall(r"<!-- example: (\w+) (/\S*) -->\s*```json\n(.*?)```", text, re.S)
if len(examples) < 3:
    problems.append(f"docs/api.md has {len(examples)} marked examples, expected at least 3")
for method, path, body in examples:
    op = doc["paths"].get(path, {}).get(method.lower())
    if op is None:
        problems.append(f"example for {method} {path}: no such operation")
        continue
    schema = op["requestBody"]["content"]["application/json"]["schema"]
    try:
        validator(resolve(schema)).validate(json.loads(body))
    except (jsonschema.ValidationError, json.JSONDecodeError) as e:
        problems.append(f"example for {method} {path} does not validate: {getattr(e, 'message', e)}")

# 4. Breaking changes against the snapshot.
snapshot = json.load(open(snapshot_path))
allowed = set(re.findall(r"^\s*BREAKING: ((?:GET|POST|PUT|DELETE) \S+|\S+)", open(changes_path).read(), re.M))
def breaking(what, why):
    if what not in allowed:
        problems.append(f"breaking change without a note in docs/openapi/changes.md (BREAKING: {what}): {why}")
for path, item in snapshot["paths"].items():
    for method in item:
        if (path, method) not in operations:
            breaking(f"{method.upper()} {path}", "the operation is gone")
def types(spec):
    t = spec.get("type")
    return None if t is None else set([t] if isinstance(t, str) else t)  # None: any value
now_schemas = doc["components"]["schemas"]
for name, old in snapshot["components"]["schemas"].items():
    if not name.startswith("Action_"):
        continue
    new = now_schemas.get(name)
    if new is None:
        breaking(name, "the action is no longer declared")
        continue
    old_args, new_args = old["properties"]["args"], new["properties"]["args"]
    old_required, new_required = set(old_args.get("required", [])), set(new_args.get("required", []))
    for arg, spec in old_args["properties"].items():
        if arg not in new_args["properties"]:
            if not new_args.get("additionalProperties", False):
                breaking(f"{name}.{arg}", "the argument is gone")
            continue
        before, after = types(spec), types(new_args["properties"][arg])
        if after is not None and (before is None or not before <= after):
            breaking(f"{name}.{arg}", f"its types narrowed from {before or 'any'} to {after}")
        if arg in new_required and arg not in old_required:
            breaking(f"{name}.{arg}", "it became required")
added = sorted({f"{m.upper()} {p}" for p, m in operations} - {f"{m.upper()} {p}" for p, i in snapshot["paths"].items() for m in i})
added += sorted(set(n for n in now_schemas if n.startswith("Action_")) - set(snapshot["components"]["schemas"]))
if added:
    print("added since the snapshot (refresh it with scripts/update-openapi): " + ", ".join(added))

for p in problems:
    print(p)
print(f"{len(operations)} operations, {sum(1 for n in now_schemas if n.startswith('Action_'))} actions, "
      f"{len(examples)} examples checked; {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
