#!/usr/bin/env python3
"""Two instances on one PostgreSQL behind nginx (deploy/nginx.conf's settings), as an operator
runs them. Checks, and prints the figures of:

  1. start-up: both instances start at once on an empty database, demo data included;
  2. live events: a subscriber on instance A gets every event written through instance B
     (1,000 events), across a reconnect with Last-Event-ID, none lost, none repeated;
  3. idempotency: the same Idempotency-Key sent to both instances at once is applied once;
  4. a fault between a write's commit and its response (the database refuses to store A's
     answer): the retry through B applies nothing twice;
  5. SIGKILL of one instance under write load through nginx: every acknowledged write is
     stored once, none twice;
  6. limits: login failures spread over both instances lock the account at the same count as
     on one; login attempts per client address (from X-Forwarded-For through the trusted proxy)
     count once across both.

    python3 scripts/multi.py --bin .build/debug/questline --postgres postgres://...

Needs nginx (scripts/test.sh installs it from the system's packages). Exits 1 on any failure.
"""
import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

failures = []


def check(condition, message):
    print(("  ok   " if condition else "  FAIL ") + message, flush=True)
    if not condition:
        failures.append(message)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Ports served over TLS (nginx, with a certificate made for the run).
TLS_PORTS = set()
UNVERIFIED = ssl.create_default_context()
UNVERIFIED.check_hostname = False
UNVERIFIED.verify_mode = ssl.CERT_NONE


def base(port):
    return f"https://127.0.0.1:{port}" if port in TLS_PORTS else f"http://127.0.0.1:{port}"


def call(port, method, path, body=None, token=None, headers=None, timeout=10):
    """(status, parsed body, headers); HTTP errors are answers too."""
    request = urllib.request.Request(f"{base(port)}{path}", method=method,
                                     data=json.dumps(body).encode() if body is not None else None)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout, context=UNVERIFIED) as response:
            return response.status, json.loads(response.read() or b"null"), response.headers
    except urllib.error.HTTPError as error:
        raw = error.read()
        try:
            parsed = json.loads(raw or b"null")
        except ValueError:
            parsed = raw.decode(errors="replace")
        return error.code, parsed, error.headers


class Instance:
    def __init__(self, name, binary, url, workdir, limits):
        self.name, self.binary, self.url, self.workdir, self.limits = name, binary, url, workdir, limits
        self.port = free_port()
        self.process = None

    def start(self, wait=True):
        env = dict(os.environ, DATABASE_URL=self.url)
        args = [self.binary, "serve", "--port", str(self.port), "--feed-url", "none", "--wiki-url", "none", "--log-level", "warning",
                "--trusted-proxy", "127.0.0.1", "--db-pool-size", "8"]
        if not self.limits:
            args.append("--no-rate-limits")
        log = open(os.path.join(self.workdir, f"{self.name}.log"), "a")
        self.process = subprocess.Popen(args, stdout=log, stderr=log, env=env)
        if wait:
            self.wait_ready()

    def wait_ready(self, timeout=90):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"instance {self.name} exited; see {self.workdir}/{self.name}.log")
            try:
                if urllib.request.urlopen(f"http://127.0.0.1:{self.port}/ready", timeout=1).status == 200:
                    return
            except Exception:
                time.sleep(0.1)
        raise SystemExit(f"instance {self.name} did not become ready")

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        if self.process:
            self.process.wait()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


