#!/usr/bin/env python3
"""Scale data for the load test: fills a migrated Questline database (a SQLite file, or a
PostgreSQL database through COPY) with members, their
reads (with the per-day summary the widget uses), saves and enrollments, and families: one
member in ten is in a household (a guardian and two children), and each child has a learning
and a reward app, a daily and a weekly quest, and 60 days of usage reports with everything the
server derives from them (earnings, ledger rows, completions with bonuses and unlocks, some
redemptions, and the per-child summaries: learning totals and learning-day runs).

    .build/release/questline migrate --database /tmp/scale.sqlite
    python3 scripts/scale.py /tmp/scale.sqlite                 # 1,000,000 members, 50,000,000 reads
    python3 scripts/scale.py /tmp/scale.sqlite --members 10000 # smaller, same proportions
    scripts/load.sh --database /tmp/scale.sqlite

    DATABASE_URL='postgres://u:p@127.0.0.1:55432/db?sslmode=disable&schema=scale' .build/release/questline migrate
    python3 scripts/scale.py 'postgres://u:p@127.0.0.1:55432/db?sslmode=disable&schema=scale'   # COPY through psql
    scripts/load.sh --database 'postgres://u:p@127.0.0.1:55432/db?sslmode=disable&schema=scale'

Each member gets 50 reads over the last 60 days (about 35 read days), 5 saves, and 3 in 10
have joined the "scale" campaign. Each child gets usage reports on 7 days in 10, one to
three a day (about 84 each). Sessions `scale-token-<n>` sign in the first 100 members, and
`scale-child-token-<n>` the first 100 children (child 0 has 1,000,000 points to spend);
`--sessions N` signs in more (scripts/live.py signs in every child of its households).
Progress is printed as it goes.
"""
import argparse
import hashlib
import random
import sqlite3
import subprocess
import sys
import time
import uuid
from datetime import date, datetime, timedelta, timezone

parser = argparse.ArgumentParser()
parser.add_argument("database", help="a SQLite file, or a postgres:// URL (its &schema=NAME is honoured)")
parser.add_argument("--members", type=int, default=1_000_000)
parser.add_argument("--reads-per-member", type=int, default=50)
parser.add_argument("--saves-per-member", type=int, default=5)
parser.add_argument("--family-every", type=int, default=20, help="one household (a guardian, two children) per this many members")
parser.add_argument("--sessions", type=int, default=100, help="sign in this many members and this many children")
args = parser.parse_args()

random.seed(7)
now = datetime.now(timezone.utc)
now_ms = int(now.timestamp() * 1000)
today = now.date()


class SQLiteSink:
    """Rows into a SQLite file, a transaction a chunk."""

    def __init__(self, path):
        self.db = sqlite3.connect(path)
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = OFF")
        self.db.execute("PRAGMA cache_size = -1000000")

    def count(self, sql):
        return self.db.execute(sql).fetchone()[0]

    def insert(self, table, columns, rows, replace=False):
        if rows:
            verb = "INSERT OR REPLACE" if replace else "INSERT"
            self.db.executemany(f"{verb} INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", rows)

    def commit(self):
        self.db.commit()

    def finish(self):
        self.db.execute("ANALYZE")
        self.db.commit()


