#!/usr/bin/env bash
# Compiles every ```swift block of README.md and of the DocC articles (Sources/*/*.docc/*.md) with
# warnings as errors, so the documentation never shows code that does not build. Each block becomes the main.swift of its own executable target in a
# throwaway package that depends on this one. Names the blocks share — `client`, `bag`, `User` —
# are declared before a block that uses them without declaring them. Nothing is run.
# Blocks that import a trait's module (RxNetworkKitAsyncHTTPClient, Logging, Metrics, Tracing,
# ServiceLifecycle, PostgresNIO) are built in a second package that enables every trait.
# Usage: [READMECHECK_SCRATCH=<build folder of the all-traits build>] .ci/check-readme.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$root/.build/readme-check"
rm -rf "$work/Sources" "$work/blocks" "$work/manifests"
mkdir -p "$work/Sources" "$work/blocks"

# README.md and every article and landing page of the DocC catalogs (Sources/*/*.docc).
documents="$root/README.md $(cd "$root" && ls Sources/*/*.docc/*.md | sed "s#^#$root/#")"
for document in $documents; do
    awk -v dir="$work/blocks" -v name="${document#"$root"/}" -v start="$(ls "$work/blocks" | wc -l)" '
        /^```swift[[:space:]]*$/ { inside = 1; count += 1; file = sprintf("%s/%03d.swift", dir, start + count)
            printf "// %s line %d\n", name, NR + 1 > file; next }
        inside && /^```[[:space:]]*$/ { inside = 0; close(file); next }
        inside { print $0 >> file }
        END { if (inside) { print name ": unterminated swift block" > "/dev/stderr"; exit 1 } }
    ' "$document"
done

targets=""
traitTargets=""
traitWork="$root/.build/readme-check-traits"
rm -rf "$traitWork/Sources"
# The products a block that needs a trait may import, by module.
traitProducts='.product(name: "RxNetworkKit", package: "RxNetworkKit"), .product(name: "RxTesting", package: "RxNetworkKit"), .product(name: "RxNetworkKitAsyncHTTPClient", package: "RxNetworkKit"), .product(name: "Logging", package: "swift-log"), .product(name: "Metrics", package: "swift-metrics"), .product(name: "Tracing", package: "swift-distributed-tracing"), .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"), .product(name: "PostgresNIO", package: "postgres-nio")'
for block in "$work"/blocks/*.swift; do
    name="Snippet$(basename "$block" .swift)"
    if sed -n 2p "$block" | grep -q '^// swift-tools-version'; then
        # A manifest: evaluated by SwiftPM (nothing is fetched).
        manifest="$work/manifests/$name"
        mkdir -p "$manifest/Sources/App" "$manifest/Tests/AppTests"
        tail -n +2 "$block" > "$manifest/Package.swift"
        for target in $(grep -oE 'Target\(name: "[A-Za-z]+"' "$manifest/Package.swift" | sed -E 's/.*"(.*)"/\1/'); do
            mkdir -p "$manifest/Sources/$target" "$manifest/Tests/$target"
        done
        swift package --package-path "$manifest" dump-package > /dev/null
        continue
    fi
    if grep -qE '^import (RxNetworkKitAsyncHTTPClient|Logging|Metrics|Tracing|ServiceLifecycle|PostgresNIO)$' "$block"; then
        # Needs a trait: compiled with every trait on, in a package of its own below.
        mkdir -p "$traitWork/Sources/$name"
        {
            echo "import Foundation"
            echo "import RxNetworkKit"
            grep -qE '\blet client\b' "$block" || echo 'let client = HTTPClient(baseURL: URL(string: "https://api.example.com")!)'
            cat "$block"
        } > "$traitWork/Sources/$name/main.swift"
        traitTargets="$traitTargets        .executableTarget(name: \"$name\", dependencies: [$traitProducts]),
"
        continue
    fi
    mkdir -p "$work/Sources/$name"
    main="$work/Sources/$name/main.swift"
    {
        echo "import Foundation"
        echo "import RxNetworkKit"
        echo "import RxTesting"
        grep -qE '(struct|class|enum) User\b' "$block" || echo 'struct User: Decodable, Sendable { let id: Int; let name: String }'
        grep -qE '\blet client\b' "$block" || echo 'let client = HTTPClient(baseURL: URL(string: "https://api.example.com")!)'
        grep -qE '\blet bag\b' "$block" || echo 'let bag = DisposeBag()'
        cat "$block"
    } > "$main"
    targets="$targets        .executableTarget(name: \"$name\", dependencies: [.product(name: \"RxNetworkKit\", package: \"RxNetworkKit\"), .product(name: \"RxTesting\", package: \"RxNetworkKit\")]),
"
done

cat > "$work/Package.swift" <<PACKAGE
// swift-tools-version:6.1
import PackageDescription
let package = Package(
    name: "ReadmeCheck",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [.package(name: "RxNetworkKit", path: "$root")],
    targets: [
$targets    ],
    swiftLanguageModes: [.v6]
)
PACKAGE

echo "README.md and the DocC articles: $(ls "$work"/blocks | wc -l | tr -d ' ') swift blocks"
swift build --package-path "$work" -Xswiftc -warnings-as-errors

if [ -n "$traitTargets" ]; then
    cat > "$traitWork/Package.swift" <<PACKAGE
// swift-tools-version:6.1
import PackageDescription
let package = Package(
    name: "ReadmeCheckTraits",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(name: "RxNetworkKit", path: "$root", traits: ["AsyncHTTPClient", "Logging", "Metrics", "Tracing", "ServiceLifecycle", "PostgreSQL"]),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
$traitTargets    ],
    swiftLanguageModes: [.v6]
)
PACKAGE
    echo "blocks that need a trait, built with every trait: $(ls "$traitWork/Sources" | wc -l | tr -d ' ')"
    # In the folder of the all-traits build (READMECHECK_SCRATCH): its dependencies are built there.
    swift build --package-path "$traitWork" --scratch-path "${READMECHECK_SCRATCH:-$traitWork/.build}" -Xswiftc -warnings-as-errors
fi
