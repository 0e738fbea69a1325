#!/usr/bin/env bash
# Fuzzes the contract: schemathesis (from PyPI) generates requests for every operation in
# /openapi.yaml of a running server, signed in as a guardian with a household, a child, apps
# and a quest, and checks that no response is a 5xx, that responses match the documented
# status codes, content types (problem+json for errors) and schemas.
#
#   scripts/fuzz.sh                 # 25 examples per operation
#   EXAMPLES=200 scripts/fuzz.sh
# Leaves out logOut (it would end the session being fuzzed) and the event stream (it never ends).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null || { [[ -x /opt/swift/usr/bin/swift ]] && export PATH="/opt/swift/usr/bin:$PATH"; }
EXAMPLES="${EXAMPLES:-25}"
python3 -c 'import schemathesis' 2>/dev/null || python3 -m pip install -q --disable-pip-version-check schemathesis
BIN="${QUESTLINE_BIN:-$(swift build --show-bin-path)/questline}"
[[ -x "$BIN" ]] || swift build --product questline >/dev/null
WORK="$(mktemp -d)"
# The server's secret key (required without demo data): a throwaway one for this run.
export QUESTLINE_SECRET_KEY="${QUESTLINE_SECRET_KEY:-$(python3 -c 'import secrets; print(secrets.token_hex(32))')}"
# A stand-in for Wikimedia's feed: the same 55-event day for every date, so archive games work.
FEED_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
python3 - "$FEED_PORT" Tests/QuestlineCoreTests/Fixtures/onthisday-05-07-trimmed.json <<'PY' &
import http.server, sys
body = open(sys.argv[2], "rb").read()
class Feed(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Type", "application/json"); self.end_headers(); self.wfile.write(body)
    def log_message(self, *args): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Feed).serve_forever()
PY
FEED=$!
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
"$BIN" serve --port "$PORT" --database "$WORK/fuzz.sqlite" --no-demo-data --no-rate-limits --feed-url "http://127.0.0.1:$FEED_PORT/{wiki}/{month}/{day}" --wiki-url none --log-level error \
  > "$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER $FEED 2>/dev/null || true; rm -rf "$WORK"' EXIT
URL="http://127.0.0.1:$PORT"
for _ in $(seq 1 100); do curl -fs "$URL/health" >/dev/null && break; sleep 0.1; done
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
post() { curl -fs -X "$1" "$URL/api/v1$2" -H 'content-type: application/json' -H "authorization: Bearer $TOKEN" -d "$3"; }
TOKEN="$(curl -fs -X POST "$URL/api/v1/auth/signup" -H 'content-type: application/json' \
  -d '{"email":"fuzz@example.com","password":"fuzz-password","displayName":"Fuzz","timeZone":"Europe/Berlin"}' | json "['token']")"
# Administrators are a stored role, granted by the operator (the admin operations get fuzzed too).
"$BIN" admin grant fuzz@example.com --database "$WORK/fuzz.sqlite" >/dev/null
HOUSEHOLD="$(post POST /households '{"name":"Fuzz"}' | json "['id']")"
CHILD="$(post POST "/households/$HOUSEHOLD/children" '{"username":"fuzzkid","password":"fuzz-password","displayName":"Kid"}' | json "['id']")"
post PUT "/children/$CHILD/apps/learn" '{"name":"Learn","role":"learning"}' >/dev/null
post PUT "/children/$CHILD/apps/play" '{"name":"Play","role":"reward"}' >/dev/null
post POST "/children/$CHILD/quests" '{"title":"Learn","goalType":"dailyMinutes","target":30}' >/dev/null

echo "Fuzzing $URL/openapi.yaml with $EXAMPLES examples per operation"
set +e
schemathesis run "$URL/openapi.yaml" --url "$URL/api/v1" -H "Authorization: Bearer $TOKEN" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --exclude-operation-id logOut --exclude-operation-id householdEvents \
  --max-examples "$EXAMPLES" --generation-deterministic --workers 2 --no-color > "$WORK/fuzz.txt" 2>&1
set -e
# The process must have lived through every case: a request that kills it would otherwise show
# only as connection errors inside schemathesis's report.
if ! kill -0 "$SERVER" 2>/dev/null || ! curl -fs "$URL/health" >/dev/null; then
  echo "The server exited during the fuzz run (see its log below)."
  tail -n 40 "$WORK/server.log"
  exit 1
fi
# Failures are what the checks found (ST1xx codes in the summary). Errors inside schemathesis
# itself (its generator occasionally raises on a schema) are reported but are not findings.
sed -n '/= SUMMARY =/,$p' "$WORK/fuzz.txt"
if grep -q "❌ ST" "$WORK/fuzz.txt"; then
  sed -n '/= FAILURES =/,/= WARNINGS =/p' "$WORK/fuzz.txt" | cut -c1-400
  exit 1
fi
echo "Fuzzing: $(grep -oE '[0-9]+ generated' "$WORK/fuzz.txt" | head -1) cases, no failures; the server (pid $SERVER) never exited."
