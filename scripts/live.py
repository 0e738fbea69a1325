#!/usr/bin/env python3
"""Live subscribers at scale (issue #23): holds 10,000 household event streams open on one
instance, then sends usage reports through the API and measures, for each, how long until
every stream of that household has the event it caused.

    python3 scripts/live.py --bin .build/release/questline                 # SQLite, 10,000 streams
    python3 scripts/live.py --bin ... --postgres 'postgres://…?sslmode=disable'   # the same on PostgreSQL
    python3 scripts/live.py --streams 2000 --households 200 --writes 300   # smaller

Set-up: a fresh database (a SQLite file, or a new schema of the given PostgreSQL) loaded by
scripts/scale.py with `--households` households of a guardian and two children (each child
signed in, with apps and quests); the streams are spread evenly over the households, each
opened with one of its children's tokens (a household's devices). Then `--writes` usage
reports, one household after another (each household's events are awaited before it is
written again), `--rate` a second from `--writers` connections.

Reported: streams held, the server's resident memory once they are all open and its peak
(VmRSS, VmHWM from /proc), the server's CPU, and the latency from sending the write until the
last stream of the household has its event (p50, p95, p99, max): an upper bound of "from the
write's commit", since it includes the write itself, whose own latency is reported beside it.
Checked: every stream opened, every event reached every stream of its household, and no
stream heard another household's child. Exit status 1 when a check fails. Targets (under
300 MB, p99 under 100 ms) are printed as met or missed.
"""
import argparse
import asyncio
import hashlib
import json
import os
import random
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone

# The server's secret key for these throwaway servers (a real one comes from `questline secrets new-key`).
TEST_SECRET_KEY = "0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0"

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--bin", default=".build/release/questline")
parser.add_argument("--streams", type=int, default=10_000)
parser.add_argument("--households", type=int, default=1_000)
parser.add_argument("--writes", type=int, default=1_000)
parser.add_argument("--rate", type=float, default=50, help="writes a second, all writers together")
parser.add_argument("--writers", type=int, default=8)
parser.add_argument("--postgres", help="a PostgreSQL URL: the server and its data go to a new schema there")
parser.add_argument("--timeout", type=float, default=10, help="seconds an event may take before it counts as lost")
args = parser.parse_args()

HERE = os.path.dirname(os.path.abspath(__file__))
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
want = args.streams + 1024  # this process's sockets, and the server's (started from here, it inherits the limit)
if soft < want:
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(hard, want)))
    except (ValueError, OSError):
        sys.exit(f"Open files are limited to {soft} and cannot be raised to {want}: run as root or raise `ulimit -n`.")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def proc_status(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) // 1024  # MB
    return 0


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


work = tempfile.mkdtemp(prefix="questline-live-")
env = dict(os.environ)
env.setdefault("QUESTLINE_SECRET_KEY", TEST_SECRET_KEY)  # required without demo data
server_args = [args.bin, "serve", "--hostname", "127.0.0.1", "--no-demo-data", "--no-rate-limits", "--feed-url", "none",
               "--wiki-url", "none", "--log-level", "error"]
if args.postgres:
    schema = f"live_{int(time.time())}"
    base = args.postgres.split("?")[0]
    subprocess.run(["psql", base, "-qc", f"CREATE SCHEMA {schema}"], check=True)
    target = f"{args.postgres}{'&' if '?' in args.postgres else '?'}schema={schema}"
    env["DATABASE_URL"] = target
    print(f"Database: PostgreSQL schema {schema}")
else:
    env.pop("DATABASE_URL", None)
    target = os.path.join(work, "live.sqlite")
    server_args += ["--database", target]
    print(f"Database: SQLite {target}")
subprocess.run([args.bin, "migrate"] + ([] if args.postgres else ["--database", target]), env=env, check=True,
               stdout=subprocess.DEVNULL)
began = time.time()
subprocess.run([sys.executable, os.path.join(HERE, "scale.py"), target, "--members", str(args.households * 3),
                "--family-every", "3", "--reads-per-member", "0", "--saves-per-member", "0",
                "--sessions", str(args.households * 2)], check=True, stdout=subprocess.DEVNULL)
print(f"Loaded {args.households:,} households (a guardian, two signed-in children each) in {time.time() - began:.0f} s")

