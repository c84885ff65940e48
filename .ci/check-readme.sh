#!/usr/bin/env bash
# Compiles every ```swift block of README.md with warnings as errors, so the README never shows
# code that does not build. Each block becomes the main.swift of its own executable target in a
# throwaway package that depends on this one. Names the blocks share — `client`, `bag`, `User` —
# are declared before a block that uses them without declaring them. Nothing is run.
# Usage: .ci/check-readme.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$root/.build/readme-check"
rm -rf "$work/Sources" "$work/blocks" "$work/manifests"
mkdir -p "$work/Sources" "$work/blocks"

awk -v dir="$work/blocks" '
    /^```swift[[:space:]]*$/ { inside = 1; count += 1; file = sprintf("%s/%02d.swift", dir, count)
        printf "// README.md line %d\n", NR + 1 > file; next }
    inside && /^```[[:space:]]*$/ { inside = 0; close(file); next }
    inside { print $0 >> file }
    END { if (inside) { print "README.md: unterminated swift block" > "/dev/stderr"; exit 1 } }
' "$root/README.md"

targets=""
transportTargets=""
transportWork="$root/.build/readme-check-transport"
rm -rf "$transportWork/Sources"
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
    if grep -q '^import RxNetworkKitAsyncHTTPClient' "$block"; then
        # Needs the transport package: compiled in a package of its own below.
        mkdir -p "$transportWork/Sources/$name"
        {
            echo "import Foundation"
            echo "import RxNetworkKit"
            cat "$block"
        } > "$transportWork/Sources/$name/main.swift"
        transportTargets="$transportTargets        .executableTarget(name: \"$name\", dependencies: [.product(name: \"RxNetworkKit\", package: \"RxNetworkKit\"), .product(name: \"RxNetworkKitAsyncHTTPClient\", package: \"RxNetworkKitAsyncHTTPClient\")]),
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
// swift-tools-version:6.0
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

echo "README.md: $(ls "$work"/blocks | wc -l | tr -d ' ') swift blocks"
swift build --package-path "$work" -Xswiftc -warnings-as-errors

if [ -n "$transportTargets" ]; then
    cat > "$transportWork/Package.swift" <<PACKAGE
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "ReadmeCheckTransport",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        .package(name: "RxNetworkKit", path: "$root"),
        .package(name: "RxNetworkKitAsyncHTTPClient", path: "$root/Transports/AsyncHTTPClient"),
    ],
    targets: [
$transportTargets    ],
    swiftLanguageModes: [.v6]
)
PACKAGE
    echo "README.md: blocks that use Transports/AsyncHTTPClient: $(ls "$transportWork/Sources" | wc -l | tr -d ' ')"
    # Built in the transport package's own build folder: its dependencies are built there already.
    swift build --package-path "$transportWork" --scratch-path "$root/Transports/AsyncHTTPClient/.build" -Xswiftc -warnings-as-errors
fi
