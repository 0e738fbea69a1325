#!/usr/bin/env python3
"""Webhooks against a local receiver, on SQLite (one instance) and on PostgreSQL (two
instances). The receiver checks every delivery's Questline-Signature with the endpoint's
secret and drops duplicates by event id, as the contract tells receivers to. Checks:

  1. an administrator registers an endpoint; the secret is shown once;
  2. with the receiver down (503), deliveries fail and are retried with backoff, and land
     once it is up: every event arrives, signed;
  3. with two instances, each event reaches the receiver (duplicates, if any, are dropped by
     id; the figure is printed);
  4. the delivery log shows attempts and states; a replay sends a delivery again (a duplicate
     id the receiver drops); deleting the endpoint stops deliveries.

    python3 scripts/webhooks.py --bin .build/debug/questline [--postgres URL]
"""
import argparse
import hashlib
import hmac
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# The server's secret key for these throwaway servers (a real one comes from `questline secrets new-key`).
TEST_SECRET_KEY = "0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0"

failures = []


def check(condition, message):
    print(("  ok   " if condition else "  FAIL ") + message, flush=True)
    if not condition:
        failures.append(message)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Receiver:
    def __init__(self):
        self.secret = None
        self.up = False
        self.lock = threading.Lock()
        self.events = {}  # id -> type
        self.received = 0
        self.refused = 0
        self.bad_signatures = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with receiver.lock:
                    if not receiver.up:
                        receiver.refused += 1
                        self.send_response(503)
                        self.end_headers()
                        return
                    receiver.received += 1
                    header = self.headers.get("Questline-Signature", "")
                    parts = dict(p.split("=", 1) for p in header.split(",") if "=" in p)
                    expected = hmac.new(receiver.secret.encode(), f"{parts.get('t', '')}.".encode() + body,
                                        hashlib.sha256).hexdigest()
                    fresh = abs(time.time() - int(parts.get("t", "0"))) < 300
                    if not (fresh and hmac.compare_digest(expected, parts.get("v1", ""))):
                        receiver.bad_signatures += 1
                        self.send_response(400)
                        self.end_headers()
                        return
                    event = json.loads(body)
                    receiver.events.setdefault(event["id"], event["type"])  # duplicates dropped by id
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"


def call(port, method, path, body=None, token=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                     data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Content-Type": "application/json"})
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def grant(binary, email, database, postgres):
    """The operator grants the administrator role (a stored role; signing up gives none)."""
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.setdefault("QUESTLINE_SECRET_KEY", TEST_SECRET_KEY)  # required without demo data
    args = [binary, "admin", "grant", email]
    if postgres:
        env["DATABASE_URL"] = postgres
    else:
        args += ["--database", database]
    subprocess.run(args, env=env, check=True, stdout=subprocess.DEVNULL)


def start(binary, workdir, name, database, postgres):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.setdefault("QUESTLINE_SECRET_KEY", TEST_SECRET_KEY)  # required without demo data
    args = [binary, "serve", "--port", str(port), "--no-demo-data", "--no-rate-limits", "--feed-url", "none", "--wiki-url", "none",
            "--log-level", "warning", "--webhook-retry-seconds", "1",
            "--webhook-allow-private"]  # the receiver is on loopback, over plain http
    if postgres:
        env["DATABASE_URL"] = postgres
    else:
        args += ["--database", database]
    process = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL,
                               stderr=open(os.path.join(workdir, f"{name}.log"), "a"))
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/ready", timeout=1)
            return process, port
        except Exception:
            time.sleep(0.1)
    sys.exit(f"instance {name} did not start; see {workdir}")


