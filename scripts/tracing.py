#!/usr/bin/env python3
"""Tracing against a collector stand-in: a local HTTP server that speaks OTLP/HTTP with JSON
bodies (POST /v1/traces, as an OpenTelemetry collector takes them). Starts the real server
with --otlp-endpoint pointing at it, sends a sign-up, a read and a household write, and checks
that spans arrive: one server span per request (named by its route), with the store's
transaction spans inside the same trace, parented by the request's span. Then checks that
without --otlp-endpoint nothing is sent.

    python3 scripts/tracing.py --bin .build/debug/questline
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# The server's secret key for these throwaway servers (a real one comes from `questline secrets new-key`).
TEST_SECRET_KEY = "0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0"

received = []
lock = threading.Lock()


class Collector(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        ok = self.path == "/v1/traces" and self.headers.get("Content-Type", "").startswith("application/json")
        if ok:
            payload = json.loads(body)
            with lock:
                for resource in payload.get("resourceSpans", []):
                    for scope in resource.get("scopeSpans", []):
                        received.extend(scope.get("spans", []))
        self.send_response(200 if ok else 400)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(port, method, path, body=None, token=None):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method,
                                     data=json.dumps(body).encode() if body is not None else None,
                                     headers={"Content-Type": "application/json"})
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read() or b"null")


def serve(binary, workdir, collector_port):
    port = free_port()
    args = [binary, "serve", "--port", str(port), "--database", os.path.join(workdir, f"t{port}.sqlite"),
            "--no-demo-data", "--feed-url", "none", "--wiki-url", "none", "--log-level", "warning"]
    if collector_port:
        args += ["--otlp-endpoint", f"http://127.0.0.1:{collector_port}"]
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.setdefault("QUESTLINE_SECRET_KEY", TEST_SECRET_KEY)  # required without demo data
    env["OTEL_BSP_SCHEDULE_DELAY"] = "200"  # export batches every 200 ms, not 5 s
    process = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=open(os.path.join(workdir, "server.log"), "a"))
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/ready", timeout=1)
            return process, port
        except Exception:
            time.sleep(0.1)
    sys.exit("the server did not start; see " + workdir)


def traffic(port):
    session = call(port, "POST", "/api/v1/auth/signup", {"email": "trace@example.com", "password": "trace-password",
                                                         "displayName": "Trace", "timeZone": "Europe/Berlin"})
    call(port, "POST", "/api/v1/households", {"name": "Traced"}, session["token"])
    call(port, "GET", "/api/v1/me", token=session["token"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    options = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="questline-tracing-")
    collector = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=collector.serve_forever, daemon=True).start()
    failures = []

    process, port = serve(options.bin, workdir, collector.server_address[1])
    try:
        traffic(port)
        deadline = time.time() + 20
        while time.time() < deadline:
            with lock:
                names = {span["name"] for span in received}
            if any("households" in n for n in names) and any(n.startswith("db.") for n in names):
                break
            time.sleep(0.2)
    finally:
        process.terminate()
        process.wait(20)
    with lock:
        spans = list(received)
    servers = [s for s in spans if s.get("kind") in (2, "SPAN_KIND_SERVER")]
    database = [s for s in spans if s["name"].startswith("db.")]
    household = next((s for s in servers if s["name"].endswith("/households")), None)
    if not household:
        failures.append(f"no server span for POST /api/v1/households among {sorted({s['name'] for s in servers})}")
    if not database:
        failures.append("no store transaction span")
    if household:
        inside = [s for s in database if s["traceId"] == household["traceId"]]
        if not inside:
            failures.append("the household write's transaction is not in its request's trace")
        elif not any(s.get("parentSpanId") == household["spanId"] for s in inside):
            failures.append("the transaction span is not a child of the request's span")
        attributes = {a["key"]: a["value"] for a in household.get("attributes", [])}
        if "http.response.status_code" not in attributes and "http.status_code" not in attributes:
            failures.append(f"the request span has no status code: {sorted(attributes)}")
    count = len(spans)

    # Off by default: without the option, the collector hears nothing.
    with lock:
        received.clear()
    process, port = serve(options.bin, workdir, None)
    try:
        traffic(port)
        time.sleep(1.5)
    finally:
        process.terminate()
        process.wait(20)
    with lock:
        if received:
            failures.append(f"{len(received)} spans sent without --otlp-endpoint")
    collector.shutdown()

    if failures:
        print("Tracing: " + "; ".join(failures) + f" (server log: {workdir})")
        sys.exit(1)
    print(f"Tracing: {count} spans reached the collector stand-in (OTLP/HTTP JSON): requests named by route, store "
          f"transactions inside their request's trace; none without --otlp-endpoint.")


if __name__ == "__main__":
    main()
