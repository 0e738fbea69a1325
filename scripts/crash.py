#!/usr/bin/env python3
"""Crash safety: runs the server under write load, kills it with SIGKILL at random moments,
restarts it on the same data, and checks that every write that got a 2xx is there and that the
store is consistent (SQLite's integrity check; ledger sums equal balances and balance_after
never negative; per-day reading summaries match the events).

    python3 scripts/crash.py                      # SQLite, 20 kills
    python3 scripts/crash.py --postgres URL       # PostgreSQL (a fresh schema in that database)
    python3 scripts/crash.py --kills 5 --bin .build/debug/questline

Writers: reads (one per request), usage reports of a child (one per request) and point
adjustments (with an Idempotency-Key). Prints what it checked; exits 1 on any loss.
"""
import argparse
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import http.client
import urllib.error
import urllib.request
from datetime import datetime, timedelta, timezone

# The server's secret key for these throwaway servers (a real one comes from `questline secrets new-key`).
TEST_SECRET_KEY = "0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, binary, database, postgres, workdir):
        self.binary, self.database, self.postgres, self.workdir = binary, database, postgres, workdir
        self.port = free_port()
        self.process = None

    def start(self):
        env = dict(os.environ)
        env.setdefault("QUESTLINE_SECRET_KEY", TEST_SECRET_KEY)  # required without demo data
        args = [self.binary, "serve", "--port", str(self.port), "--no-demo-data", "--no-rate-limits", "--feed-url", "none", "--wiki-url", "none",
                "--log-level", "error"]
        if self.postgres:
            env["DATABASE_URL"] = self.postgres
        else:
            env.pop("DATABASE_URL", None)
            args += ["--database", self.database]
        log = open(os.path.join(self.workdir, "server.log"), "a")
        self.process = subprocess.Popen(args, stdout=log, stderr=log, env=env)
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=1).read()
                return
            except Exception:
                time.sleep(0.05)
        raise SystemExit("the server did not start; see " + os.path.join(self.workdir, "server.log"))

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()


