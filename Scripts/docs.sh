#!/usr/bin/env bash
# Builds the DocC documentation of every public module with the toolchain's own `docc` (no
# dependency of the library's, no plugin): symbol graphs of the package with every trait (so that
# the trait-gated API is documented too), one archive per module with warnings as errors (a broken
# symbol link or a missing parameter's documentation fails), a check that every public top-level
# symbol sits in a topic group of its module's landing page (Scripts/check-doc-topics.py), and one
# combined archive.
#
# Usage: Scripts/docs.sh [build | export DIR | preview [PORT]]
#   build       (the default) the archives in .build/docs-out; RxNetworkKit.doccarchive is them all
#   export DIR  a static website in DIR (any web server serves it; open /documentation/rxnetworkkit)
#   preview     export to .build/docs-site and serve it on http://127.0.0.1:PORT (8000) until ^C
# DOCS_SCRATCH: the build folder of an all-traits build to reuse (.build/traits by default, which
# `swift build --enable-all-traits --scratch-path .build/traits -Xswiftc -warnings-as-errors` makes;
# anything missing there is built first).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
command="${1:-build}"
scratch="${DOCS_SCRATCH:-$root/.build/traits}"
out="$root/.build/docs-out"
graphs="$out/symbol-graphs"
rm -rf "$out"
mkdir -p "$graphs"

echo "== symbol graphs (every trait, public symbols), in $scratch"
# With CI's flags for that build (warnings as errors), so that its products are reused as they are.
written="$(swift package --scratch-path "$scratch" --enable-all-traits -Xswiftc -warnings-as-errors dump-symbol-graph --minimum-access-level public --skip-synthesized-members 2>&1 | tee "$out/dump.log" | sed -n 's/^Files written to //p')"
if [ -z "$written" ] || [ ! -d "$written" ]; then cat "$out/dump.log"; echo "no symbol graphs written" >&2; exit 1; fi

# Modules in dependency order: each archive may link to the ones built before it.
modules="RxCore RxReachability RxHTTP RxTesting RxNetworkKitAsyncHTTPClient"
dependencies=()
for module in $modules; do
    mkdir -p "$graphs/$module"
    cp "$written/$module.symbols.json" "$graphs/$module/"
    # The module's extensions of other modules' types (client.rx is RxHTTP's extension of Reactive).
    cp "$written/$module"@*.symbols.json "$graphs/$module/" 2>/dev/null || true
    echo "== docc convert $module"
    docc convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$graphs/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.rxnetworkkit.$module" \
        --enable-experimental-external-link-support "${dependencies[@]}" \
        --warnings-as-errors --output-path "$out/$module.doccarchive" > "$out/$module.log" 2>&1 \
        || { cat "$out/$module.log"; exit 1; }
    dependencies+=(--dependency "$out/$module.doccarchive")
done
echo "== docc convert RxNetworkKit (the umbrella's landing page and getting started)"
docc convert "Sources/RxNetworkKit/RxNetworkKit.docc" \
    --fallback-display-name RxNetworkKit --fallback-bundle-identifier org.rxnetworkkit.RxNetworkKit \
    --enable-experimental-external-link-support "${dependencies[@]}" \
    --warnings-as-errors --output-path "$out/RxNetworkKit-landing.doccarchive" > "$out/RxNetworkKit.log" 2>&1 \
    || { cat "$out/RxNetworkKit.log"; exit 1; }

echo "== Scripts/check-doc-topics.py (every public top-level symbol in a topic group)"
python3 Scripts/check-doc-topics.py "$graphs" Sources $modules RxNetworkKit

echo "== docc merge (one archive of every module)"
archives=("$out/RxNetworkKit-landing.doccarchive")
for module in $modules; do archives+=("$out/$module.doccarchive"); done
docc merge "${archives[@]}" --synthesized-landing-page-name RxNetworkKit --output-path "$out/RxNetworkKit.doccarchive" > "$out/merge.log" 2>&1 \
    || { cat "$out/merge.log"; exit 1; }
echo "docs: $out/RxNetworkKit.doccarchive"

case "$command" in
    build) ;;
    export|preview)
        site="${2:-$root/.build/docs-site}"
        [ "$command" = preview ] && site="$root/.build/docs-site"
        rm -rf "$site"
        # The merged archive is already laid out for static hosting (index.html per page).
        cp -R "$out/RxNetworkKit.doccarchive" "$site"
        echo "site: $site (open /documentation/rxnetworkkit)"
        if [ "$command" = preview ]; then
            port="${2:-8000}"
            echo "serving http://127.0.0.1:$port/documentation/rxnetworkkit (^C stops)"
            exec python3 -m http.server "$port" --bind 127.0.0.1 --directory "$site"
        fi
        ;;
    *) echo "usage: Scripts/docs.sh [build | export DIR | preview [PORT]]" >&2; exit 2 ;;
esac