class Nginx:
    """nginx in the foreground as this user, load balancing the instances round robin, with the
    settings of deploy/nginx.conf."""

    def __init__(self, workdir, instances):
        self.port = free_port()
        self.dir = os.path.join(workdir, "nginx")
        os.makedirs(os.path.join(self.dir, "logs"), exist_ok=True)
        servers = "\n".join(f"        server 127.0.0.1:{i.port};" for i in instances)
        template = open(os.path.join(os.path.dirname(__file__), "..", "deploy", "nginx.conf")).read()
        # A self-signed certificate for this run (the deployment's own in production).
        cert, key = os.path.join(self.dir, "cert.pem"), os.path.join(self.dir, "key.pem")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                        "/CN=127.0.0.1", "-keyout", key, "-out", cert], check=True, capture_output=True)
        site = (template.split("# --- site ---")[1].replace("UPSTREAMS", servers).replace("CERT_KEY", key)
                .replace("CERT", cert).replace("LISTEN", str(self.port)))
        TLS_PORTS.add(self.port)
        config = f"""
daemon off;
worker_processes 1;
pid {self.dir}/nginx.pid;
error_log {self.dir}/logs/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {self.dir}/body;
    proxy_temp_path {self.dir}/proxy;
    fastcgi_temp_path {self.dir}/fastcgi;
    uwsgi_temp_path {self.dir}/uwsgi;
    scgi_temp_path {self.dir}/scgi;
{site}
}}
"""
        with open(os.path.join(self.dir, "nginx.conf"), "w") as f:
            f.write(config)
        binary = shutil.which("nginx") or "/usr/sbin/nginx"
        self.process = subprocess.Popen([binary, "-p", self.dir, "-c", os.path.join(self.dir, "nginx.conf")],
                                        stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.dir, "logs", "stderr"), "w"))
        deadline = time.time() + 15
        while time.time() < deadline:
            try:
                urllib.request.urlopen(f"https://127.0.0.1:{self.port}/health", timeout=1, context=UNVERIFIED)
                break
            except Exception:
                time.sleep(0.1)
        else:
            raise SystemExit("nginx did not start; see " + self.dir)
        # HTTP/2: the protocol that lets one browser connection carry every live stream.
        version = subprocess.run(["curl", "-sk", "--http2", "-o", "/dev/null", "-w", "%{http_version}",
                                  f"https://127.0.0.1:{self.port}/health"], capture_output=True, text=True).stdout
        if version != "2":
            raise SystemExit(f"nginx does not answer over HTTP/2 (curl saw HTTP/{version})")
        print("nginx serves HTTP/2 over TLS", flush=True)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait()


