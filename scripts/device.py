#!/usr/bin/env python3
"""The device on Linux (`questline device run`, built on QuestlineKit) against the real server,
through faults: the server down when the device starts, the device killed (SIGKILL) again and
again mid-upload and restarted on the same state directory, the server killed mid-request and
restarted, and the same script replayed by a second device. At the end the child's board and
ledger must equal those of a second child to whom the same script was delivered once, in order,
one report a request: 0 lost, 0 doubled.

    python3 scripts/device.py                       # SQLite
    python3 scripts/device.py --postgres URL        # PostgreSQL (a fresh schema in that database)

Prints each phase and what it compared; exits 1 on any difference.
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
from datetime import datetime, timedelta, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crash import Server, call  # noqa: E402  (the same throwaway server and HTTP helper)

PASSWORD = "device-password"


def afternoon_zone():
    """A zone in which it is early afternoon now, so that today's part of the script fits in the
    child's today whenever the test runs (quests count from the day they are set)."""
    offset = (14 - datetime.now(timezone.utc).hour + 12) % 24 - 12  # -12 ... +11
    return "UTC" if offset == 0 else f"Etc/GMT{'-' if offset > 0 else '+'}{abs(offset)}", offset


ZONE, OFFSET = afternoon_zone()


def build_script(path, days=5, per_day=180, today_lines=150, seed=38):
    """Use of a learning app and a reward app on the last `days` days and this morning (the
    child's zone), all in the past, so sent as history; and one request for time."""
    rng = random.Random(seed)
    local = timezone(timedelta(hours=OFFSET))
    midnight = datetime.now(local).replace(hour=0, minute=0, second=0, microsecond=0)
    lines = []

    def use(at, i):
        app = "game" if i % 9 == 4 else "learn"
        stamp = at.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        lines.append({"at": stamp, "app": app, "seconds": rng.randint(30, 170)})

    for d in range(days, 0, -1):
        for i in range(per_day):
            use(midnight - timedelta(days=d) + timedelta(hours=6, minutes=4 * i), i)
    lines.append({"ask": "game", "minutes": 15, "note": "Homework is done"})
    for i in range(today_lines):  # 03:00 to 10:30 today
        use(midnight + timedelta(hours=3, minutes=3 * i), i)
    with open(path, "w") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")
    return lines


def set_up(port):
    _, guardian = call(port, "POST", "/api/v1/auth/signup", {"email": "device-guardian@example.com", "password": PASSWORD,
                                                             "displayName": "Guardian", "timeZone": ZONE})
    g = guardian["token"]
    _, household = call(port, "POST", "/api/v1/households", {"name": "Device"}, g)
    children = {}
    for name in ("devicekid", "referencekid"):
        _, child = call(port, "POST", f"/api/v1/households/{household['id']}/children",
                        {"username": name, "password": PASSWORD, "displayName": name.title()}, g)
        cid = child["id"]
        call(port, "PUT", f"/api/v1/children/{cid}/apps/learn", {"name": "Learn", "role": "learning", "pointsPerMinute": 2}, g)
        call(port, "PUT", f"/api/v1/children/{cid}/apps/game", {"name": "Game", "role": "reward"}, g)
        call(port, "POST", f"/api/v1/children/{cid}/quests",
             {"title": "Twenty a day", "goalType": "dailyMinutes", "target": 20, "bonusPercent": 20,
              "rewardApps": [{"appToken": "game", "minutes": 15}]}, g)
        call(port, "POST", f"/api/v1/children/{cid}/quests", {"title": "Week", "goalType": "weeklyMinutes", "target": 300}, g)
        children[name] = cid
    return g, children


def deliver_in_order(port, child_id, lines):
    """The reference: each line once, in order, one request each."""
    _, session = call(port, "POST", "/api/v1/auth/login", {"login": "referencekid", "password": PASSWORD})
    token = session["token"]
    for n, line in enumerate(lines):
        if "ask" in line:
            call(port, "POST", f"/api/v1/children/{child_id}/time-requests",
                 {"appToken": line["ask"], "minutes": line["minutes"], "note": line["note"]}, token, key=f"ref-ask-{n}")
        else:
            call(port, "POST", f"/api/v1/children/{child_id}/usage",
                 {"reports": [{"id": f"ref-{n}", "appToken": line["app"], "startedAt": line["at"],
                               "durationSeconds": line["seconds"], "timeZone": ZONE}]}, token)


