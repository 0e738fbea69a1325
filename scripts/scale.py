#!/usr/bin/env python3
"""Scale data for the load test: fills a migrated Questline SQLite file with members, their
reads (with the per-day summary the widget uses), saves and enrollments, and families: one
member in ten is in a household (a guardian and two children), and each child has a learning
and a reward app, a daily and a weekly quest, and 60 days of usage reports with everything the
server derives from them (earnings, ledger rows, completions with bonuses and unlocks, some
redemptions, and the per-child summaries: learning totals and learning-day runs).

    .build/release/questline migrate --database /tmp/scale.sqlite
    python3 scripts/scale.py /tmp/scale.sqlite                 # 1,000,000 members, 50,000,000 reads
    python3 scripts/scale.py /tmp/scale.sqlite --members 10000 # smaller, same proportions
    scripts/load.sh --database /tmp/scale.sqlite

Each member gets 50 reads over the last 60 days (about 35 read days), 5 saves, and 3 in 10
have joined the "scale" campaign. Each child gets usage reports on 7 days in 10, one to
three a day (about 84 each). Sessions `scale-token-<n>` sign in the first 100 members, and
`scale-child-token-<n>` the first 100 children (child 0 has 1,000,000 points to spend).
Progress is printed as it goes.
"""
import argparse
import hashlib
import random
import sqlite3
import sys
import time
import uuid
from datetime import date, datetime, timedelta, timezone

parser = argparse.ArgumentParser()
parser.add_argument("database")
parser.add_argument("--members", type=int, default=1_000_000)
parser.add_argument("--reads-per-member", type=int, default=50)
parser.add_argument("--saves-per-member", type=int, default=5)
parser.add_argument("--family-every", type=int, default=20, help="one household (a guardian, two children) per this many members")
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
        self.grants, self.runs, self.stats, self.sessions, self.challenge_completions = [], [], [], [], []

    def child(self, child, household, position, number):
        """A child of `household` with 60 days of usage and what the server derives from it."""
        self.memberships.append((child, household, "child", now_ms))
        self.apps.append((child, "load.learn", "Learn", "📘", "learning", 1, now_ms))
        self.apps.append((child, "load.reward", "Reward", "🎮", "reward", 0, now_ms))
        daily, weekly = new_id(), new_id()
        first_day = days[-1]
        self.challenges.append((daily, household, child, spec(child, "dailyMinutes", "day", 30, "Learn", first_day, True),
                                "active", child, now_ms, now_ms, position))
        self.challenges.append((weekly, household, child, spec(child, "weeklyMinutes", "week", 150, "Week", week_start.isoformat(), False),
                                "active", child, now_ms, now_ms, position + 1))
        if number < 100:
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
                    self.challenge_completions.append((1, weekly))
            if balance >= 20 and random.random() < 0.2:
                entry("redeem", -20, "20 minutes of Reward", None, end_of_day)
                self.grants.append((new_id(), child, "load.reward", 20, end_of_day, midnight + 86400_000, None, end_of_day))
        self.balances.append((child, balance, earned))
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
        self.challenge_completions.append((completions - int(week_done), daily))
        return len(self.reports)

    def write(self, db):
        db.executemany("INSERT INTO households (id, name, created_at) VALUES (?, ?, ?)", self.households)
        db.executemany("INSERT INTO household_members (member_id, household_id, role, joined_at) VALUES (?, ?, ?, ?)", self.memberships)
        db.executemany("INSERT INTO quest_settings (household_id, points_per_minute, min_minutes, max_minutes) VALUES (?, 1, 1, 60)", self.settings)
        db.executemany("INSERT INTO sessions (token_hash, member_id, created_at, expires_at) VALUES (?, ?, ?, ?)", self.sessions)
        db.executemany("INSERT INTO quest_apps (child_id, token, name, icon, role, points_per_minute, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", self.apps)
        db.executemany("INSERT INTO challenges (id, household_id, assignee_id, spec, status, created_by, created_at, updated_at, position) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", self.challenges)
        db.executemany("INSERT INTO usage_reports (child_id, report_id, token, started_at, seconds, time_zone, received_at) VALUES (?, ?, ?, ?, ?, ?, ?)", self.reports)
        db.executemany("INSERT INTO quest_earnings (child_id, token, local_day, minutes, points) VALUES (?, ?, ?, ?, ?)", self.earnings)
        db.executemany("INSERT INTO points_ledger (id, member_id, kind, points, balance_after, reason, challenge_id, created_by, created_at, seq) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", self.ledger)
        db.executemany("INSERT INTO points_balances (member_id, balance, earned) VALUES (?, ?, ?)", self.balances)
        db.executemany("INSERT INTO quest_completions (challenge_id, period_key, child_id, value, bonus, completed_at) VALUES (?, ?, ?, ?, ?, ?)", self.completions)
        db.executemany("UPDATE challenges SET completions = ? WHERE id = ?", self.challenge_completions)
        db.executemany("INSERT INTO unlock_grants (id, child_id, token, minutes, starts_at, expires_at, challenge_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", self.grants)
        db.executemany("INSERT INTO quest_learning_runs (child_id, first_day, last_day) VALUES (?, ?, ?)", self.runs)
        db.executemany("INSERT INTO quest_stats (child_id, learning_minutes, completions, best_streak) VALUES (?, ?, ?, ?)", self.stats)

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
    db.executemany("INSERT INTO members (id, email, username, password_hash, display_name, time_zone, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", members)
    db.executemany("INSERT INTO sessions (token_hash, member_id, created_at, expires_at) VALUES (?, ?, ?, ?)", sessions)
    db.executemany("INSERT OR IGNORE INTO reading_events (owner, event_id, article_id, title, language, read_at, time_zone, local_day, thumbnail_url, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", events)
    db.executemany("INSERT INTO reading_days (owner, local_day, reads) VALUES (?, ?, ?)", summary)
    db.executemany("INSERT OR IGNORE INTO saved_articles (member_id, language, title, list_name, saved_at, thumbnail_url, source) VALUES (?, ?, ?, ?, ?, ?, ?)", saves)
    db.executemany("INSERT INTO challenge_enrollments (member_id, campaign_id, joined_at, join_day) VALUES (?, ?, ?, ?)", joins)
    family.write(db)
    db.commit()
    reads_total += len(events)
    usage_total += len(family.reports)
    ledger_total += len(family.ledger)
    done = min(first + chunk, args.members)
    elapsed = time.time() - began
    print(f"{done:>9,} / {args.members:,} members, {reads_total:,} reads, {children_total:,} children, {usage_total:,} usage reports, "
          f"{ledger_total:,} ledger rows, {elapsed:6.0f} s", flush=True)
db.execute("ANALYZE")
db.commit()
print("Done. Sign in as the first 100 members with bearer tokens scale-token-0 .. scale-token-99,\n"
      "and as the first 100 children with scale-child-token-0 .. scale-child-token-99.")
