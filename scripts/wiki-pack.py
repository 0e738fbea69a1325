#!/usr/bin/env python3
"""Builds the offline Wikipedia pack (Sources/QuestlineFeatures/Resources/wiki/en.json) from
real "On this day" feeds: every page the feeds link, as a page summary (title, description,
extract, thumbnail). Run from the repository root:

    python3 scripts/wiki-pack.py ../shared/data/onthisday/*.json

Text is Wikipedia's, under CC BY-SA 4.0 (see Resources/wiki/README.md)."""
import json
import re
import sys

def clean(text):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", text or "")).strip()

summaries = {}
for path in sys.argv[1:]:
    feed = json.load(open(path, encoding="utf-8"))
    for kind, events in feed.items():
        if not isinstance(events, list):
            continue
        for event in events:
            for page in event.get("pages", []):
                if page.get("type", "standard") != "standard" or page.get("namespace", {}).get("id", 0) != 0:
                    continue
                title = (page.get("titles") or {}).get("normalized") or page.get("normalizedtitle") \
                    or page.get("title", "").replace("_", " ")
                extract = clean(page.get("extract"))
                if not title or not extract:
                    continue
                entry = {"title": title, "extract": extract}
                if page.get("description"):
                    entry["description"] = clean(page["description"])
                thumb = page.get("thumbnail")
                if thumb and thumb.get("source", "").startswith("https://upload.wikimedia.org/"):
                    entry["thumbnail"] = {"source": thumb["source"], "width": thumb["width"], "height": thumb["height"]}
                summaries.setdefault(title, entry)

pack = {"language": "en", "summaries": sorted(summaries.values(), key=lambda s: s["title"])}
out = "Sources/QuestlineFeatures/Resources/wiki/en.json"
with open(out, "w", encoding="utf-8") as f:
    json.dump(pack, f, ensure_ascii=False, indent=0, separators=(",", ":"))
    f.write("\n")
print(f"{len(summaries)} summaries, {sum(1 for s in summaries.values() if 'thumbnail' in s)} with a thumbnail -> {out}")
