#!/usr/bin/env bash
# HTTP load test: starts the release server on a fresh database and measures, in one run, the
# bare-route reference (Benchmarks/BareRoute: the same Hummingbird and build flags, one route
# answering a small JSON body, no middleware) as the baseline, then /health, recording a read (single and
# batches of 100), reading the widget (64 members in turn), answering a game question, a child's usage report (32
# children, each with a daily and a weekly quest; one report a request, and uploads of 20 as a device's outbox
# sends them), a points redemption and a child's quest board
# (progress): requests/s, p50 and p99 at 64 connections, each route's ratio to the bare route, the
# server's CPU time per request, and the server's peak memory. Each write route is checked to
# have written one new row per read, usage report or redemption it was sent.
#
#   scripts/load.sh                     # SQLite (a temporary file)
#   scripts/load.sh --postgres          # PostgreSQL (scripts/postgres.sh starts one when DATABASE_URL is unset)
#   scripts/load.sh --database FILE     # an existing SQLite file (e.g. the scale run's), left in place
#   scripts/load.sh --database 'postgres://…?sslmode=disable&schema=scale'   # an existing PostgreSQL schema, left in place
#   scripts/load.sh --postgres --instances 2   # two instances on one PostgreSQL behind nginx (deploy/nginx.conf)
#   DURATION=20 CONNECTIONS=64 scripts/load.sh
#   QUESTLINE_BIN=/tmp/questline-old scripts/load.sh   # a given binary instead of building one
#   ROUTES="widget read" scripts/load.sh   # only some routes (widget, read, batch, game, usage, redemption, quest; the bare route and /health always)
#   HOUSEHOLDS=32 scripts/load.sh --postgres   # the family routes' 33 children in 32 households (default 1: one household's writes queue on its lock)
#   READER_TOKEN=scale-token-0 scripts/load.sh --database /tmp/scale.sqlite   # a member of the scale data (scripts/scale.py)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null || export PATH="/opt/swift/usr/bin:$PATH"

DURATION="${DURATION:-10}"
CONNECTIONS="${CONNECTIONS:-64}"
THREADS="${THREADS:-2}"
MODE=sqlite
DATABASE=""
PG_TARGET=""   # an existing PostgreSQL database and schema (--database postgres://…)
INSTANCES=1
while (($#)); do
  case "$1" in
    --postgres) MODE=postgres ;;
    --database) if [[ $2 == postgres://* || $2 == postgresql://* ]]; then MODE=postgres; PG_TARGET="$2"; else DATABASE="$2"; fi; shift ;;
    --instances) INSTANCES="$2"; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

if ((INSTANCES > 1)) && [[ $MODE != postgres ]]; then
  echo "--instances needs PostgreSQL (--postgres): instances share one database" >&2; exit 2
fi
as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }
if ((INSTANCES > 1)) && ! command -v nginx >/dev/null && [[ ! -x /usr/sbin/nginx ]]; then
  echo "Installing nginx from the system's packages"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null
fi
if ! command -v wrk >/dev/null; then
  echo "Installing wrk from the system's packages"
  # A fresh machine has no package index yet.
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null 2>&1 || {
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
  }
fi
if [[ -n "${QUESTLINE_BIN:-}" ]]; then
  BIN="$QUESTLINE_BIN"   # a given binary, e.g. to compare two builds in alternating runs
else
  echo "Building the release server..."
  swift build -c release --product questline 2>&1 | { grep -E "error|warning: .*Sources" || true; }
  BIN="$(swift build -c release --show-bin-path)/questline"
fi
# The bare-route reference, always built here in release (BARE_BIN: a given one).
if [[ -n "${BARE_BIN:-}" ]]; then
  BARE="$BARE_BIN"
else
  echo "Building the bare-route reference..."
  swift build -c release --product BareRoute 2>&1 | { grep -E "error|warning: .*Benchmarks" || true; }
  BARE="$(swift build -c release --show-bin-path)/BareRoute"
fi

