#!/usr/bin/env python3
"""The message catalogs (Sources/QuestlineL10n/Resources/Localizations/*.xcstrings): add English
messages, list what a language lacks, and check every catalog.

  scripts/l10n/catalog.py add KEY "English text" "Note for translators" [--other "plural other"] [--table T]
  scripts/l10n/catalog.py add-many FILE.json [--table T]   # [{"key", "en" or {"one","other"}, "note"}]
  scripts/l10n/catalog.py merge                   # every language's tables (LANG.T.xcstrings) into LANG.xcstrings
  scripts/l10n/catalog.py missing LANG [--json] [--prefix P] [--limit N]   # English messages LANG lacks, with notes
  scripts/l10n/catalog.py translate LANG FILE.json   # {key: "text" or {"one": …, "few": …, "other": …}} into LANG.xcstrings
  scripts/l10n/catalog.py check [--language LANG]    # every language: missing, unused, placeholders, plurals

The format is Apple's string catalog (JSON); placeholders are {name}; a message whose `count`
argument picks its form has plural variations (the categories CLDR gives its language).
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIR = os.path.join(ROOT, "Sources", "QuestlineL10n", "Resources", "Localizations")
SHIPPED = ["en", "de", "fr", "es", "pt", "ru", "ar", "tr", "zh-Hans", "zh-Hant"]
PLURALS = {
    "ar": ["zero", "one", "two", "few", "many", "other"],
    "ru": ["one", "few", "many", "other"],
    "fr": ["one", "many", "other"], "es": ["one", "many", "other"], "pt": ["one", "many", "other"],
    "zh-Hans": ["other"], "zh-Hant": ["other"],
}
PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_]+)\}")


def path(language, table=None):
    return os.path.join(DIR, f"{language}.{table}.xcstrings" if table else f"{language}.xcstrings")


def tables(language):
    """The language's catalog file and its tables (`en.quests.xcstrings`, while being filled)."""
    names = sorted(os.listdir(DIR)) if os.path.isdir(DIR) else []
    return [None] + [n[len(language) + 1:-len(".xcstrings")] for n in names
                     if n.startswith(language + ".") and n.endswith(".xcstrings") and n != f"{language}.xcstrings"]


def load(language, table=None, merged=True):
    """A catalog file; with `merged`, the language's file and all its tables as one."""
    files = [table] if (table or not merged) else tables(language)
    catalog = {"sourceLanguage": "en", "strings": {}, "version": "1.0"}
    for name in files:
        try:
            with open(path(language, name), encoding="utf-8") as f:
                catalog["strings"].update(json.load(f).get("strings", {}))
        except FileNotFoundError:
            pass
    return catalog


def save(language, catalog, table=None):
    with open(path(language, table), "w", encoding="utf-8") as f:
        json.dump(catalog, f, ensure_ascii=False, indent=2, sort_keys=True)
        f.write("\n")


def unit(text):
    return {"stringUnit": {"state": "translated", "value": text}}


def value(entry, language):
    """A localization's text, or its plural forms as a dict."""
    localization = entry.get("localizations", {}).get(language)
    if not localization:
        return None
    if "stringUnit" in localization:
        return localization["stringUnit"]["value"]
    return {k: v["stringUnit"]["value"] for k, v in localization["variations"]["plural"].items()}


def add(catalog, key, english, note):
    if isinstance(english, dict):
        localization = {"variations": {"plural": {k: unit(v) for k, v in english.items()}}}
    else:
        localization = unit(english)
    catalog["strings"][key] = {"comment": note, "extractionState": "manual", "localizations": {"en": localization}}


def placeholders(text):
    texts = text.values() if isinstance(text, dict) else [text]
    return sorted({name for t in texts for name in PLACEHOLDER.findall(t)})


SOURCES = os.path.join(ROOT, "Sources")
SWIFT_KEY = re.compile(r'"([a-z][A-Za-z0-9]*(?:\.[A-Za-z0-9]+)+)"')
# A key where a message is made: `Message("…"`, `l("…"`, `localizer("…"`, `.message("…"`.
SWIFT_CALL = re.compile(r'(?:Message|\bl|localizer|Localizer\.english)\(\s*"([a-z][A-Za-z0-9]*(?:\.[A-Za-z0-9]+)+)"')
DYNAMIC = re.compile(r'"([a-z][A-Za-z0-9]*(?:\.[A-Za-z0-9]+)*\.)\\\(')
TEMPLATE_KEY = re.compile(r"\{\{#t\}\}\s*([A-Za-z0-9.]+)\s*\{\{/t\}\}")


def used_keys():
    """The keys the code names: literals in Swift (`Message("leagues.error.codeShape")`), `{{#t}}key{{/t}}`
    in templates, and the families built at run time (`"reading.widget.\\(name).title"`: every key
    under `reading.widget.`)."""
    literal, called, prefixes = set(), set(), set()
    for folder, _, names in os.walk(SOURCES):
        for name in names:
            if not (name.endswith(".swift") or name.endswith(".mustache")):
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                text = f.read()
            if name.endswith(".swift"):
                literal.update(SWIFT_KEY.findall(text))
                called.update(SWIFT_CALL.findall(text))
                prefixes.update(DYNAMIC.findall(text))
            else:
                keys = TEMPLATE_KEY.findall(text)
                literal.update(keys)
                called.update(keys)
    return literal, called, prefixes