# Each child's token, id and household, from the sessions scale.py wrote.
query = ("SELECT s.token_hash, s.member_id, hm.household_id FROM sessions s "
         "JOIN household_members hm ON hm.member_id = s.member_id WHERE hm.role = 'child'")
if args.postgres:
    rows = subprocess.run(["psql", base, "-tAq", "-F", "|", "-c", f"SET search_path TO {schema}; {query}"],
                          check=True, capture_output=True, text=True).stdout.split()
    found = {h: (c, hh) for h, c, hh in (r.split("|") for r in rows if r.count("|") == 2)}
else:
    import sqlite3
    found = {h: (c, hh) for h, c, hh in sqlite3.connect(target).execute(query)}
children = {}  # household -> [(token, child id)]
for n in range(args.households * 2):
    token = f"scale-child-token-{n}"
    hit = found.get(hashlib.sha256(token.encode()).hexdigest())
    if hit:
        children.setdefault(hit[1], []).append((token, hit[0]))
households = sorted(children)
if len(households) < args.households:
    sys.exit(f"Only {len(households)} households have signed-in children")
child_household = {c: h for h, pairs in children.items() for _, c in pairs}

port = free_port()
server = subprocess.Popen(server_args + ["--port", str(port)], env=env, stdout=open(os.path.join(work, "server.log"), "w"),
                          stderr=subprocess.STDOUT)


def stop(code):
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
    shutil.rmtree(work, ignore_errors=True)
    if args.postgres:
        subprocess.run(["psql", base, "-qc", f"DROP SCHEMA {schema} CASCADE"], stderr=subprocess.DEVNULL)
    sys.exit(code)


for _ in range(300):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            break
    except OSError:
        if server.poll() is not None:
            print(open(os.path.join(work, "server.log")).read())
            stop(1)
        time.sleep(0.2)

# What the streams heard: household -> event id -> [streams that have it, the last one's time].
heard = {h: {} for h in households}
members = {h: 0 for h in households}  # streams open per household
waiting = {}  # household -> (id after which, future)
foreign = 0
connected = 0
failed = []


async def read_response_head(reader):
    status = await reader.readline()
    headers = {}
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status.split()[1]) if status else 0, headers


def dispatch(household, fields):
    global foreign
    if fields.get("event") != "quests" or "data" not in fields:
        return
    data = json.loads(fields["data"])
    event_id = data.get("id")
    if event_id is None:
        return
    if data.get("childId") and child_household.get(data["childId"]) != household:
        foreign += 1
    entry = heard[household].setdefault(event_id, [0, 0.0])
    entry[0] += 1
    entry[1] = time.monotonic()
    wait = waiting.get(household)
    if wait and event_id > wait[0] and entry[0] == members[household] and not wait[1].done():
        wait[1].set_result(entry[1])