WORK="$(mktemp -d)"
# The server's secret key (required without demo data): a throwaway one for this run.
export QUESTLINE_SECRET_KEY="${QUESTLINE_SECRET_KEY:-$(python3 -c 'import secrets; print(secrets.token_hex(32))')}"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
ARGS=(serve --hostname 127.0.0.1 --no-demo-data --no-rate-limits --no-reminders --feed-url none --wiki-url none --log-level error)
if [[ $MODE == postgres ]]; then
  if [[ -n $PG_TARGET ]]; then
    BASE_URL="${PG_TARGET%%&schema=*}"
    SCHEMA="$(sed -n 's/.*[?&]schema=\([A-Za-z0-9_]*\).*/\1/p' <<<"$PG_TARGET")"
    export DATABASE_URL="$PG_TARGET"
  else
    BASE_URL="${DATABASE_URL:-$(scripts/postgres.sh | tail -n 1)}"
    SCHEMA="load_$(date +%s)"
    psql "${BASE_URL%%\?*}" -qc "CREATE SCHEMA $SCHEMA" >/dev/null
    DROP_SCHEMA="$SCHEMA"   # a schema made for this run goes with it
    export DATABASE_URL="$BASE_URL&schema=$SCHEMA"
  fi
  echo "Database: PostgreSQL schema ${SCHEMA:-public}"
else
  unset DATABASE_URL
  DATABASE="${DATABASE:-$WORK/load.sqlite}"
  ARGS+=(--database "$DATABASE")
  echo "Database: SQLite $DATABASE"
fi
# The game is played by members in Europe/Berlin: their day, which is not UTC's after 23:00 UTC.
TODAY_MD="$(TZ=Europe/Berlin date +%m-%d)"
"$BIN" game-import --database "${DATABASE:-unused.sqlite}" --feed Tests/QuestlineCoreTests/Fixtures/onthisday-05-07-trimmed.json --date "$TODAY_MD" >/dev/null
SERVERS=()
UPSTREAMS=""
for i in $(seq 1 "$INSTANCES"); do
  INSTANCE_PORT="$(free_port)"
  "$BIN" "${ARGS[@]}" --port "$INSTANCE_PORT" $( ((INSTANCES > 1)) && echo --trusted-proxy 127.0.0.1/32) > "$WORK/server$i.log" 2>&1 &
  SERVERS+=($!)
  UPSTREAMS+="        server 127.0.0.1:$INSTANCE_PORT;"$'\n'
  for _ in $(seq 1 150); do curl -fs "http://127.0.0.1:$INSTANCE_PORT/health" >/dev/null && break; sleep 0.2; done
done
SERVER="${SERVERS[0]}"
PORT="$INSTANCE_PORT"
NGINX=""
if ((INSTANCES > 1)); then
  # nginx with the site of deploy/nginx.conf, as scripts/multi.py runs it; one worker a core.
  PORT="$(free_port)"
  mkdir -p "$WORK/nginx/logs"
  # nginx's workers (not root) buffer large request bodies (a batch of reads) under $WORK.
  chmod 755 "$WORK"
  SITE="$(sed -n '/# --- site ---/,$p' deploy/nginx.conf | tail -n +2)"
  SITE="${SITE/UPSTREAMS/$UPSTREAMS}"
  # A self-signed certificate for the run: nginx serves HTTP/2 over TLS as deployed.
  openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
    -keyout "$WORK/nginx/key.pem" -out "$WORK/nginx/cert.pem" >/dev/null 2>&1
  SITE="${SITE//CERT_KEY/$WORK/nginx/key.pem}"
  SITE="${SITE//CERT/$WORK/nginx/cert.pem}"
  cat > "$WORK/nginx/nginx.conf" <<NGINX
daemon off;
worker_processes auto;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $WORK/nginx/body;
    proxy_temp_path $WORK/nginx/proxy;
    fastcgi_temp_path $WORK/nginx/fastcgi;
    uwsgi_temp_path $WORK/nginx/uwsgi;
    scgi_temp_path $WORK/nginx/scgi;
${SITE//LISTEN/$PORT}
}
NGINX
  "$(command -v nginx || echo /usr/sbin/nginx)" -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" &
  NGINX=$!
  echo "Instances: $INSTANCES behind nginx on port $PORT"
