#!/usr/bin/env python3
"""Scale data for the load test: fills a migrated Questline SQLite file with members, their
reads (with the per-day summary the widget uses), saves and enrollments.

    .build/release/questline migrate --database /tmp/scale.sqlite
    python3 scripts/scale.py /tmp/scale.sqlite                 # 1,000,000 members, 50,000,000 reads
    python3 scripts/scale.py /tmp/scale.sqlite --members 10000 # smaller, same proportions
    scripts/load.sh --database /tmp/scale.sqlite

Each member gets 50 reads over the last 60 days (about 35 read days), 5 saves, and 3 in 10
have joined the "scale" campaign. Sessions `scale-token-<n>` sign in the first 100 members.
Progress is printed as it goes.
"""
import argparse
import hashlib
import random
import sqlite3
import sys
import time
import uuid
from datetime import datetime, timedelta, timezone

parser = argparse.ArgumentParser()
parser.add_argument("database")
parser.add_argument("--members", type=int, default=1_000_000)
parser.add_argument("--reads-per-member", type=int, default=50)
parser.add_argument("--saves-per-member", type=int, default=5)
args = parser.parse_args()

random.seed(7)
now = datetime.now(timezone.utc)
now_ms = int(now.timestamp() * 1000)
today = now.date()
db = sqlite3.connect(args.database)
db.execute("PRAGMA journal_mode = WAL")
db.execute("PRAGMA synchronous = OFF")
db.execute("PRAGMA cache_size = -1000000")
if db.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()[0] == 0:
    sys.exit("Run `questline migrate --database FILE` first.")

start = (today - timedelta(days=40)).isoformat()
end = (today + timedelta(days=20)).isoformat()
later = (today + timedelta(days=60)).isoformat()
db.execute("INSERT OR REPLACE INTO campaigns (id, body, updated_at) VALUES ('scale', ?, ?)",
           (f'{{"claimUntilDay":"{later}","continueActiveStreakAfterEnd":false,"endDay":"{end}","freezes":2,'
            f'"goalDays":30,"id":"scale","removeAfterDay":"{later}","startDay":"{start}"}}', now_ms))
db.commit()

days = [(today - timedelta(days=d)).isoformat() for d in range(60)]
day_ms = {d: int(datetime.fromisoformat(d).replace(tzinfo=timezone.utc).timestamp() * 1000) + 9 * 3600 * 1000 for d in days}
chunk = 10_000
began = time.time()
reads_total = 0
for first in range(0, args.members, chunk):
    members, events, summary, saves, joins, sessions = [], [], [], [], [], []
    for n in range(first, min(first + chunk, args.members)):
        member = str(uuid.UUID(int=random.getrandbits(128)))
        members.append((member, f"scale{n}@example.com", "!", f"Reader {n}", "UTC", now_ms, now_ms))
        if n < 100:
            sessions.append((hashlib.sha256(f"scale-token-{n}".encode()).hexdigest(), member, now_ms, now_ms + 30 * 86400_000))
        per_day = {}
        for r in range(args.reads_per_member):
            day = days[min(int(random.expovariate(1 / 12)), 59)]
            per_day[day] = per_day.get(day, 0) + 1
            article = random.randrange(100_000)
            events.append((member, f"e{r}", f"Article_{article}", f"Article {article}", "en", day_ms[day] + r * 1000, "UTC", day, None, now_ms))
        summary.extend((member, day, count) for day, count in per_day.items())
        for s in range(args.saves_per_member):
            article = random.randrange(100_000)
            saves.append((member, "en", f"Article {article}", "", now_ms - random.randrange(90) * 86400_000, None, "import"))
        if n % 10 < 3:
            joins.append((member, "scale", now_ms, start))
    db.executemany("INSERT INTO members (id, email, username, password_hash, display_name, time_zone, created_at, updated_at) VALUES (?, ?, NULL, ?, ?, ?, ?, ?)", members)
    db.executemany("INSERT INTO sessions (token_hash, member_id, created_at, expires_at) VALUES (?, ?, ?, ?)", sessions)
    db.executemany("INSERT OR IGNORE INTO reading_events (owner, event_id, article_id, title, language, read_at, time_zone, local_day, thumbnail_url, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", events)
    db.executemany("INSERT INTO reading_days (owner, local_day, reads) VALUES (?, ?, ?)", summary)
    db.executemany("INSERT OR IGNORE INTO saved_articles (member_id, language, title, list_name, saved_at, thumbnail_url, source) VALUES (?, ?, ?, ?, ?, ?, ?)", saves)
    db.executemany("INSERT INTO challenge_enrollments (member_id, campaign_id, joined_at, join_day) VALUES (?, ?, ?, ?)", joins)
    db.commit()
    reads_total += len(events)
    done = min(first + chunk, args.members)
    elapsed = time.time() - began
    print(f"{done:>9,} / {args.members:,} members, {reads_total:,} reads, {elapsed:6.0f} s", flush=True)
db.execute("ANALYZE")
db.commit()
print("Done. Sign in as the first 100 members with bearer tokens scale-token-0 .. scale-token-99.")
