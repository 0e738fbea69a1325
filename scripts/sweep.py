#!/usr/bin/env python3
"""Boundary sweep: calls every operation of the contract with boundary values in every field.

Reads /openapi.yaml from a running server, builds one valid-looking request per operation
(real ids from a household set up first), then sends it again with one field changed at a time:

- every integer at 0, -1, Int32.max and Int64.max;
- every string with a NUL, as a lone surrogate escape, and 10,000 characters long;
- every date-time at 0001-01-01, 9999-12-31 and 10000-01-01; every date likewise;
- every month and day parameter at its extremes.

Asserts, after every call: no 5xx; the process has not exited and /health answers 200; and a
refused request (4xx) changed nothing in the database (a digest of every table's rows, taken
before and after, must be equal).

    python3 scripts/sweep.py --bin .build/debug/questline                 # SQLite
    python3 scripts/sweep.py --bin .build/debug/questline --postgres URL  # a fresh schema in that database

Leaves out the household event stream (a granted stream never ends). logOut has no field to
vary, and its base request is not sent: it would end the session being swept.
Prints one line per finding and a closing count; exits 1 on any finding.
"""
import argparse
import hashlib
import http.server
import json
import os
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime, timedelta, timezone

import yaml  # PyYAML, installed with schemathesis by scripts/test.sh

# The server's secret key for these throwaway servers (a real one comes from `questline secrets new-key`).
TEST_SECRET_KEY = "0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0"

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FEED_FIXTURE = os.path.join(ROOT, "Tests/QuestlineCoreTests/Fixtures/onthisday-05-07-trimmed.json")