fi
BARE_PORT="$(free_port)"
"$BARE" --port "$BARE_PORT" > "$WORK/bare.log" 2>&1 &
BARE_SERVER=$!
cleanup() {
  kill ${SERVERS[*]} $BARE_SERVER $NGINX 2>/dev/null || true
  rm -rf "$WORK"
  if [[ -n ${DROP_SCHEMA:-} ]]; then
    sleep 1  # the servers' connections close first
    psql "${BASE_URL%%\?*}" -qc "DROP SCHEMA $DROP_SCHEMA CASCADE" >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT
SCHEME=http
if [[ -n $NGINX ]]; then
  SCHEME=https
  # curl trusts the run's self-signed certificate (every curl below reads this file).
  echo insecure > "$WORK/.curlrc"
  export CURL_HOME="$WORK"
fi
for _ in $(seq 1 100); do curl -fsk "$SCHEME://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.2; done
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$BARE_PORT/bare" >/dev/null && break; sleep 0.2; done
URL="$SCHEME://127.0.0.1:$PORT"

# One value from the database (a count, to check that each write route wrote what it was sent).
sql_count() {
  if [[ $MODE == postgres ]]; then
    psql "${BASE_URL%%\?*}" -tAqc "${SCHEMA:+SET search_path TO $SCHEMA; }$1" | tail -n 1
  else
    python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$DATABASE" "$1"
  fi
}
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
signup() { # a new member, or (on a database used before, e.g. the scale run's) a login as the existing one
  { curl -fs -X POST "$URL/api/v1/auth/signup" -H 'content-type: application/json' \
      -d "{\"email\":\"$1\",\"password\":\"load-password\",\"displayName\":\"Load\",\"timeZone\":\"Europe/Berlin\"}" \
    || curl -fs -X POST "$URL/api/v1/auth/login" -H 'content-type: application/json' -d "{\"login\":\"$1\",\"password\":\"load-password\"}"; } \
    | json "['token']"
}
if [[ -n "${READER_TOKEN:-}" ]]; then
  READER="$READER_TOKEN"   # the scale data's campaign and members
  READERS="$(seq -s, -f 'scale-token-%g' 0 63)"
else
  ADMIN="$(signup load@example.com)"
  "$BIN" admin grant load@example.com --database "${DATABASE:-unused.sqlite}" >/dev/null  # DATABASE_URL wins when set
  START="$(date -u -d '-20 days' +%F)"; END="$(date -u -d '+20 days' +%F)"; LATER="$(date -u -d '+60 days' +%F)"
  curl -fs -X PUT "$URL/api/v1/admin/campaigns/load" -H 'content-type: application/json' -H "authorization: Bearer $ADMIN" \
    -d "{\"id\":\"load\",\"startDay\":\"$START\",\"endDay\":\"$END\",\"goalDays\":30,\"claimUntilDay\":\"$LATER\",\"removeAfterDay\":\"$LATER\",\"freezes\":2}" >/dev/null
  READER="$(signup reader@example.com)"
  READERS="$READER"
  for i in $(seq 1 63); do READERS="$READERS,$(signup "reader$i@example.com")"; done
fi
# Widgets are asked for by 64 members in turn (each joined), reads recorded by the first.
for token in ${READERS//,/ }; do
  curl -fs -X POST "$URL/api/v1/reading/challenge/join" -H "authorization: Bearer $token" >/dev/null
done
PLAYER="$(signup player@example.com)"
GAME="$(curl -fs -X POST "$URL/api/v1/game/sessions" -H 'content-type: application/json' -H "authorization: Bearer $PLAYER" -d '{}' | json "['id']")"
curl -fs -X POST "$URL/api/v1/game/sessions/$GAME/answers" -H 'content-type: application/json' -H "authorization: Bearer $PLAYER" \
  -d '{"questionIndex":0,"choice":"first"}' >/dev/null

# Family quests: 32 children, each with a learning and a reward app, a daily quest (30 minutes)
# and a weekly one (150 minutes); the first child spends points (one per reward minute), the
# board read is a 33rd child's. On the scale data (READER_TOKEN set) they are the scale's
# first 33 children, each with 60 days of history; otherwise a new household.
if [[ -n "${READER_TOKEN:-}" ]]; then
    CHILDREN=""
  for n in $(seq 0 32); do
    TOKEN="scale-child-token-$n"
    KID="$(sql_count "SELECT member_id FROM sessions WHERE token_hash = '$(printf %s "$TOKEN" | sha256sum | cut -d' ' -f1)'")"
    [[ -n $KID ]] || { echo "The database has no scale children: run scripts/scale.py on it first." >&2; exit 1; }
    CHILDREN="$CHILDREN${CHILDREN:+,}$TOKEN:$KID"
  done
else
  HOUSEHOLDS="${HOUSEHOLDS:-1}"
  [[ $HOUSEHOLDS =~ ^[0-9]+$ && $HOUSEHOLDS -ge 1 && $HOUSEHOLDS -le 33 ]] || { echo "HOUSEHOLDS: 1 to 33" >&2; exit 2; }
  declare -a GUARDIANS=() HOMES=()
  for h in $(seq 1 "$HOUSEHOLDS"); do
    GUARDIANS[$h]="$(signup "guardian$h@example.com")"
    HOMES[$h]="$(curl -fs -X POST "$URL/api/v1/households" -H 'content-type: application/json' -H "authorization: Bearer ${GUARDIANS[$h]}" -d "{\"name\":\"Load $h\"}" | json "['id']")"
    curl -fs -X PUT "$URL/api/v1/households/${HOMES[$h]}/quest-rules" -H 'content-type: application/json' -H "authorization: Bearer ${GUARDIANS[$h]}" \
      -d '{"pointsPerMinute":1,"minMinutes":1,"maxMinutes":60}' >/dev/null
  done
  echo "Family routes: 33 children in $HOUSEHOLDS household(s)"
  CHILDREN=""
  for i in $(seq 1 33); do
    h=$(( (i - 1) % HOUSEHOLDS + 1 ))
    GUARDIAN="${GUARDIANS[$h]}"; HOUSEHOLD="${HOMES[$h]}"
    KID="$(curl -fs -X POST "$URL/api/v1/households/$HOUSEHOLD/children" -H 'content-type: application/json' -H "authorization: Bearer $GUARDIAN" \
      -d "{\"username\":\"loadkid$i\",\"password\":\"load-password\",\"displayName\":\"Kid $i\"}" | json "['id']")"
    for app in '"load.learn" "Learn" "learning"' '"load.reward" "Reward" "reward"'; do
      set -- $app
      curl -fs -X PUT "$URL/api/v1/children/$KID/apps/${1//\"/}" -H 'content-type: application/json' -H "authorization: Bearer $GUARDIAN" \
        -d "{\"name\":$2,\"role\":$3}" >/dev/null
    done
    curl -fs -X POST "$URL/api/v1/children/$KID/quests" -H 'content-type: application/json' -H "authorization: Bearer $GUARDIAN" \
      -d '{"title":"Learn","goalType":"dailyMinutes","target":30,"rewardApps":[{"appToken":"load.reward","minutes":30}]}' >/dev/null
    curl -fs -X POST "$URL/api/v1/children/$KID/quests" -H 'content-type: application/json' -H "authorization: Bearer $GUARDIAN" \
      -d '{"title":"Week","goalType":"weeklyMinutes","target":150}' >/dev/null
    TOKEN="$(curl -fs -X POST "$URL/api/v1/auth/login" -H 'content-type: application/json' -d "{\"login\":\"loadkid$i\",\"password\":\"load-password\"}" | json "['token']")"
    CHILDREN="$CHILDREN${CHILDREN:+,}$TOKEN:$KID"
    if [[ $i == 1 ]]; then
      for _ in 1 2 3 4 5 6 7 8 9 10; do
        curl -fs -X POST "$URL/api/v1/children/$KID/adjustments" -H 'content-type: application/json' -H "authorization: Bearer $GUARDIAN" \
          -d '{"points":100000,"reason":"Load test"}' >/dev/null
      done
    fi
  done
fi
# The 33rd child's board is read; the usage reports go to the other 32. A board costs more the
# more reports its periods hold, and on the scale data the usage children's grow with every run
# made on it: a child no run writes to keeps the empty and the scale figures comparable.
LAST="${CHILDREN##*,}"
CHILDREN="${CHILDREN%,*}"
VIEWER="${LAST%%:*}"; VIEWER_ID="${LAST#*:}"
FIRST="${CHILDREN%%,*}"
SPENDER="${FIRST%%:*}"; SPENDER_ID="${FIRST#*:}"

READER_ID="$(curl -fs "$URL/api/v1/me" -H "authorization: Bearer $READER" | json "['id']")"
CHILD_IDS="$(tr ',' '\n' <<<"$CHILDREN" | sed "s/.*:\(.*\)/'\1'/" | paste -sd,)"
# What a write route adds, per run (LOAD_NONCE is in the ids that reads.lua and usage.lua send).
written() { # route name
  case "$1" in
    read|"batch of 100") sql_count "SELECT COUNT(*) FROM reading_events WHERE owner = '$READER_ID' AND event_id LIKE 't%-$LOAD_NONCE-%'" ;;
    "usage report"|"usage upload of 20") sql_count "SELECT COUNT(*) FROM usage_reports WHERE child_id IN ($CHILD_IDS) AND report_id LIKE 'u%-$LOAD_NONCE-%'" ;;
    redemption) sql_count "SELECT COUNT(*) FROM points_ledger WHERE member_id = '$SPENDER_ID' AND kind = 'redeem'" ;;
    *) echo "" ;;
  esac
}

