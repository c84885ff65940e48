#!/usr/bin/env python3
"""Checks that every public top-level symbol of each module is placed in a topic group of its
DocC catalog, and that every article of a catalog is linked from one of its pages (so each is
reachable from the landing page).

Usage: Scripts/check-doc-topics.py SYMBOL_GRAPH_DIR SOURCES_DIR MODULE...
SYMBOL_GRAPH_DIR holds one folder per module with its `.symbols.json` files (Scripts/docs.sh).
"""
import json
import os
import re
import sys

SYMBOL_LINK = re.compile(r"``([^`]+)``")
DOC_LINK = re.compile(r"<doc:([^>]+)>")


def top_level_symbols(graph_path):
    """Names of the module's own top-level symbols (not members, not extensions of others' types);
    none for a catalog without a module (the umbrella's landing page)."""
    if not os.path.exists(graph_path):
        return set()
    with open(graph_path) as f:
        graph = json.load(f)
    return {symbol["pathComponents"][0] for symbol in graph["symbols"] if len(symbol["pathComponents"]) == 1}


def topic_links(markdown):
    """The symbol and article links inside the `## Topics` section of one page."""
    symbols, articles = set(), set()
    in_topics = False
    for line in markdown.splitlines():
        if line.startswith("## "):
            in_topics = line.strip() == "## Topics"
            continue
        if in_topics and line.lstrip().startswith("- "):
            for link in SYMBOL_LINK.findall(line)[:1]:
                # ``Module/Name/member-disambiguation`` -> Name, the first path component after a module.
                parts = [p for p in link.split("/") if p]
                name = parts[1] if len(parts) > 1 and parts[0].startswith("Rx") and not parts[0].endswith(")") else parts[0]
                # Swift names have no "-": what follows one is DocC's disambiguation (a hash, a kind).
                symbols.add(name.split("-")[0] if not name.startswith("-") else name)
            for link in DOC_LINK.findall(line)[:1]:
                articles.add(link.split("/")[-1])
    return symbols, articles


def main():
    graphs, sources, modules = sys.argv[1], sys.argv[2], sys.argv[3:]
    failures = 0
    for module in modules:
        catalog = os.path.join(sources, module, module + ".docc")
        pages = {}
        for folder, _, files in os.walk(catalog):
            for name in files:
                if name.endswith(".md"):
                    with open(os.path.join(folder, name)) as f:
                        pages[name[:-3]] = f.read()
        curated, linked = set(), set()
        for text in pages.values():
            symbols, articles = topic_links(text)
            curated |= symbols
            linked |= articles
            linked |= {link.split("/")[-1] for link in DOC_LINK.findall(text)}
        symbols = top_level_symbols(os.path.join(graphs, module, module + ".symbols.json"))
        missing = sorted(symbols - curated)
        # Landing pages (a module's, or the umbrella's technology root) are where links start.
        articles = {name for name, text in pages.items() if not text.startswith("# ``") and "@TechnologyRoot" not in text}
        unreachable = sorted(articles - linked)
        for name in missing:
            print(f"{module}: {name} is in no topic group of {catalog}")
        for name in unreachable:
            print(f"{module}: the article {name} is linked from no page of {catalog}")
        failures += len(missing) + len(unreachable)
        print(f"{module}: {len(symbols) - len(missing)} of {len(symbols)} top-level symbols in topic groups, {len(articles) - len(unreachable)} of {len(articles)} articles linked")
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