INTEGERS = [0, -1, 2**31 - 1, 2**63 - 1]
STRINGS = ["a\u0000b", "\ud800", "x" * 10_000]
INSTANTS = ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "10000-01-01T00:00:00Z"]
DAYS = ["0001-01-01", "9999-12-31", "10000-01-01"]
MONTHS = ["0001-01", "9999-12", "10000-01", "2026-00", "2026-13"]
# Tables a refused request may not change, and those it cannot be blamed for: analytics events
# are written by a background flusher from earlier, accepted requests.
# Bookkeeping that refusals write on purpose: a failed login or a wrong friend-group code is counted (failed_attempts), and a
# request takes a token from its limit buckets (rate_buckets) before it is judged.
UNCHECKED_TABLES = {"analytics_events", "schema_migrations", "failed_attempts", "rate_buckets"}
SKIPPED = {"householdEvents"}
# Values that make an operation's base request valid, where the schema alone cannot tell
# (placeholders in braces are ids from the set-up).
BASE = {
    "importSaved": {"body": {"total": 1, "offset": 0}},
    "putCampaign": {"body": {"id": "{campaignId}", "startDay": "2026-01-01", "endDay": "2026-12-31",
                             "claimUntilDay": "2027-01-31", "removeAfterDay": "2027-02-28", "goalDays": 20}},
    "getReadingFunnel": {"query": {"campaign": "{campaignId}"}},
    "getActivity": {"query": {"locale": "en_US"}},
    "putQuestApp": {"body": {"icon": "\U0001F4DA", "pointsPerMinute": 2}},
    "createQuest": {"body": {"goalType": "dailyMinutes", "period": "day", "learningApps": ["learn"],
                                 "rewardApps": [{"appToken": "play", "minutes": 10}], "weekdays": [1, 2, 3, 4, 5, 6, 7],
                                 "bonusPercent": 10}},
    "updateQuest": {"body": {"goalType": "dailyMinutes", "period": "day", "learningApps": ["learn"],
                                 "rewardApps": [{"appToken": "play", "minutes": 10}], "weekdays": [1, 2, 3, 4, 5, 6, 7],
                                 "bonusPercent": 10}},
    "updateChallenge": {"body": {"goalType": "dailyMinutes", "period": "day", "learningApps": ["learn"],
                                 "rewardApps": [{"appToken": "play", "minutes": 10}], "weekdays": [1, 2, 3, 4, 5, 6, 7],
                                 "bonusPercent": 10}},
    "setStoryPreferences": {"body": {"states": ["{state}"], "tracks": ["{track}"]}},
    "answerQuestion": {"body": {"questionIndex": 0}},
    "reportUsage": {"body": {"reports": [{"appToken": "learn", "durationSeconds": 600}]}},
    "redeemPoints": {"body": {"appToken": "play", "minutes": 1}},
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_feed():
    """A stand-in for Wikimedia's "On this day" feed: the same day for every date."""
    body = open(FEED_FIXTURE, "rb").read()

    class Feed(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Feed)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


class Server:
    def __init__(self, binary, workdir, postgres):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.database = os.path.join(workdir, "sweep.sqlite")
        self.binary, self.postgres, self.exits = binary, postgres, 0
        self.log_path = os.path.join(workdir, "server.log")
        self.feed_port = serve_feed()
        self.start()

    def start(self):
        binary, postgres = self.binary, self.postgres
        env = dict(os.environ)
        env.setdefault("QUESTLINE_SECRET_KEY", TEST_SECRET_KEY)  # required without demo data
        args = [binary, "serve", "--port", str(self.port), "--no-demo-data", "--no-rate-limits", "--log-level", "error",
                "--feed-url", f"http://127.0.0.1:{self.feed_port}/{{wiki}}/{{month}}/{{day}}", "--wiki-url", "none"]
        if postgres:
            env["DATABASE_URL"] = postgres
        else:
            env.pop("DATABASE_URL", None)
            args += ["--database", self.database]
        self.process = subprocess.Popen(args, stdout=open(self.log_path, "a"), stderr=subprocess.STDOUT, env=env)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.alive():
                return
            time.sleep(0.05)
        raise SystemExit("the server did not start; see " + self.log_path)

    def grant_admin(self, email):
        """The operator grants the administrator role (stored; signing up gives none)."""
        env = dict(os.environ)
        env.setdefault("QUESTLINE_SECRET_KEY", TEST_SECRET_KEY)  # required without demo data
        args = [self.binary, "admin", "grant", email]
        if self.postgres:
            env["DATABASE_URL"] = self.postgres
        else:
            env.pop("DATABASE_URL", None)
            args += ["--database", self.database]
        subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL)

    def alive(self):
        if self.process.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(self.url + "/health", timeout=5) as response:
                return response.status == 200
        except Exception:
            return False

    def restart_after_exit(self):
        """Counts an exit and starts the server again on the same data, so the sweep goes on."""
        self.exits += 1
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.start()

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Digest:
    """A digest of every table's rows, to tell whether a request wrote anything."""

    def __init__(self, server, postgres, schema):
        self.server, self.postgres, self.schema = server, postgres, schema
        if postgres:
            tables = self.psql(f"SELECT tablename FROM pg_tables WHERE schemaname = '{schema}' ORDER BY 1").split()
        else:
            self.db = sqlite3.connect(f"file:{server.database}?mode=ro", uri=True)
            tables = [r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY 1")]
        self.tables = [t for t in tables if t not in UNCHECKED_TABLES]

    def psql(self, sql):
        url = self.postgres.split("?")[0]
        out = subprocess.run(["psql", url, "-qAt", "-c", f"SET search_path TO {self.schema}; {sql}"],
                             check=True, capture_output=True, text=True)
        return out.stdout

    def take(self):
        if self.postgres:
            parts = " || ".join(
                f"coalesce((SELECT md5(string_agg(t::text, ',' ORDER BY t::text)) FROM {table} t), '-')" for table in self.tables)
            return self.psql(f"SELECT {parts}").strip()
        digest = hashlib.sha256()
        for table in self.tables:
            for row in sorted(repr(r) for r in self.db.execute(f"SELECT * FROM {table}")):
                digest.update(row.encode())
            digest.update(b"|")
        return digest.hexdigest()


class Client:
    def __init__(self, url):
        self.url = url

    def call(self, method, path, body=None, token=None, raw_body=None, content_type="application/json", timeout=30):
        data = raw_body if raw_body is not None else (json.dumps(body).encode() if body is not None else None)
        request = urllib.request.Request(self.url + "/api/v1" + path, method=method, data=data)
        if data is not None:
            request.add_header("Content-Type", content_type)
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def json(self, method, path, body=None, token=None):
        status, data = self.call(method, path, body, token)
        if status >= 300:
            raise SystemExit(f"set-up failed: {method} {path} answered {status}: {data[:300]!r}")
        return json.loads(data or b"null")


def setup(client, server):
    """A guardian (also administrator) with a household, a child with apps and a quest, a
    comment, a game session: the ids every path parameter needs."""
    guardian = client.json("POST", "/auth/signup", {"email": "sweep@example.com", "password": "sweep-password",
                                                   "displayName": "Sweep", "timeZone": "Europe/Berlin"})
    server.grant_admin("sweep@example.com")
    g = guardian["token"]
    household = client.json("POST", "/households", {"name": "Sweep"}, g)["id"]
    child = client.json("POST", f"/households/{household}/children",
                        {"username": "sweepkid", "password": "sweep-password", "displayName": "Kid"}, g)["id"]
    c = client.json("POST", "/auth/login", {"login": "sweepkid", "password": "sweep-password"})["token"]
    client.json("PUT", f"/children/{child}/apps/learn", {"name": "Learn", "role": "learning"}, g)
    client.json("PUT", f"/children/{child}/apps/play", {"name": "Play", "role": "reward"}, g)
    challenge = client.json("POST", f"/children/{child}/quests", {"title": "Learn", "goalType": "dailyMinutes", "target": 30}, g)
    stories = client.json("GET", "/stories", token=g)
    story = stories["stories"][0]["id"] if stories.get("stories") else "none"
    comment = client.json("POST", f"/stories/{story}/chapters/0/comments", {"text": "Nice"}, g)
    game = client.json("POST", "/game/sessions", {"language": "en"}, g)
    tasks = client.json("GET", "/points/tasks", token=g)
    cards = client.json("GET", "/shop/cards", token=g)
    campaigns = client.json("GET", "/reading/campaigns", token=g)
    catalog = client.json("GET", "/stories/catalog", token=g)
    return {"tokens": {"guardian": g, "child": c}, "ids": {
        "memberId": guardian["member"]["id"], "householdId": household, "childId": child,
        "challengeId": challenge["id"], "questId": challenge["id"], "sessionId": game["id"], "storyId": story, "chapter": 0, "page": 0,
        "commentId": comment["id"], "appToken": "learn",
        "taskId": (tasks.get("tasks") or [{"id": "none"}])[0]["id"],
        "cardId": (cards.get("cards") or [{"id": "none"}])[0]["id"],
        "campaignId": (campaigns.get("campaigns") or [{"id": "none"}])[0]["id"],
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "state": first_id(catalog, "states"), "track": first_id(catalog, "tracks"),
    }}


def first_id(document, key):
    items = document.get(key) or []
    if not items:
        return "none"
    item = items[0]
    return item.get("id") or item.get("code") or item.get("name") if isinstance(item, dict) else item


class Contract:
    def __init__(self, document):
        self.document = document
        self.schemas = document["components"]["schemas"]

    def resolve(self, node):
        while isinstance(node, dict) and "$ref" in node:
            parts = node["$ref"].lstrip("#/").split("/")
            target = self.document
            for part in parts:
                target = target[part]
            node = target
        return node

    def operations(self):
        for path, item in self.document["paths"].items():
            for method, op in item.items():
                if method in ("get", "post", "put", "patch", "delete"):
                    params = [self.resolve(p) for p in item.get("parameters", []) + op.get("parameters", [])]
                    yield method.upper(), path, op, params

    def example(self, schema, name=""):
        """A plausible valid value for a schema, chosen by the field's name where that matters."""
        schema = self.resolve(schema)
        for key in ("allOf", "oneOf", "anyOf"):
            if key in schema:
                return self.example(schema[key][0], name)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next(k for k in kind if k != "null")
        if "enum" in schema:
            return schema["enum"][0]
        if kind == "object" or "properties" in schema:
            return {k: self.example(v, k) for k, v in schema.get("properties", {}).items()
                    if k in schema.get("required", []) or True}
        if kind == "array":
            return [self.example(schema["items"], name)]
        if kind == "integer":
            return max(schema.get("minimum", 1), 1) if "maximum" not in schema else schema.get("minimum", 0)
        if kind == "number":
            return 1
        if kind == "boolean":
            return False
        return string_example(name, schema)


def string_example(name, schema):
    now = datetime.now(timezone.utc)
    if schema.get("format") == "date-time":
        if name in ("end",):
            return (now - timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        return (now - timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
    lowered = name.lower()
    if lowered.endswith("timezone"):
        return "Europe/Berlin"
    if lowered == "language":
        return "en"
    if lowered in ("date", "startdate", "startday") or lowered.endswith("date") or lowered.endswith("day"):
        return now.strftime("%Y-%m-%d")
    if lowered == "month":
        return now.strftime("%Y-%m")
    if lowered in ("email", "login"):
        return "someone@example.com"
    if lowered == "password":
        return "a-long-password"
    if lowered in ("windowstart",):
        return "08:00"
    if lowered in ("windowend",):
        return "20:00"
    if lowered in ("apptoken", "learningapps"):
        return "learn"
    if lowered == "thumbnailurl":
        return "https://upload.wikimedia.org/a.jpg"
    limit = schema.get("maxLength", 20)
    return ("sweep-" + name)[:max(1, min(limit, 40))] or "x"


def fill(value, ids):
    """Replaces `{name}` placeholders with the set-up's ids."""
    if isinstance(value, dict):
        return {k: fill(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, ids) for v in value]
    if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
        return ids.get(value[1:-1], value)
    return value


def merge(body, overrides):
    """The body with the given fields replaced; lists of objects are merged element-wise."""
    out = dict(body)
    for key, value in overrides.items():
        if isinstance(value, list) and value and isinstance(value[0], dict) and isinstance(out.get(key), list) and out[key]:
            out[key] = [merge(out[key][0], v) for v in value]
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def leaves(value, path=()):
    """Every scalar in a JSON value, with its path."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from leaves(inner, path + (key,))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from leaves(inner, path + (index,))
    else:
        yield path, value


def replaced(value, path, new):
    if not path:
        return new
    copy = json.loads(json.dumps(value))
    target = copy
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = new
    return copy


def boundary_values(name, schema, current):
    """The boundary values for a field, by its type and format."""
    schema = schema or {}
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind == "integer" or (kind is None and isinstance(current, int) and not isinstance(current, bool)):
        return INTEGERS
    if kind == "boolean" or isinstance(current, bool):
        return []
    values = list(STRINGS)
    lowered = name.lower()
    if schema.get("format") == "date-time":
        values += INSTANTS
    elif lowered == "month":
        values += MONTHS
    elif lowered in ("date",) or lowered.endswith("date") or lowered.endswith("day"):
        values += DAYS
    return values


def schema_at(contract, schema, path):
    node = contract.resolve(schema)
    for part in path:
        for key in ("allOf", "oneOf", "anyOf"):
            if key in node:
                node = contract.resolve(node[key][0])
        if isinstance(part, int):
            node = contract.resolve(node.get("items", {}))
        else:
            node = contract.resolve(node.get("properties", {}).get(part, {}))
    return node


def encode(value):
    """Percent-encodes a value; a lone surrogate goes out as its (ill-formed) UTF-8 bytes."""
    if isinstance(value, bool):
        value = "true" if value else "false"
    return urllib.parse.quote(str(value).encode("utf-8", "surrogatepass"), safe="")


def build_path(template, values):
    path = template
    for name, value in values.items():
        path = path.replace("{" + name + "}", encode(value))
    return path


def build_query(values):
    return "&".join(f"{encode(k)}={encode(v)}" for k, v in values.items())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--postgres", metavar="URL", help="a postgres:// URL; a fresh schema is created in that database")
    parser.add_argument("--verbose", action="store_true", help="print each operation's base status and each case's")
    options = parser.parse_args()

    workdir = tempfile.mkdtemp(prefix="questline-sweep-")
    postgres, schema = None, None
    if options.postgres:
        schema = f"sweep_{int(time.time())}"
        subprocess.run(["psql", options.postgres.split("?")[0], "-qc", f"CREATE SCHEMA {schema}"], check=True)
        postgres = options.postgres + ("&" if "?" in options.postgres else "?") + f"schema={schema}"
    server = Server(options.bin, workdir, postgres)
    started = time.time()
    findings, calls, refused, operations = [], 0, 0, 0
    accepted_writes = 0  # accepted requests whose write the digest saw: proof that it can see one
    try:
        client = Client(server.url)
        with urllib.request.urlopen(server.url + "/openapi.yaml") as response:
            contract = Contract(yaml.safe_load(response.read()))
        world = setup(client, server)
        digest = Digest(server, postgres, schema)
        before = digest.take()
        # Deleting operations go last: their base requests remove what the others need.
        for method, template, op, params in sorted(contract.operations(), key=lambda o: (o[0] == "DELETE" or o[2]["operationId"] == "logOut")):
            operation = op["operationId"]
            if operation in SKIPPED:
                continue
            operations += 1
            path_values = {p["name"]: world["ids"].get(p["name"], "x") for p in params if p["in"] == "path"}
            query = {p["name"]: contract.example(p.get("schema", {}), p["name"]) for p in params if p["in"] == "query"}
            body_schema = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            body = contract.example(body_schema) if body_schema else None
            base = fill(BASE.get(operation, {}), world["ids"])
            query.update(base.get("query", {}))
            if body is not None:
                body = merge(body, base.get("body", {}))
            # Guardians are refused a child's own operations (spending points): those run as the child.
            status, base_data = client.call(method, build_path(template, path_values) + "?" + build_query(query),
                                    body, world["tokens"]["guardian"]) if operation != "logOut" else (0, b"")
            token = world["tokens"]["child"] if status == 403 else world["tokens"]["guardian"]
            if options.verbose:
                print(f"{operation}: base request {status} {base_data[:300]!r}")
            before = digest.take()
            cases = []
            for name, value in path_values.items():
                schema_ = next(p.get("schema", {}) for p in params if p["name"] == name)
                for new in boundary_values(name, schema_, value):
                    cases.append((f"path {name}={describe(new)}", {**path_values, name: new}, query, body))
            for name, value in query.items():
                schema_ = next(p.get("schema", {}) for p in params if p["name"] == name)
                for new in boundary_values(name, schema_, value):
                    cases.append((f"query {name}={describe(new)}", path_values, {**query, name: new}, body))
            if body is not None:
                for path, value in leaves(body):
                    name = next((p for p in reversed(path) if isinstance(p, str)), "")
                    for new in boundary_values(name, schema_at(contract, body_schema, path), value):
                        field = ".".join(str(p) for p in path)
                        cases.append((f"body {field}={describe(new)}", path_values, query, replaced(body, path, new)))
            for label, p_values, q_values, b in cases:
                url = build_path(template, p_values)
                if q_values:
                    url += "?" + build_query(q_values)
                try:
                    status, data = client.call(method, url, b, token)
                except Exception as error:  # a dropped connection is a crash of the request
                    status, data = 599, repr(error).encode()
                calls += 1
                where = f"{operation} {label}"
                if options.verbose:
                    print(f"  {where}: {status} {data[:120]!r}")
                if status >= 500:
                    findings.append(f"{where}: {status} {data[:200]!r}")
                if not server.alive():
                    findings.append(f"{where}: the server is down after this request (exit status {server.process.poll()})")
                    server.restart_after_exit()
                after = digest.take()
                if 400 <= status < 500:
                    refused += 1
                    if after != before:
                        findings.append(f"{where}: refused with {status} but the database changed")
                elif status < 300 and after != before:
                    accepted_writes += 1
                before = after
        if accepted_writes == 0:
            findings.append("no accepted request changed the database digest: the digest cannot see writes")
        print(report(findings, calls, refused, operations, started, server.exits))
        return 1 if findings else 0
    finally:
        server.stop()


def describe(value):
    text = json.dumps(value)
    return text if len(text) <= 24 else text[:12] + f"…({len(text)} chars)"


def report(findings, calls, refused, operations, started, exits):
    lines = [f"sweep: {f}" for f in findings]
    fivexx = sum(1 for f in findings if ": 5" in f)
    lines.append(f"Sweep: {calls} boundary requests over {operations} operations in {time.time() - started:.0f} s: "
                 f"{refused} refused (4xx), {fivexx} answered 5xx or not at all, the server exited {exits} times; "
                 f"{len(findings)} findings.")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