declare -A RPS P50 P99 CPU DB_CPU LB_CPU
# CPU time so far (user + system, in clock ticks) of the given processes: CPU per request is
# steadier than requests/s on a shared machine, and is what the capacity model needs.
cpu_ticks() { local pid total=0; for pid in "$@"; do total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0))); done; echo "$total"; }
# PostgreSQL's CPU: every postgres process on this machine (the load's own server: the
# postmaster, its backends, its writers) with the children it has reaped (fields 16-17).
db_ticks() {
  [[ $MODE == postgres ]] || { echo 0; return; }
  local pid total=0
  for pid in $(pgrep -x postgres); do total=$((total + $(awk '{print $14 + $15 + $16 + $17}' "/proc/$pid/stat" 2>/dev/null || echo 0))); done
  echo "$total"
}
lb_pids() { [[ -n $NGINX ]] && echo "$NGINX $(pgrep -P "$NGINX" | tr '\n' ' ')"; }
TICK_US=$((1000000 / $(getconf CLK_TCK)))
# ROUTES="widget read" measures only those (first word of the names in the table; the bare route
# and /health always).
ROUTES="${ROUTES:-widget read batch game usage redemption quest}"
MEASURED=()
measure() { # name, script args...
  local name="$1"; shift
  [[ $name == "bare route" || $name == /health || " $ROUTES " == *" ${name%% *} "* ]] || return 0
  local pids="${SERVERS[*]}" bare=0
  [[ $name == "bare route" ]] && { pids=$BARE_SERVER; bare=1; }
  MEASURED+=("$name")
  local out before after requests per=1
  export LOAD_NONCE="$(date +%s%N)"
  before="$(written "$name")"
  local ticks db lb
  ticks="$(cpu_ticks $pids)"; db="$(db_ticks)"; lb="$(cpu_ticks $(lb_pids))"
  out="$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "$@")"
  ticks=$(( $(cpu_ticks $pids) - ticks )); db=$(( $(db_ticks) - db )); lb=$(( $(cpu_ticks $(lb_pids)) - lb ))
  requests="$(awk '/requests in/ {print $1}' <<<"$out")"
  CPU[$name]=$(( ticks * TICK_US / requests ))
  DB_CPU[$name]=$(( bare ? 0 : db * TICK_US / requests ))
  LB_CPU[$name]=$(( bare ? 0 : lb * TICK_US / requests ))
  if grep -q "Non-2xx" <<<"$out"; then echo "$name: errors: $(grep Non-2xx <<<"$out")" >&2; fi
  if [[ -n "$before" ]]; then
    # Every request wrote something new (no duplicates), and nothing was lost. Requests still
    # in flight when wrk stops are written but not counted, hence up to one more per connection.
    sleep 1
    after="$(written "$name")"
    [[ $name == "batch of 100" ]] && per=100
    [[ $name == "usage upload of 20" ]] && per=20
    if (( after - before < requests * per || after - before > (requests + CONNECTIONS) * per )); then
      echo "$name: $((after - before)) rows written for $requests requests of $per: the figures do not measure new writes" >&2
      exit 1
    fi
  fi
  RPS[$name]="$(awk '/Requests\/sec/ {print $2}' <<<"$out")"
  P50[$name]="$(awk '$1=="50%" {print $2}' <<<"$out")"
  P99[$name]="$(awk '$1=="99%" {print $2}' <<<"$out")"
  printf '  %-22s %10s req/s   p50 %9s   p99 %9s   server CPU %6s µs/request%s\n' "$name" "${RPS[$name]}" "${P50[$name]}" "${P99[$name]}" "${CPU[$name]}" \
    "$([[ $MODE == postgres ]] && echo "   PostgreSQL CPU ${DB_CPU[$name]} µs/request")$([[ -n $NGINX ]] && echo "   nginx CPU ${LB_CPU[$name]} µs/request")"
}
echo "Measuring for ${DURATION}s each at $CONNECTIONS connections ($THREADS wrk threads)"
measure "bare route" "http://127.0.0.1:$BARE_PORT/bare"
measure /health "$URL/health"
measure widget -s scripts/load/get.lua "$URL" -- "$READERS" /api/v1/reading/widget
measure read -s scripts/load/reads.lua "$URL" -- "$READER" 1
measure "batch of 100" -s scripts/load/reads.lua "$URL" -- "$READER" 100
measure "game answer" -s scripts/load/answer.lua "$URL" -- "$PLAYER" "$GAME"
measure "usage report" -s scripts/load/usage.lua "$URL" -- "$CHILDREN"
measure "usage upload of 20" -s scripts/load/usage.lua "$URL" -- "$CHILDREN" 20
measure "redemption" -s scripts/load/redeem.lua "$URL" -- "$SPENDER" "$SPENDER_ID"
measure "quest board" -s scripts/load/get.lua "$URL" -- "$VIEWER" "/api/v1/children/$VIEWER_ID/quests"
RSS_MB=""
for pid in "${SERVERS[@]}"; do RSS_MB+="${RSS_MB:+, }$(( $(awk '/VmHWM/ {print $2}' /proc/$pid/status) / 1024 )) MB"; done