def snapshot(port, guardian, child_id):
    """Everything the script can change, without ids, the ledger summed per kind (as the
    replay test compares)."""
    _, board = call(port, "GET", f"/api/v1/children/{child_id}/quests", token=guardian)
    quests = sorted(f"{q['summary']} {q['progress']['value']} {q['progress']['completed']} x{q['completions']}"
                    for q in board["quests"])
    grants = sorted(f"{g['appToken']} {g['minutes']} {g['minutesLeft']}" for g in board["grants"])
    badges = sorted(b["id"] for b in board["badges"] if b.get("awardedAt"))
    by_kind, offset = {}, 0
    while True:
        _, page = call(port, "GET", f"/api/v1/children/{child_id}/ledger?limit=200&offset={offset}", token=guardian)
        for entry in page["entries"]:
            by_kind[entry["kind"]] = by_kind.get(entry["kind"], 0) + entry["points"]
        if len(page["entries"]) < 200:
            break
        offset += 200
    _, requests = call(port, "GET", f"/api/v1/children/{child_id}/time-requests", token=guardian)
    return {"balance": board["balance"], "streak": board["currentStreak"], "minutes": board["learningMinutes"],
            "quests": quests, "grants": grants, "badges": badges, "ledger": dict(sorted(by_kind.items())),
            "timeRequests": sorted(f"{r['appToken']} {r['minutes']} {r['note']} {r['state']}" for r in requests)}


def queue(binary, state):
    """(waiting, sent) in a device's outbox, read without changing it."""
    out = subprocess.run([binary, "device", "status", "--state", state], capture_output=True, text=True).stdout
    numbers = {line.split(":")[0]: int(line.split(":")[1]) for line in out.splitlines()
               if line.split(":")[0] in ("waiting", "sent")}
    return numbers.get("waiting", 0), numbers.get("sent", 0)