def check(only=None):
    english = load("en")["strings"]
    problems = []
    # English's own problems (and whether the code uses each message) are checked unless one
    # language is asked for (a translator's check).
    literal, called, prefixes = used_keys() if not only else (set(english), set(), {""})
    for key in sorted(called):
        if key not in english and not any(key.startswith(p) for p in prefixes):
            problems.append(f"en: {key} is named in the code but has no message")
    for key in sorted(english):
        if key not in literal and not any(key.startswith(p) for p in prefixes):
            problems.append(f"en: {key} is not used in the code")
    for key, entry in english.items() if not only else []:
        if not entry.get("comment", "").strip():
            problems.append(f"en: {key} has no note for translators")
        if value(entry, "en") is None:
            problems.append(f"en: {key} has no English text")
    for language in ([only] if only else SHIPPED[1:]):
        strings = load(language)["strings"]
        for key, entry in english.items():
            source = value(entry, "en")
            target = value(strings.get(key, {}), language)
            if target is None:
                problems.append(f"{language}: {key} is missing")
                continue
            if placeholders(source) != placeholders(target):
                problems.append(f"{language}: {key} has placeholders {placeholders(target)}, English {placeholders(source)}")
            if isinstance(source, dict):
                needed = PLURALS.get(language, ["one", "other"])
                if not isinstance(target, dict):
                    problems.append(f"{language}: {key} needs plural forms {needed}")
                else:
                    lacking = [c for c in needed if c not in target]
                    if lacking:
                        problems.append(f"{language}: {key} lacks plural forms {lacking}")
        for key in strings:
            if key not in english:
                problems.append(f"{language}: {key} is not an English message (unused)")
    return problems


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    command = argv[0]
    table = argv[argv.index("--table") + 1] if "--table" in argv else None
    if command == "add":
        key, english, note = argv[1], argv[2], argv[3]
        if "--other" in argv:
            english = {"one": english, "other": argv[argv.index("--other") + 1]}
        catalog = load("en", table, merged=False)
        add(catalog, key, english, note)
        save("en", catalog, table)
        return 0
    if command == "add-many":
        catalog = load("en", table, merged=False)
        with open(argv[1], encoding="utf-8") as f:
            for item in json.load(f):
                add(catalog, item["key"], item["en"], item["note"])
        save("en", catalog, table)
        return 0
    if command == "merge":
        # Every language's tables into its one catalog file.
        for language in {n.split(".")[0] for n in os.listdir(DIR) if n.endswith(".xcstrings")}:
            merged = load(language)
            for name in tables(language)[1:]:
                os.remove(path(language, name))
            save(language, merged)
        return 0
    if command == "missing":
        language = argv[1]
        prefix = argv[argv.index("--prefix") + 1] if "--prefix" in argv else ""
        limit = int(argv[argv.index("--limit") + 1]) if "--limit" in argv else None
        english = load("en")["strings"]
        strings = load(language)["strings"]
        lacking = {k: {"en": value(e, "en"), "note": e.get("comment", ""),
                       **({"forms": PLURALS.get(language, ["one", "other"])} if isinstance(value(e, "en"), dict) else {})}
                   for k, e in sorted(english.items())
                   if k.startswith(prefix) and value(strings.get(k, {}), language) is None}
        if limit is not None:
            lacking = dict(list(lacking.items())[:limit])
        if "--json" in argv:
            print(json.dumps(lacking, ensure_ascii=False, indent=2))
        else:
            for key, item in lacking.items():
                print(f"{key}\t{item['en']}\t{item['note']}")
        return 0
    if command == "translate":
        # A translator's (or a helper's) work: each key's text, or its plural forms, into the
        # language's catalog file; keys English lacks are refused, nothing else changes.
        language, source = argv[1], argv[2]
        if language not in SHIPPED[1:]:
            print(f"{language} is not a shipped language: {', '.join(SHIPPED[1:])}")
            return 2
        english = load("en")["strings"]
        with open(source, encoding="utf-8") as f:
            given = json.load(f)
        catalog = load(language, merged=False)
        catalog["sourceLanguage"] = "en"
        unknown = [k for k in given if k not in english]
        for key, text in given.items():
            if key in unknown:
                continue
            if isinstance(text, dict):
                localization = {"variations": {"plural": {k: unit(v) for k, v in text.items()}}}
            else:
                localization = unit(text)
            catalog["strings"][key] = {"localizations": {language: localization}}
        save(language, catalog)
        for key in unknown:
            print(f"not an English message (skipped): {key}")
        print(f"{len(given) - len(unknown)} messages into {language}.xcstrings")
        return 1 if unknown else 0
    if command == "check":
        only = argv[argv.index("--language") + 1] if "--language" in argv else None
        problems = check(only)
        for problem in problems:
            print(problem)
        total = len(load("en")["strings"])
        print(f"{total} English messages; {len(problems)} problems")
        return 1 if problems else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
