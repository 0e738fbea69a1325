#!/usr/bin/env python3
"""Builds the offline Wikipedia pack from real "On this day" feeds:
- Sources/QuestlineFeatures/Resources/wiki/en.json: every page the feeds link, as a page
  summary (title, description, extract, thumbnail);
- Sources/QuestlineFeatures/Resources/onthisday/en-MM-DD.json: each feed's events (the day is
  read from the file name, `...-MM-DD.json`), with what the game uses of their pages.
Run from the repository root:

    python3 scripts/wiki-pack.py ../shared/data/onthisday/android-fixture-10-30.json ../shared/data/onthisday/ios-fixture-05-07.json

Text is Wikipedia's, under CC BY-SA 4.0 (see Resources/wiki/README.md)."""
import json
import os
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

FEEDS = "Sources/QuestlineFeatures/Resources/onthisday"
os.makedirs(FEEDS, exist_ok=True)
for path in sys.argv[1:]:
    match = re.search(r"(\d\d)-(\d\d)\.json$", path)
    if not match:
        continue
    feed = json.load(open(path, encoding="utf-8"))
    keep = ("title", "titles", "normalizedtitle", "description", "extract", "thumbnail", "content_urls", "type", "namespace")
    events = [
        {"text": e["text"], "year": e["year"],
         "pages": [{k: p[k] for k in keep if k in p} for p in e.get("pages", [])]}
        for e in feed.get("events", [])
    ]
    out = f"{FEEDS}/en-{match.group(1)}-{match.group(2)}.json"
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"events": events}, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"{len(events)} events -> {out}")