async def stream(index, opened):
    global connected
    household = households[index % len(households)]
    token, _ = children[household][(index // len(households)) % len(children[household])]
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
        writer.write((f"GET /api/v1/households/{household}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n").encode())
        status, headers = await read_response_head(reader)
        if status != 200:
            raise RuntimeError(f"status {status}")
        chunked = headers.get("transfer-encoding") == "chunked"
        buffer, fields, counted = b"", {}, False
        while True:
            if chunked:
                size = int((await reader.readline()).strip() or b"0", 16)
                if size == 0:
                    break
                buffer += (await reader.readexactly(size + 2))[:-2]
            else:
                piece = await reader.read(65536)
                if not piece:
                    break
                buffer += piece
            *lines, buffer = buffer.split(b"\n")
            for raw in lines:
                line = raw.decode().rstrip("\r")
                if line == "":
                    if fields.get("event") == "connected" and not counted:
                        counted = True
                        members[household] += 1
                        connected += 1
                        opened.release()
                    dispatch(household, fields)
                    fields = {}
                elif not line.startswith(":"):
                    name, _, value = line.partition(":")
                    fields[name] = value[1:] if value.startswith(" ") else value
        raise RuntimeError("the stream ended")
    except Exception as error:  # noqa: BLE001 — every failure is counted and reported
        failed.append(f"stream {index}: {error}")
        opened.release()


async def http(reader, writer, method, path, token, body):
    data = json.dumps(body).encode()
    writer.write((f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                  f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n").encode() + data)
    status, headers = await read_response_head(reader)
    await reader.readexactly(int(headers.get("content-length", "0")))
    return status


async def main():
    opened = asyncio.Semaphore(0)
    gate = asyncio.Semaphore(256)  # connections being opened at once

    async def open_one(i):
        async with gate:
            task = asyncio.ensure_future(stream(i, opened))
            tasks.append(task)
            await opened.acquire()

    tasks = []
    began = time.monotonic()
    await asyncio.gather(*(open_one(i) for i in range(args.streams)))
    open_seconds = time.monotonic() - began
    if failed:
        print(f"{len(failed)} streams failed, the first: {failed[0]}")
        return 1
    await asyncio.sleep(2)
    rss_open = proc_status(server.pid, "VmRSS")
    print(f"{connected:,} streams open over {len(households):,} households in {open_seconds:.1f} s; "
          f"server resident memory {rss_open} MB")

    latencies, write_times, lost = [], [], 0
    cpu_before = cpu_seconds(server.pid)
    order = [households[k % len(households)] for k in range(args.writes)]
    interval = args.writers / args.rate
    began = time.monotonic()
    nonce = random.getrandbits(32)

    async def writer_loop(w):
        nonlocal lost
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        for k in range(w, args.writes, args.writers):
            household = order[k]
            token, child = children[household][k // len(households) % len(children[household])]
            after = max(heard[household], default=0)
            future = asyncio.get_running_loop().create_future()
            waiting[household] = (after, future)
            started = (datetime.now(timezone.utc) - timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
            sent = time.monotonic()
            status = await http(reader, writer, "POST", f"/api/v1/children/{child}/usage", token,
                                {"reports": [{"id": f"live-{nonce}-{k}", "appToken": "load.learn", "startedAt": started,
                                              "durationSeconds": 60, "timeZone": "UTC"}]})
            write_times.append(time.monotonic() - sent)
            if status != 200:
                raise RuntimeError(f"usage report: status {status}")
            try:
                latencies.append(await asyncio.wait_for(future, args.timeout) - sent)
            except asyncio.TimeoutError:
                lost += 1
            waiting.pop(household, None)
            pause = began + (k // args.writers + 1) * interval - time.monotonic()
            if pause > 0:
                await asyncio.sleep(pause)
        writer.close()

    await asyncio.gather(*(writer_loop(w) for w in range(args.writers)))
    seconds = time.monotonic() - began
    cpu = cpu_seconds(server.pid) - cpu_before
    peak = proc_status(server.pid, "VmHWM")
    still_open = sum(1 for t in tasks if not t.done())
    for task in tasks:
        task.cancel()

    ms = [v * 1000 for v in latencies]
    writes_ms = [v * 1000 for v in write_times]
    print(f"{args.writes:,} usage reports in {seconds:.1f} s ({args.writes / seconds:.0f}/s), "
          f"{len(households) and args.streams // len(households)} streams a household")
    if ms:
        print(f"write sent → every stream of the household has the event: p50 {percentile(ms, 50):.1f} ms, "
              f"p95 {percentile(ms, 95):.1f} ms, p99 {percentile(ms, 99):.1f} ms, max {max(ms):.1f} ms")
    print(f"the write itself (sent → response): p50 {percentile(writes_ms, 50):.1f} ms, p99 {percentile(writes_ms, 99):.1f} ms")
    print(f"server: resident {rss_open} MB with every stream open, peak {peak} MB; "
          f"CPU {cpu:.2f} s for the writes and their {len(latencies) * (args.streams // len(households)):,} deliveries")
    ok = not failed and lost == 0 and foreign == 0 and still_open == args.streams
    print(f"lost events {lost}, events heard on another household's stream {foreign}, streams still open {still_open:,}"
          f" of {args.streams:,}, failures {len(failed)}")
    if ms and args.streams >= 10_000:
        print(f"targets: memory under 300 MB {'met' if peak < 300 else 'MISSED'} ({peak} MB), "
              f"p99 under 100 ms {'met' if percentile(ms, 99) < 100 else 'MISSED'} ({percentile(ms, 99):.1f} ms)")
    return 0 if ok else 1


try:
    code = asyncio.run(main())
except Exception as error:  # noqa: BLE001
    print(f"live.py: {error}")
    code = 1
stop(code)