def run(binary, postgres, workdir):
    label = "PostgreSQL, two instances" if postgres else "SQLite, one instance"
    print(f"Webhooks on {label}", flush=True)
    database = os.path.join(workdir, "hooks.sqlite")
    instances = [start(binary, workdir, "a", database, postgres)]
    if postgres:
        instances.append(start(binary, workdir, "b", database, postgres))
    ports = [port for _, port in instances]
    receiver = Receiver()
    try:
        _, admin = call(ports[0], "POST", "/api/v1/auth/signup", {
            "email": "hooks-admin@example.com", "password": "hooks-password", "displayName": "Admin", "timeZone": "UTC"})
        a = admin["token"]
        grant(binary, "hooks-admin@example.com", database, postgres)
        status, endpoint = call(ports[0], "POST", "/api/v1/admin/webhooks", {
            "url": receiver.url, "events": ["points.changed", "quest.completed", "reward.unlocked", "badge.awarded"],
            "description": "test receiver"}, a)
        check(status == 201 and endpoint["secret"].startswith("whsec_"), f"endpoint registered ({status}), secret shown once")
        receiver.secret = endpoint["secret"]
        listed = call(ports[0], "GET", "/api/v1/admin/webhooks", token=a)[1]
        check(len(listed) == 1 and "secret" not in listed[0], "the list does not show the secret")

        _, household = call(ports[0], "POST", "/api/v1/households", {"name": "Hooks"}, a)
        _, child = call(ports[-1], "POST", f"/api/v1/households/{household['id']}/children",
                        {"username": "hookkid", "password": "hook-password", "displayName": "Kid"}, a)
        writes = 20
        for n in range(writes):
            status, _ = call(ports[n % len(ports)], "POST", f"/api/v1/children/{child['id']}/adjustments",
                             {"points": 5, "reason": f"hook-{n}"}, a)
            if status != 201:
                check(False, f"adjustment {n} answered {status}")
        # The receiver is down for 3 s: the first attempts fail and are retried (1 s, 2 s, ...).
        time.sleep(3)
        refused = receiver.refused
        receiver.up = True
        deadline = time.time() + 40
        while time.time() < deadline:
            with receiver.lock:
                if len(receiver.events) >= writes:
                    break
            time.sleep(0.2)
        with receiver.lock:
            distinct, received, bad = len(receiver.events), receiver.received, receiver.bad_signatures
            kinds = set(receiver.events.values())
        check(refused > 0, f"while the receiver was down, {refused} attempts were refused (503)")
        check(distinct == writes and kinds == {"points.changed"},
              f"every event landed once up: {distinct} of {writes} points.changed events")
        check(bad == 0, f"every delivery carried a valid signature ({received} received, {bad} bad)")
        print(f"  figure: {received} deliveries received for {distinct} events "
              f"({received - distinct} duplicates dropped by id)", flush=True)

        # The receiver counts a delivery before it answers; the sender records "delivered" only
        # after the answer arrives, so the log may trail the receiver by a moment.
        deadline = time.time() + 15
        while True:
            status, log = call(ports[0], "GET", f"/api/v1/admin/webhooks/{endpoint['id']}/deliveries?limit=200",
                               token=a)
            delivered = [d for d in log if d["state"] == "delivered"] if status == 200 else []
            if len(delivered) >= writes or time.time() >= deadline:
                break
            time.sleep(0.2)
        retried = [d for d in log if d["attempts"] > 1]
        check(status == 200 and len(delivered) == writes, f"the delivery log shows {len(delivered)} delivered")
        check(len(retried) > 0, f"{len(retried)} deliveries needed more than one attempt")
        before = receiver.received
        status, replayed = call(ports[-1], "POST", f"/api/v1/admin/webhook-deliveries/{log[0]['id']}/replay", token=a)
        deadline = time.time() + 15
        while time.time() < deadline and receiver.received == before:
            time.sleep(0.2)
        check(status == 200 and receiver.received == before + 1 and len(receiver.events) == writes,
              "a replay sends the delivery again; the receiver drops it by id")

        status, _ = call(ports[0], "DELETE", f"/api/v1/admin/webhooks/{endpoint['id']}", token=a)
        call(ports[0], "POST", f"/api/v1/children/{child['id']}/adjustments", {"points": 5, "reason": "after"}, a)
        time.sleep(2)
        check(status == 204 and len(receiver.events) == writes, "after deleting the endpoint nothing more is sent")
    finally:
        for process, _ in instances:
            process.send_signal(signal.SIGTERM)
            process.wait(20)
        receiver.server.shutdown()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--postgres", metavar="URL")
    options = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="questline-webhooks-")
    run(options.bin, None, workdir)
    if options.postgres:
        schema = f"hooks_{int(time.time())}"
        base = options.postgres.split("?")[0]
        subprocess.run(["psql", base, "-qc", f"CREATE SCHEMA {schema}"], check=True)
        try:
            run(options.bin, options.postgres + ("&" if "?" in options.postgres else "?") + f"schema={schema}", workdir)
        finally:
            subprocess.run(["psql", base, "-qc", f"DROP SCHEMA {schema} CASCADE"], capture_output=True)
    if failures:
        print(f"FAILED ({len(failures)}); logs in {workdir}")
        sys.exit(1)
    print("Webhooks: signed, retried while the receiver was down, delivered, replayed and stopped, on every database.")


if __name__ == "__main__":
    main()