echo
HEAD="| route | requests/s | p50 | p99 | ratio to the bare route | server CPU per request |"
RULE="| --- | --- | --- | --- | --- | --- |"
[[ $MODE == postgres ]] && { HEAD+=" PostgreSQL CPU per request |"; RULE+=" --- |"; }
[[ -n $NGINX ]] && { HEAD+=" nginx CPU per request |"; RULE+=" --- |"; }
echo "$HEAD"; echo "$RULE"
for name in "${MEASURED[@]}"; do
  ratio="$(python3 -c "print(f'{${RPS[$name]} / ${RPS["bare route"]}:.3f}')")"
  row="| $name | ${RPS[$name]} | ${P50[$name]} | ${P99[$name]} | $ratio | ${CPU[$name]} µs |"
  [[ $MODE == postgres ]] && row+=" ${DB_CPU[$name]} µs |"
  [[ -n $NGINX ]] && row+=" ${LB_CPU[$name]} µs |"
  echo "$row"
done
echo
[[ -n "${RPS["batch of 100"]:-}" ]] && echo "Reads per second in batches of 100: $(python3 -c "print(int(${RPS["batch of 100"]} * 100))")"
[[ -n "${RPS["usage upload of 20"]:-}" ]] && echo "Usage reports per second in uploads of 20: $(python3 -c "print(int(${RPS["usage upload of 20"]} * 20))")"
echo "Server peak resident memory: $RSS_MB"
