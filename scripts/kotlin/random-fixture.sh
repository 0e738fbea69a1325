#!/usr/bin/env bash
# Regenerates Tests/QuestlineCoreTests/Fixtures/kotlin-random.json from the real Kotlin standard
# library (Debian's kotlin package, installed when missing): the values that
# Tests/QuestlineCoreTests/DailyGameTests.swift holds our KotlinRandom port to.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v kotlinc >/dev/null || { apt-get update -qq && apt-get install -y -qq kotlin >/dev/null; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
kotlinc scripts/kotlin/RandomFixture.kt -include-runtime -d "$WORK/fixture.jar" 2>/dev/null
java -jar "$WORK/fixture.jar" | python3 -c 'import json,sys; json.dump(json.load(sys.stdin), sys.stdout, separators=(",", ":")); print()' \
  > Tests/QuestlineCoreTests/Fixtures/kotlin-random.json
echo "Wrote Tests/QuestlineCoreTests/Fixtures/kotlin-random.json"