class PostgresSink:
    """Rows into PostgreSQL: one psql process, a COPY a table and chunk (text format)."""

    ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})

    def __init__(self, url):
        base, _, query = url.partition("?")
        params = dict(p.split("=", 1) for p in query.split("&") if "=" in p)
        self.schema = params.pop("schema", None)
        self.url = base + ("?" + "&".join(f"{k}={v}" for k, v in params.items()) if params else "")
        self.psql = subprocess.Popen(["psql", self.url, "-q", "-v", "ON_ERROR_STOP=1"], stdin=subprocess.PIPE, text=True)
        self.send(f"SET search_path TO {self.schema};\n" if self.schema else "")
        self.send("SET synchronous_commit TO off;\n")
        self.tables = set()

    def send(self, text):
        if self.psql.poll() is not None:
            sys.exit(f"psql stopped (exit status {self.psql.returncode}): see its message above")
        self.psql.stdin.write(text)

    def count(self, sql):
        prefix = f"SET search_path TO {self.schema}; " if self.schema else ""
        out = subprocess.run(["psql", self.url, "-tAq", "-c", prefix + sql], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(out.stderr.strip())
        return int(out.stdout.strip().splitlines()[-1])

    @classmethod
    def field(cls, value):
        return "\\N" if value is None else str(value).translate(cls.ESCAPES)

    def insert(self, table, columns, rows, replace=False):
        if not rows:
            return
        if replace:  # a few rows: an upsert, not a COPY
            self.send(f"DELETE FROM {table} WHERE {columns[0]} IN ({', '.join(self.literal(r[0]) for r in rows)});\n")
        self.tables.add(table)
        field = self.field
        lines = "".join("\t".join([field(v) for v in row]) + "\n" for row in rows)
        self.send(f"COPY {table} ({', '.join(columns)}) FROM STDIN;\n{lines}\\.\n")

    @staticmethod
    def literal(value):
        return "'" + str(value).replace("'", "''") + "'"

    def commit(self):
        self.psql.stdin.flush()

    def finish(self):
        self.send("".join(f"ANALYZE {table};\n" for table in sorted(self.tables)))
        self.psql.stdin.close()
        if self.psql.wait() != 0:
            sys.exit(f"psql failed with exit status {self.psql.returncode}")


db = PostgresSink(args.database) if args.database.startswith(("postgres://", "postgresql://")) else SQLiteSink(args.database)
if db.count("SELECT COUNT(*) FROM schema_migrations") == 0:
    sys.exit("Run `questline migrate` on the database first (--database FILE, or DATABASE_URL for PostgreSQL).")

start = (today - timedelta(days=40)).isoformat()
end = (today + timedelta(days=20)).isoformat()
later = (today + timedelta(days=60)).isoformat()
db.insert("campaigns", ("id", "body", "updated_at"),
          [("scale", f'{{"claimUntilDay":"{later}","continueActiveStreakAfterEnd":false,"endDay":"{end}","freezes":2,'
                     f'"goalDays":30,"id":"scale","removeAfterDay":"{later}","startDay":"{start}"}}', now_ms)], replace=True)
db.commit()

days = [(today - timedelta(days=d)).isoformat() for d in range(60)]
day_ms = {d: int(datetime.fromisoformat(d).replace(tzinfo=timezone.utc).timestamp() * 1000) + 9 * 3600 * 1000 for d in days}
chunk = 10_000
began = time.time()
reads_total = 0
usage_total = 0
ledger_total = 0
children_total = 0
week_start = today - timedelta(days=today.weekday())


def new_id():
    return str(uuid.UUID(int=random.getrandbits(128)))


def spec(child, goal, period, target, title, start_day, reward):
    rewards = '[{"minutes":30,"token":"load.reward"}]' if reward else "[]"
    return (f'{{"assignee":"{child}","bonusPercent":10,"goal":"{goal}","learningApps":[],"period":"{period}",'
            f'"rewardApps":{rewards},"startDay":"{start_day}","target":{target},"title":"{title}","weekdays":[1,2,3,4,5,6,7]}}')


class Family:
    """The rows of one chunk's households, children and their quest history."""

    def __init__(self):
        self.households, self.memberships, self.settings, self.apps, self.challenges = [], [], [], [], []
        self.reports, self.earnings, self.ledger, self.balances, self.completions = [], [], [], [], []
        self.grants, self.runs, self.stats, self.sessions = [], [], [], []

    def child(self, child, household, position, number):
        """A child of `household` with 60 days of usage and what the server derives from it."""
        self.memberships.append((child, household, "child", now_ms))
        self.apps.append((child, "load.learn", "Learn", "📘", "learning", 1, now_ms))
        self.apps.append((child, "load.reward", "Reward", "🎮", "reward", 0, now_ms))
        daily, weekly = new_id(), new_id()
        first_day = days[-1]
        daily_row = [daily, household, child, spec(child, "dailyMinutes", "day", 30, "Learn", first_day, True),
                     "active", child, now_ms, now_ms, position, 0]
        weekly_row = [weekly, household, child, spec(child, "weeklyMinutes", "week", 150, "Week", week_start.isoformat(), False),
                      "active", child, now_ms, now_ms, position + 1, 0]
        if number < args.sessions:
            self.sessions.append((hashlib.sha256(f"scale-child-token-{number}".encode()).hexdigest(), child, now_ms, now_ms + 30 * 86400_000))
        balance = earned = seq = minutes_total = completions = 0

        def entry(kind, points, reason, challenge, at):
            nonlocal balance, earned, seq
            balance += points
            earned += points if kind in ("earn", "bonus") else 0
            seq += 1
            self.ledger.append((new_id(), child, kind, points, balance, reason, challenge, None, at, seq))

        if number == 0:
            entry("adjust", 1_000_000, "Load test", None, now_ms - 61 * 86400_000)
        learning_days = []
        week_minutes, week_done = 0, False
        for day in reversed(days):  # oldest first
            if random.random() >= 0.7:
                continue
            midnight = day_ms[day] - 9 * 3600 * 1000
            learned = 0
            for j in range(random.randint(1, 3)):
                token = "load.learn" if random.random() < 0.9 else "load.reward"
                seconds = random.randint(300, 1500)
                started = midnight + (14 + 2 * j) * 3600 * 1000  # two hours apart: no overlaps
                self.reports.append((child, f"s{day}-{j}", token, started, seconds, "UTC", started + seconds * 1000))
                if token == "load.learn":
                    learned += seconds
            minutes = learned // 60
            end_of_day = midnight + 86400_000 - 1
            if learned == 0:
                continue
            self.earnings.append((child, "load.learn", day, minutes, minutes))
            minutes_total += minutes
            if minutes == 0:
                continue
            learning_days.append(day)
            entry("earn", minutes, f"Learn, {day}", None, end_of_day)
            if minutes >= 30:
                bonus = max(1, minutes * 10 // 100)
                completions += 1
                self.completions.append((daily, day, child, minutes, bonus, end_of_day))
                entry("bonus", bonus, "Quest completed: Learn", daily, end_of_day)
                self.grants.append((new_id(), child, "load.reward", 30, end_of_day, midnight + 86400_000, daily, end_of_day))
            if day >= week_start.isoformat():
                week_minutes += minutes
                if week_minutes >= 150 and not week_done:  # the weekly quest completes on the day it crosses 150
                    week_done = True
                    completions += 1
                    bonus = max(1, week_minutes * 10 // 100)
                    self.completions.append((weekly, week_start.isoformat(), child, week_minutes, bonus, end_of_day))
                    entry("bonus", bonus, "Quest completed: Week", weekly, end_of_day)
                    weekly_row[-1] = 1
            if balance >= 20 and random.random() < 0.2:
                entry("redeem", -20, "20 minutes of Reward", None, end_of_day)
                self.grants.append((new_id(), child, "load.reward", 20, end_of_day, midnight + 86400_000, None, end_of_day))
        self.balances.append((child, balance, earned, seq))
        best = 0
        run_first = previous = None
        for day in learning_days + [None]:
            if day is not None and previous is not None and date.fromisoformat(day) == date.fromisoformat(previous) + timedelta(days=1):
                previous = day
                continue
            if run_first is not None:
                self.runs.append((child, run_first, previous))
                best = max(best, (date.fromisoformat(previous) - date.fromisoformat(run_first)).days + 1)
            run_first = previous = day
        self.stats.append((child, minutes_total, completions, best))
        daily_row[-1] = completions - int(week_done)
        self.challenges += [tuple(daily_row), tuple(weekly_row)]
        return len(self.reports)

    def write(self, db):
        db.insert("households", ("id", "name", "created_at"), self.households)
        db.insert("household_members", ("member_id", "household_id", "role", "joined_at"), self.memberships)
        db.insert("quest_settings", ("household_id", "points_per_minute", "min_minutes", "max_minutes"),
                  [(h, 1, 1, 60) for (h,) in self.settings])
        db.insert("sessions", ("token_hash", "member_id", "created_at", "expires_at"), self.sessions)
        db.insert("quest_apps", ("child_id", "token", "name", "icon", "role", "points_per_minute", "created_at"), self.apps)
        db.insert("challenges", ("id", "household_id", "assignee_id", "spec", "status", "created_by", "created_at",
                                 "updated_at", "position", "completions"), self.challenges)
        db.insert("usage_reports", ("child_id", "report_id", "token", "started_at", "seconds", "time_zone", "received_at"), self.reports)
        db.insert("quest_earnings", ("child_id", "token", "local_day", "minutes", "points"), self.earnings)
        db.insert("points_ledger", ("id", "member_id", "kind", "points", "balance_after", "reason", "challenge_id", "created_by",
                                    "created_at", "seq"), self.ledger)
        # ledger_seq: the last sequence number of the member's ledger (the next entry takes the one after).
        db.insert("points_balances", ("member_id", "balance", "earned", "ledger_seq"), self.balances)
        db.insert("quest_completions", ("challenge_id", "period_key", "child_id", "value", "bonus", "completed_at"), self.completions)
        db.insert("unlock_grants", ("id", "child_id", "token", "minutes", "starts_at", "expires_at", "challenge_id", "created_at"), self.grants)
        db.insert("quest_learning_runs", ("child_id", "first_day", "last_day"), self.runs)
        db.insert("quest_stats", ("child_id", "learning_minutes", "completions", "best_streak"), self.stats)

for first in range(0, args.members, chunk):
    members, events, summary, saves, joins, sessions = [], [], [], [], [], []
    family = Family()
    household = None
    for n in range(first, min(first + chunk, args.members)):
        member = str(uuid.UUID(int=random.getrandbits(128)))
        role = n % args.family_every
        if role in (1, 2) and household is not None:  # a child: a username, no e-mail
            members.append((member, None, f"scalekid{n}", "!", f"Child {n}", "UTC", now_ms, now_ms))
            family.child(member, household, 2 * role - 1, children_total)
            children_total += 1
        else:
            members.append((member, f"scale{n}@example.com", None, "!", f"Reader {n}", "UTC", now_ms, now_ms))
        if role == 0:  # a guardian, with a household of their own
            household = new_id()
            family.households.append((household, f"Family {n}", now_ms))
            family.memberships.append((member, household, "guardian", now_ms))
            family.settings.append((household,))
        if n < args.sessions:
            sessions.append((hashlib.sha256(f"scale-token-{n}".encode()).hexdigest(), member, now_ms, now_ms + 30 * 86400_000))
        per_day = {}
        for r in range(args.reads_per_member):
            day = days[min(int(random.expovariate(1 / 12)), 59)]
            per_day[day] = per_day.get(day, 0) + 1
            article = random.randrange(100_000)
            events.append((member, f"e{r}", f"Article_{article}", f"Article {article}", "en", day_ms[day] + r * 1000, "UTC", day, None, now_ms))
        summary.extend((member, day, count) for day, count in per_day.items())
        titles = set()
        for s in range(args.saves_per_member):
            article = random.randrange(100_000)
            if article in titles:  # one save of an article per list
                continue
            titles.add(article)
            saves.append((member, "en", f"Article {article}", "", now_ms - random.randrange(90) * 86400_000, None, "import"))
        if n % 10 < 3:
            joins.append((member, "scale", now_ms, start))
    db.insert("members", ("id", "email", "username", "password_hash", "display_name", "time_zone", "created_at", "updated_at"), members)
    db.insert("sessions", ("token_hash", "member_id", "created_at", "expires_at"), sessions)
    db.insert("reading_events", ("owner", "event_id", "article_id", "title", "language", "read_at", "time_zone", "local_day",
                                 "thumbnail_url", "recorded_at"), events)
    db.insert("reading_days", ("owner", "local_day", "reads"), summary)
    db.insert("saved_articles", ("member_id", "language", "title", "list_name", "saved_at", "thumbnail_url", "source"), saves)
    db.insert("challenge_enrollments", ("member_id", "campaign_id", "joined_at", "join_day"), joins)
    family.write(db)
    db.commit()
    reads_total += len(events)
    usage_total += len(family.reports)
    ledger_total += len(family.ledger)
    done = min(first + chunk, args.members)
    elapsed = time.time() - began
    print(f"{done:>9,} / {args.members:,} members, {reads_total:,} reads, {children_total:,} children, {usage_total:,} usage reports, "
          f"{ledger_total:,} ledger rows, {elapsed:6.0f} s", flush=True)
db.finish()
print("Done. Sign in as the first 100 members with bearer tokens scale-token-0 .. scale-token-99,\n"
      "and as the first 100 children with scale-child-token-0 .. scale-child-token-99.")
