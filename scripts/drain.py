#!/usr/bin/env python3
"""Graceful shutdown as a load balancer sees it: start the real server with --drain-seconds,
open a live event stream, send SIGTERM, and check that /ready answers 503 ("draining") while
/health and the API still answer, that the event stream ends at once (its device reconnects
elsewhere), and that the process then exits 0 within the drain time and a margin. Before that,
a second server started on the same port must stop at once, non-zero, saying the address is in use.

    python3 scripts/drain.py --bin .build/debug/questline
"""
import argparse
import http.client
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

# The server's secret key for these throwaway servers (a real one comes from `questline secrets new-key`).
TEST_SECRET_KEY = "0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--drain", type=int, default=3)
    args = parser.parse_args()
    port = free_port()
    workdir = tempfile.mkdtemp(prefix="questline-drain-")
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.setdefault("QUESTLINE_SECRET_KEY", TEST_SECRET_KEY)  # required without demo data
    server = subprocess.Popen(
        [args.bin, "serve", "--port", str(port), "--database", os.path.join(workdir, "drain.sqlite"),
         "--no-demo-data", "--log-level", "warning", "--feed-url", "none", "--wiki-url", "none", "--drain-seconds", str(args.drain)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    failures = []
    try:
        deadline = time.time() + 60
        while True:
            try:
                if get(port, "/ready")[0] == 200:
                    break
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            if time.time() > deadline or server.poll() is not None:
                sys.exit("the server did not become ready")
            time.sleep(0.2)
        # A device listening to its household's live events.
        def post(path, body, token=None):
            request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method="POST",
                                             data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
            if token:
                request.add_header("Authorization", f"Bearer {token}")
            with urllib.request.urlopen(request, timeout=10) as r:
                return json.loads(r.read())
        token = post("/api/v1/auth/signup", {"email": "drain@example.com", "password": "drain-password",
                                              "displayName": "Drain", "timeZone": "Europe/Berlin"})["token"]
        household = post("/api/v1/households", {"name": "Drain"}, token)["id"]
        stream = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        stream.request("GET", f"/api/v1/households/{household}/events", headers={"Authorization": f"Bearer {token}"})
        response = stream.getresponse()
        ended = {}

        def read_stream():
            while response.readline():
                pass
            ended["at"] = time.time()
        reader = threading.Thread(target=read_stream, daemon=True)
        reader.start()
        time.sleep(0.3)

        # A second server on the port in use stops at once with the reason, rather than
        # living on with its background services spinning (as it once did).
        second = subprocess.Popen(
            [args.bin, "serve", "--port", str(port), "--database", os.path.join(workdir, "second.sqlite"),
             "--no-demo-data", "--log-level", "error", "--feed-url", "none", "--wiki-url", "none"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            _, second_error = second.communicate(timeout=20)
            if second.returncode == 0 or b"Address already in use" not in second_error:
                failures.append(f"a second server on the same port exited with {second.returncode}: {second_error.decode()[-300:]}")
        except subprocess.TimeoutExpired:
            second.kill()
            failures.append("a second server on the same port did not stop within 20 s")

        server.send_signal(signal.SIGTERM)
        sent = time.time()
        time.sleep(0.5)
        status, body = get(port, "/ready")
        if status != 503 or json.loads(body).get("reason") != "draining":
            failures.append(f"/ready while draining answered {status} {body}")
        status, _ = get(port, "/health")
        if status != 200:
            failures.append(f"/health while draining answered {status}")
        status, _ = get(port, "/api/v1/me")
        if status != 401:
            failures.append(f"the API while draining answered {status}, not 401")
        try:
            code = server.wait(timeout=args.drain + 10)
        except subprocess.TimeoutExpired:
            failures.append("the server did not stop after the drain")
            server.kill()
            code = server.wait()
        took = time.time() - sent
        reader.join(2)
        if "at" not in ended:
            failures.append("the event stream was still open after the server stopped")
        elif ended["at"] - sent > 2:
            failures.append(f"the event stream ended {ended['at'] - sent:.1f} s after SIGTERM, not at once")
        if code != 0:
            failures.append(f"the server exited with {code}: {server.stderr.read().decode()[-800:]}")
        if took < args.drain - 0.5:
            failures.append(f"the server stopped after {took:.1f} s, before the {args.drain} s drain")
    finally:
        if server.poll() is None:
            server.kill()
    if failures:
        print("Drain: " + "; ".join(failures))
        sys.exit(1)
    print(f"Drain: /ready answered 503 (draining) while /health and the API answered; the open event stream "
          f"ended {ended['at'] - sent:.1f} s after SIGTERM; exit 0 after {took:.1f} s. A second server on the "
          f"port in use stopped at once, saying so.")


if __name__ == "__main__":
    main()