class Device:
    def __init__(self, binary, port, script, state, log):
        self.args = [binary, "device", "run", "--server", f"http://127.0.0.1:{port}", "--username", "devicekid",
                     "--password", PASSWORD, "--script", script, "--state", state, "--max-backoff", "0.5",
                     # Small batches: the upload takes many requests, so kills land in the middle of it.
                     "--batch-size", "10"]
        self.log, self.state = log, state
        self.process = None

    def start(self):
        self.process = subprocess.Popen(self.args, stdout=self.log, stderr=self.log)

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def wait(self, timeout=180):
        return self.process.wait(timeout=timeout)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.environ.get("QUESTLINE_BIN", ".build/debug/questline"))
    parser.add_argument("--postgres", metavar="URL", help="a postgres:// URL; a fresh schema is created in that database")
    parser.add_argument("--kills", type=int, default=6)
    options = parser.parse_args()

    workdir = tempfile.mkdtemp(prefix="questline-device-")
    postgres = None
    if options.postgres:
        schema = f"device_{int(time.time())}"
        subprocess.run(["psql", options.postgres.split("?")[0], "-qc", f"CREATE SCHEMA {schema}"], check=True)
        postgres = options.postgres + ("&" if "?" in options.postgres else "?") + f"schema={schema}"
    label = "PostgreSQL" if postgres else "SQLite"
    server = Server(options.bin, os.path.join(workdir, "device.sqlite"), postgres, workdir)
    server.start()
    port = server.port
    guardian, children = set_up(port)
    script = os.path.join(workdir, "script.jsonl")
    lines = build_script(script)
    print(f"{label}: a script of {len(lines)} lines ({sum('ask' in l for l in lines)} request for time)")
    deliver_in_order(port, children["referencekid"], lines)
    reference = snapshot(port, guardian, children["referencekid"])
    if reference["ledger"].get("bonus", 0) <= 0 or not reference["quests"]:
        raise SystemExit(f"the reference earned no bonus: {reference}")

    state = os.path.join(workdir, "state")
    log = open(os.path.join(workdir, "device.log"), "a")
    device = Device(options.bin, port, script, state, log)
    rng = random.Random(7)

    # 1. The server is down when the device starts: it keeps trying to sign in, then sends.
    server.kill()
    device.start()
    time.sleep(2.0)
    if device.process.poll() is not None:
        raise SystemExit("the device gave up while the server was down; see " + log.name)
    server.start()
    port = server.port  # the same port
    print(f"{label}: server down at start: the device waited and is running")

    # 2. The device is killed at random moments and started again on the same state. A kill
    #    counts as mid-upload when the queue still held reports afterwards.
    mid_upload, kills, states = 0, 0, 1
    while kills < options.kills or (mid_upload < 2 and kills < 4 * options.kills):
        if kills % 2 == 0:
            # Any moment after a start: signing in, reading the script, queueing or sending.
            time.sleep(rng.uniform(0.05, 0.4))
        else:
            # A moment of the upload itself: a start signs in first (bcrypt, a third of a second
            # in a debug build) and queues the script, which can outlast the delays above, so
            # every kill would land before the upload began.
            began = time.time()
            while time.time() - began < 10 and device.process.poll() is None and queue(options.bin, device.state)[0] == 0:
                time.sleep(0.02)
            time.sleep(rng.uniform(0.0, 0.3))
        if device.process.poll() is not None:
            # It finished before enough kills landed mid-upload: the same script again, on a
            # fresh state (a replay, which must change nothing either).
            states += 1
            device = Device(options.bin, port, script, os.path.join(workdir, f"state-{states}"), log)
            device.start()
            continue
        device.kill()
        kills += 1
        waiting, sent = queue(options.bin, device.state)
        mid_upload += waiting > 0 and sent > 0
        device.start()
    print(f"{label}: device killed {kills} times and restarted on the same state ({states} state directories); "
          f"{mid_upload} kills left a part sent and a part waiting")
    if mid_upload == 0:
        raise SystemExit(f"{label}: no kill landed mid-upload; see {log.name}")

    # 3. The server is killed while the device sends (its queue holds work), then started again.
    device.wait()
    server_kill = os.path.join(workdir, "server-kill")
    killed = Device(options.bin, port, script, server_kill, log)
    killed.start()
    deadline = time.time() + 60
    while time.time() < deadline and queue(options.bin, server_kill)[0] == 0:
        time.sleep(0.01)
    server.kill()
    time.sleep(1.0)
    server.start()
    if killed.wait() != 0:
        raise SystemExit(f"the device exited {killed.process.returncode} after the server was killed; see {log.name}")
    print(f"{label}: server killed while a device sent, and started again; the device finished")

    code = device.wait()
    if code != 0:
        raise SystemExit(f"the device exited {code}; see {log.name}")
    status = subprocess.run([options.bin, "device", "status", "--state", device.state], capture_output=True, text=True,
                            check=True).stdout
    if "waiting: 0" not in status:
        raise SystemExit(f"the device's queue is not empty:\n{status}")

    # 4. The same script, replayed by a device with a fresh state: the server applies nothing twice.
    replay_state = os.path.join(workdir, "replay")
    replay = Device(options.bin, port, script, replay_state, log)
    replay.start()
    code = replay.wait()
    if code != 0:
        raise SystemExit(f"the replaying device exited {code}; see {log.name}")
    after = snapshot(port, guardian, children["devicekid"])
    print(f"{label}: the same script replayed by a second device with a fresh state directory")

    differences = [key for key in reference if reference[key] != after[key]]
    print(f"{label}: reference {json.dumps(reference['ledger'])}, balance {reference['balance']}, "
          f"{len(reference['quests'])} quests, {len(reference['grants'])} grants")
    if differences:
        for key in differences:
            print(f"  {key}: in order {reference[key]} / device {after[key]}")
        raise SystemExit(f"{label}: the device's child differs from one in-order delivery; see {log.name}")
    dropped = [line for line in status.splitlines() if line.startswith("dropped:")]
    if dropped != ["dropped: 0"]:
        raise SystemExit(f"{label}: the device dropped reports:\n{status}")
    print(f"{label}: board and ledger equal one in-order delivery: 0 lost, 0 doubled")
    server.kill()
    log.close()
    shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