def call(port, method, path, body=None, token=None, key=None, timeout=5):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                     data=json.dumps(body).encode() if body is not None else None)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    if key:
        request.add_header("Idempotency-Key", key)
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return response.status, json.loads(response.read() or b"null")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.environ.get("QUESTLINE_BIN", ".build/debug/questline"))
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--writers", type=int, default=6)
    parser.add_argument("--postgres", metavar="URL", help="a postgres:// URL; a fresh schema is created in that database")
    options = parser.parse_args()

    workdir = tempfile.mkdtemp(prefix="questline-crash-")
    postgres = None
    if options.postgres:
        schema = f"crash_{int(time.time())}"
        subprocess.run(["psql", options.postgres.split("?")[0], "-qc", f"CREATE SCHEMA {schema}"], check=True)
        postgres = options.postgres + ("&" if "?" in options.postgres else "?") + f"schema={schema}"
    server = Server(options.bin, os.path.join(workdir, "crash.sqlite"), postgres, workdir)
    server.start()
    port = server.port

    # The members: a reader, a guardian with a child who has a learning app and a quest.
    _, reader = call(port, "POST", "/api/v1/auth/signup", {"email": "crash-reader@example.com", "password": "crash-password",
                                                            "displayName": "Reader", "timeZone": "Europe/Berlin"})
    _, guardian = call(port, "POST", "/api/v1/auth/signup", {"email": "crash-guardian@example.com", "password": "crash-password",
                                                              "displayName": "Guardian", "timeZone": "Europe/Berlin"})
    g = guardian["token"]
    _, household = call(port, "POST", "/api/v1/households", {"name": "Crash"}, g)
    _, child = call(port, "POST", f"/api/v1/households/{household['id']}/children",
                    {"username": "crashkid", "password": "crash-password", "displayName": "Kid"}, g)
    child_id = child["id"]
    call(port, "PUT", f"/api/v1/children/{child_id}/apps/learn", {"name": "Learn", "role": "learning", "pointsPerMinute": 1}, g)
    call(port, "POST", f"/api/v1/children/{child_id}/quests", {"title": "Learn", "goalType": "weeklyMinutes", "target": 10000}, g)
    _, child_session = call(port, "POST", "/api/v1/auth/login", {"login": "crashkid", "password": "crash-password"})
    r, c = reader["token"], child_session["token"]

    acked = {"read": set(), "usage": set(), "adjust": set()}
    lock = threading.Lock()
    stop = threading.Event()
    counter = [0]

    def next_id():
        with lock:
            counter[0] += 1
            return counter[0]

    def writer(kind):
        while not stop.is_set():
            n = next_id()
            now = datetime.now(timezone.utc)
            try:
                if kind == "read":
                    status, _ = call(port, "POST", "/api/v1/reading/reads", {
                        "eventId": f"crash-{n}", "articleId": f"Article_{n % 300}", "title": f"Article {n % 300}", "language": "en",
                        "at": (now - timedelta(minutes=n % 600)).strftime("%Y-%m-%dT%H:%M:%SZ"), "timeZone": "Europe/Berlin"}, r)
                elif kind == "usage":
                    start = now - timedelta(seconds=300 + (n % 3000) * 60)
                    status, _ = call(port, "POST", f"/api/v1/children/{child_id}/usage", {"reports": [{
                        "id": f"crash-{n}", "appToken": "learn", "startedAt": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
                        "durationSeconds": 45, "timeZone": "Europe/Berlin"}]}, c)
                else:
                    status, _ = call(port, "POST", f"/api/v1/children/{child_id}/adjustments",
                                     {"points": 1, "reason": f"crash-{n}"}, g, key=f"crash-{n}")
                if 200 <= status < 300:
                    with lock:
                        acked[kind].add(f"crash-{n}")
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError, http.client.HTTPException, ValueError):
                # The server is down, or its answer was cut off by the kill (IncompleteRead,
                # RemoteDisconnected, a body cut short): unacknowledged, so try again with a new write.
                time.sleep(0.02)

    kinds = ["read", "usage", "adjust"]
    threads = [threading.Thread(target=writer, args=(kinds[i % 3],), daemon=True) for i in range(options.writers)]
    for thread in threads:
        thread.start()
    rng = random.Random(20261122)
    for kill in range(options.kills):
        time.sleep(rng.uniform(0.3, 1.5))
        server.kill()
        alive = sum(thread.is_alive() for thread in threads)
        print(f"kill {kill + 1}/{options.kills}: acknowledged so far {sum(len(v) for v in acked.values())}, "
              f"writers alive {alive}/{len(threads)}", flush=True)
        if alive < len(threads):
            # A writer that died would leave the later kills with less load than they claim.
            sys.exit(f"FAIL: {len(threads) - alive} writer(s) died before kill {kill + 1}")
        time.sleep(rng.uniform(0.0, 0.3))
        server.start()
    time.sleep(0.5)
    stop.set()
    for thread in threads:
        thread.join()
    server.kill()

    failures = []
    if postgres:
        def query(sql):
            out = subprocess.run(["psql", options.postgres.split("?")[0], "-qAt", "-c", f"SET search_path TO {schema}; {sql}"],
                                 check=True, capture_output=True, text=True).stdout.strip().splitlines()
            return [line.split("|") for line in out if line]
        integrity = "ok (PostgreSQL)"
    else:
        db = sqlite3.connect(server.database)

        def query(sql):
            return [[str(v) for v in row] for row in db.execute(sql).fetchall()]
        integrity = query("PRAGMA integrity_check")[0][0]
        if integrity != "ok":
            failures.append(f"integrity_check: {integrity}")
    stored_reads = {row[0] for row in query("SELECT event_id FROM reading_events")}
    stored_usage = {row[0] for row in query("SELECT report_id FROM usage_reports")}
    stored_adjust = [row[0] for row in query("SELECT reason FROM points_ledger WHERE kind = 'adjust'")]
    missing = {"read": acked["read"] - stored_reads, "usage": acked["usage"] - stored_usage,
               "adjust": acked["adjust"] - set(stored_adjust)}
    for kind, ids in missing.items():
        if ids:
            failures.append(f"{len(ids)} acknowledged {kind} writes missing, e.g. {sorted(ids)[:3]}")
    if len(stored_adjust) != len(set(stored_adjust)):
        failures.append("an adjustment was applied twice")
    for child_row, balance, total in query(
            "SELECT b.member_id, b.balance, COALESCE(SUM(l.points), 0) FROM points_balances b LEFT JOIN points_ledger l ON l.member_id = b.member_id GROUP BY b.member_id, b.balance"):
        if int(balance) != int(total):
            failures.append(f"ledger of {child_row} sums to {total}, balance is {balance}")
    if query("SELECT COUNT(*) FROM points_ledger WHERE balance_after < 0")[0][0] != "0":
        failures.append("a ledger entry left the balance negative")
    mismatched = query("""SELECT d.owner, d.local_day FROM reading_days d
                          LEFT JOIN (SELECT owner, local_day, COUNT(*) AS n FROM reading_events GROUP BY owner, local_day) e
                          ON e.owner = d.owner AND e.local_day = d.local_day WHERE e.n IS NULL""")
    if mismatched:
        failures.append(f"{len(mismatched)} reading-day summaries without events")

    checked = sum(len(v) for v in acked.values())
    print(f"Kills survived: {options.kills}; acknowledged writes checked: {checked} "
          f"(reads {len(acked['read'])}, usage reports {len(acked['usage'])}, adjustments {len(acked['adjust'])}); "
          f"integrity: {integrity}; ledger sums match balances: {'yes' if not any('ledger' in f for f in failures) else 'no'}")
    if failures:
        print("FAILED:\n  " + "\n  ".join(failures))
        print("server log: " + os.path.join(workdir, "server.log"))
        sys.exit(1)
    print("Crash safety: every acknowledged write is present; the store is consistent.")


if __name__ == "__main__":
    main()