class Subscriber(threading.Thread):
    """Reads a household's event stream, recording event ids; reconnects with Last-Event-ID."""

    def __init__(self, port, household, token):
        super().__init__(daemon=True)
        self.port, self.household, self.token = port, household, token
        self.ids = []
        self.kinds = []
        self.connected = threading.Event()
        self.stop = threading.Event()
        self.pause = threading.Event()  # set: disconnect and stay away until cleared
        self.reconnects = 0

    def run(self):
        while not self.stop.is_set():
            if self.pause.is_set():
                time.sleep(0.05)
                continue
            connection = (http.client.HTTPSConnection("127.0.0.1", self.port, timeout=30, context=UNVERIFIED)
                          if self.port in TLS_PORTS else http.client.HTTPConnection("127.0.0.1", self.port, timeout=30))
            headers = {"Authorization": f"Bearer {self.token}", "Accept": "text/event-stream"}
            if self.ids:
                headers["Last-Event-ID"] = str(self.ids[-1])
                self.reconnects += 1
            connection.request("GET", f"/api/v1/households/{self.household}/events", headers=headers)
            response = connection.getresponse()
            self.connected.set()
            event_id, data = None, None
            while not self.stop.is_set() and not self.pause.is_set():
                line = response.readline()
                if not line:
                    break
                line = line.decode().rstrip("\n")
                if line.startswith("id:"):
                    event_id = int(line[3:].strip())
                elif line.startswith("data:"):
                    data = json.loads(line[5:].strip())
                elif line == "":
                    if data is not None:
                        self.kinds.append(data.get("kind"))
                        if event_id is not None:
                            self.ids.append(event_id)
                    event_id, data = None, None
            connection.close()
            self.connected.clear()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--postgres", required=True, metavar="URL")
    parser.add_argument("--events", type=int, default=1000)
    options = parser.parse_args()
    if not shutil.which("nginx") and not os.path.exists("/usr/sbin/nginx"):
        sys.exit("nginx is not installed (scripts/test.sh installs it)")

    workdir = tempfile.mkdtemp(prefix="questline-multi-")
    schema = f"multi_{int(time.time())}"
    base = options.postgres.split("?")[0]
    subprocess.run(["psql", base, "-qc", f"CREATE SCHEMA {schema}"], check=True)
    url = options.postgres + ("&" if "?" in options.postgres else "?") + f"schema={schema}"

    def query(sql):
        out = subprocess.run(["psql", base, "-qAt", "-c", f"SET search_path TO {schema}; {sql}"],
                             check=True, capture_output=True, text=True).stdout.strip().splitlines()
        return [line.split("|") for line in out if line]

    a = Instance("a", options.bin, url, workdir, limits=False)
    b = Instance("b", options.bin, url, workdir, limits=False)
    nginx = None
    try:
        print("1. Start-up: two instances at once on an empty database, with demo data", flush=True)
        started = time.time()
        a.start(wait=False)
        b.start(wait=False)
        a.wait_ready()
        b.wait_ready()
        check(True, f"both ready in {time.time() - started:.1f} s")
        demo = query("SELECT COUNT(*) FROM members")[0][0]
        check(int(demo) > 0, f"demo data created once: {demo} members")
        nginx = Nginx(workdir, [a, b])

        _, guardian, _ = call(a.port, "POST", "/api/v1/auth/signup", {
            "email": "multi@example.com", "password": "multi-password", "displayName": "Multi", "timeZone": "Europe/Berlin"})
        g = guardian["token"]
        _, household, _ = call(b.port, "POST", "/api/v1/households", {"name": "Multi"}, g)
        _, child, _ = call(a.port, "POST", f"/api/v1/households/{household['id']}/children",
                           {"username": "multikid", "password": "multi-password", "displayName": "Kid"}, g)
        child_id = child["id"]

        print(f"2. Live events: subscribed on A, {options.events} writes through B, a reconnect halfway", flush=True)
        subscriber = Subscriber(a.port, household["id"], g)
        subscriber.start()
        subscriber.connected.wait(10)
        time.sleep(0.3)
        started = time.time()

        def adjust(n, port=b.port):
            return call(port, "POST", f"/api/v1/children/{child_id}/adjustments",
                        {"points": 1, "reason": f"event-{n}"}, g, {"Idempotency-Key": f"event-{n}"})[0]

        half = options.events // 2
        with ThreadPoolExecutor(8) as pool:
            statuses = list(pool.map(adjust, range(half)))
            subscriber.pause.set()  # the device goes away while writes go on
            statuses += list(pool.map(adjust, range(half, half + options.events // 5)))
            subscriber.pause.clear()
            statuses += list(pool.map(adjust, range(half + options.events // 5, options.events)))
        written = time.time() - started
        check(all(s == 201 for s in statuses), f"{options.events} adjustments written through B in {written:.1f} s")
        deadline = time.time() + 30
        while len(set(subscriber.ids)) < options.events and time.time() < deadline:
            time.sleep(0.1)
        subscriber.stop.set()
        ids = subscriber.ids
        check(len(set(ids)) == options.events,
              f"events received on A: {len(set(ids))} of {options.events} (lost {options.events - len(set(ids))}), "
              f"{subscriber.reconnects} reconnect(s) with Last-Event-ID")
        check(len(ids) == len(set(ids)) and ids == sorted(ids), f"no event repeated, in order ({len(ids)} delivered)")

        print("3. The same Idempotency-Key sent to both instances at once", flush=True)
        rounds, doubled = 20, 0
        for n in range(rounds):
            barrier = threading.Barrier(2)
            results = []

            def send(port, n=n, barrier=barrier, results=results):
                barrier.wait()
                results.append(call(port, "POST", f"/api/v1/children/{child_id}/adjustments",
                                    {"points": 1, "reason": f"race-{n}"}, g, {"Idempotency-Key": f"race-{n}"})[0])
            threads = [threading.Thread(target=send, args=(port,)) for port in (a.port, b.port)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            if int(query(f"SELECT COUNT(*) FROM points_ledger WHERE reason = 'race-{n}'")[0][0]) != 1:
                doubled += 1
        check(doubled == 0, f"{rounds} keys sent to A and B at once: each applied once ({doubled} twice)")

        print("4. A fault between a write's commit and its response", flush=True)
        # The fault comes from the database, as a real one would: storing the response of key
        # fault-1 fails (a trigger), after the write and its key's `applied` mark committed.
        query("CREATE FUNCTION refuse_stored_response() RETURNS trigger LANGUAGE plpgsql AS "
              "$$ BEGIN RAISE EXCEPTION 'injected fault: the response is not stored'; END $$; "
              "CREATE TRIGGER refuse_stored_response BEFORE UPDATE ON idempotency_claims FOR EACH ROW "
              "WHEN (NEW.idem_key = 'fault-1' AND NEW.state = 'done') EXECUTE FUNCTION refuse_stored_response()")
        status, _, _ = call(a.port, "POST", f"/api/v1/children/{child_id}/adjustments",
                            {"points": 1, "reason": "fault-1"}, g, {"Idempotency-Key": "fault-1"})
        check(status == 500, f"A cannot store its answer after the commit and says so ({status})")
        query("DROP TRIGGER refuse_stored_response ON idempotency_claims; DROP FUNCTION refuse_stored_response()")
        status, body, _ = call(b.port, "POST", f"/api/v1/children/{child_id}/adjustments",
                               {"points": 1, "reason": "fault-1"}, g, {"Idempotency-Key": "fault-1"})
        stored = int(query("SELECT COUNT(*) FROM points_ledger WHERE reason = 'fault-1'")[0][0])
        check(status == 409 and isinstance(body, dict) and body.get("type", "").endswith("idempotency-applied"),
              f"the retry through B is told the write was applied ({status})")
        check(stored == 1, f"the write is stored once ({stored})")

        print("5. SIGKILL of one instance under write load through nginx", flush=True)
        acked, attempts, lock, stop = set(), [0], threading.Lock(), threading.Event()
        counter = [0]

        def writer():
            while not stop.is_set():
                with lock:
                    counter[0] += 1
                    n = counter[0]
                for _ in range(50):  # retry the same write (same key) until acknowledged
                    with lock:
                        attempts[0] += 1
                    try:
                        status = call(nginx.port, "POST", f"/api/v1/children/{child_id}/adjustments",
                                      {"points": 1, "reason": f"kill-{n}"}, g, {"Idempotency-Key": f"kill-{n}"},
                                      timeout=5)[0]
                    except (ConnectionError, http.client.HTTPException, urllib.error.URLError, OSError):
                        status = 0
                    if status == 201:
                        with lock:
                            acked.add(f"kill-{n}")
                        break
                    time.sleep(0.05)
        threads = [threading.Thread(target=writer, daemon=True) for _ in range(6)]
        for t in threads:
            t.start()
        time.sleep(2)
        a.kill()
        time.sleep(2)
        a.start()
        time.sleep(1.5)
        stop.set()
        for t in threads:
            t.join()
        reasons = [row[0] for row in query("SELECT reason FROM points_ledger WHERE reason LIKE 'kill-%'")]
        check(acked <= set(reasons), f"acknowledged writes stored: {len(acked & set(reasons))} of {len(acked)} "
                                     f"({attempts[0]} attempts)")
        check(len(reasons) == len(set(reasons)), f"none stored twice ({len(reasons) - len(set(reasons))} doubled)")
        balance, total = query(f"SELECT b.balance, (SELECT SUM(points) FROM points_ledger l WHERE l.member_id = b.member_id) "
                               f"FROM points_balances b WHERE b.member_id = '{child_id}'")[0]
        check(balance == total, f"the child's ledger sums to its balance ({balance})")

        print("6. Limits shared by both instances (restarted with the standard limits)", flush=True)
        for instance in (a, b):
            instance.stop()
            instance.limits = True
            instance.start()
        _, _, _ = call(a.port, "POST", "/api/v1/auth/signup", {
            "email": "lock@example.com", "password": "lock-password", "displayName": "Lock", "timeZone": "Europe/Berlin"})
        wrong = {"login": "lock@example.com", "password": "wrong-password"}
        right = {"login": "lock@example.com", "password": "lock-password"}
        client = {"X-Forwarded-For": "198.51.100.20"}
        failed = [call(nginx.port, "POST", "/api/v1/auth/login", wrong, headers=client)[0] for _ in range(5)]
        check(failed == [401] * 5, f"5 wrong passwords through nginx (both instances): {failed}")
        locked = [call(i.port, "POST", "/api/v1/auth/login", right, headers=client)[0] for i in (a, b)]
        check(locked == [429, 429], f"the account is locked on both instances after 5 failures: {locked}")

        # No timing oracle: an unknown login costs one bcrypt verification, like a wrong password
        # for a known one (each try from its own address, each known account tried twice, so
        # that no limit or lock answers early).
        for n in range(5):
            call(a.port, "POST", "/api/v1/auth/signup", {"email": f"timing{n}@example.com", "password": "timing-password",
                                                         "displayName": "Timing", "timeZone": "Europe/Berlin"})

        def timed(login, n):
            started = time.time()
            status = call(nginx.port, "POST", "/api/v1/auth/login", {"login": login, "password": "not-the-password"},
                          headers={"X-Forwarded-For": f"203.0.113.{n}"})[0]
            return time.time() - started, status
        known = [timed(f"timing{n % 5}@example.com", n) for n in range(10)]
        unknown = [timed(f"nobody{n}@example.com", 100 + n) for n in range(10)]
        median = lambda values: sorted(values)[len(values) // 2]
        ratio = median([t for t, _ in unknown]) / median([t for t, _ in known])
        check(all(s == 401 for _, s in known + unknown) and 0.75 <= ratio <= 1.33,
              f"login timing: unknown e-mail {median([t for t, _ in unknown]) * 1000:.0f} ms, known e-mail with a wrong "
              f"password {median([t for t, _ in known]) * 1000:.0f} ms (medians of 10; ratio {ratio:.2f})")

        another = {"X-Forwarded-For": "198.51.100.21"}
        call(a.port, "POST", "/api/v1/auth/signup", {
            "email": "busy@example.com", "password": "busy-password", "displayName": "Busy", "timeZone": "Europe/Berlin"})
        busy = {"login": "busy@example.com", "password": "busy-password"}
        started = time.time()
        results = [call(nginx.port, "POST", "/api/v1/auth/login", busy, headers=another)[0] for _ in range(30)]
        elapsed = time.time() - started
        ok = results.count(200)
        # 20 at once, then one every 3 s; two separate budgets would have allowed all 30.
        allowed = 20 + int(elapsed / 3)
        check(20 <= ok <= allowed + 1,
              f"logins from one client address across both instances: {ok} of 30 allowed in {elapsed:.1f} s "
              f"(limit 20 a minute, refilled one every 3 s: at most {allowed})")
        other_client = call(nginx.port, "POST", "/api/v1/auth/login", busy, headers={"X-Forwarded-For": "198.51.100.22"})[0]
        check(other_client == 200, f"another client address is not limited by it ({other_client})")
    finally:
        if nginx:
            nginx.stop()
        for instance in (a, b):
            instance.kill()
        subprocess.run(["psql", base, "-qc", f"DROP SCHEMA {schema} CASCADE"], capture_output=True)

    if failures:
        print(f"FAILED ({len(failures)}): see {workdir}")
        sys.exit(1)
    print("Two instances on one PostgreSQL behind nginx: every check passed.")


if __name__ == "__main__":
    main()
