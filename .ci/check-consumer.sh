#!/usr/bin/env bash
# Makes consumer packages from README.md's Install manifests, with the package's URL replaced by
# a git repository of this checkout's HEAD (the requirement and the rest of each line, traits
# included, verbatim as README shows them): a requirement that cannot resolve against a clone of
# main (a version with no tag) fails here as it would for a user. Uncommitted changes are not in it.
# - without traits: it builds and runs, and resolves nothing but RxNetworkKit itself;
# - with every trait: it builds and runs a program that uses each integration, and fails unless
#   each one did its work.
# Usage: [CONSUMER_SCRATCH=<build folder of the all-traits build>] .ci/check-consumer.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$root/.build/consumer-check"
rm -rf "$work"
mkdir -p "$work/blocks"

# The ```swift manifests of the Install section, in order.
awk -v dir="$work/blocks" '
    /^## / { inInstall = ($0 == "## Install") }
    inInstall && /^```swift[[:space:]]*$/ { inside = 1; count += 1; file = sprintf("%s/%d.swift", dir, count); next }
    inside && /^```[[:space:]]*$/ { inside = 0; close(file); next }
    inside { print $0 >> file }
' "$root/README.md"
plain="$work/blocks/1.swift"
traits="$work/blocks/2.swift"
for manifest in "$plain" "$traits"; do
    grep -q '^// swift-tools-version' "$manifest" || { echo "README.md Install: $manifest is not a manifest"; exit 1; }
    grep -q 'url: "https://github.com/rxnetworkkit/RxNetworkKit.git",' "$manifest" \
        || { echo "README.md Install: no RxNetworkKit .package line in $manifest"; exit 1; }
done
grep -q 'traits:' "$plain" && { echo "README.md Install: the first manifest should have no traits"; exit 1; }
for trait in AsyncHTTPClient Logging Metrics Tracing ServiceLifecycle PostgreSQL; do
    grep -q "\"$trait\"" "$traits" || { echo "README.md Install: the second manifest lacks the trait $trait"; exit 1; }
done
# The repository the consumers resolve: this checkout's HEAD as `main` (and its tags), as a clone
# of main would offer it.
upstream="$work/RxNetworkKit.git"
git clone --quiet --bare "$root" "$upstream"
git -C "$upstream" update-ref refs/heads/main "$(git -C "$root" rev-parse HEAD)"
local_url="file://$upstream"

# Without traits.
consumer="$work/plain"
mkdir -p "$consumer/Sources/MyDaemon" "$consumer/Tests/MyDaemonTests"
sed "s|url: \"https://github.com/rxnetworkkit/RxNetworkKit.git\",|url: \"$local_url\",|" "$plain" > "$consumer/Package.swift"
cat > "$consumer/Sources/MyDaemon/main.swift" <<'SWIFT'
import Foundation
import RxNetworkKit

let client = HTTPClient(baseURL: URL(string: "https://api.example.com")!)
_ = client.shutdown(gracePeriod: 0)
print("consumer without traits: built and ran")
SWIFT
cat > "$consumer/Tests/MyDaemonTests/MyDaemonTests.swift" <<'SWIFT'
import RxTesting
import XCTest

final class MyDaemonTests: XCTestCase {
    func testTheTestSupportIsThere() throws {
        let server = LoopbackHTTPServer()
        try server.start()
        server.stop()
    }
}
SWIFT
swift build --package-path "$consumer" -Xswiftc -warnings-as-errors
swift run --package-path "$consumer" --skip-build MyDaemon
resolved="$(ls -A "$consumer/.build/checkouts" 2>/dev/null | grep -v '^RxNetworkKit$' || true)"
if [ -n "$resolved" ]; then
    echo "the consumer without traits resolved packages besides RxNetworkKit:"
    echo "$resolved"
    exit 1
fi
echo "consumer without traits: README's requirement resolved, and nothing besides RxNetworkKit"

# With every trait.
consumer="$work/traits"
mkdir -p "$consumer/Sources/MyDaemon"
sed "s|url: \"https://github.com/rxnetworkkit/RxNetworkKit.git\",|url: \"$local_url\",|" "$traits" > "$consumer/Package.swift"
cat > "$consumer/Sources/MyDaemon/main.swift" <<'SWIFT'
import Foundation
import Logging
import Metrics
import PostgresNIO
import RxNetworkKit
import RxNetworkKitAsyncHTTPClient
import ServiceLifecycle
import Synchronization
import Tracing

// Each integration against a port where nothing listens: the call fails with `.transport`, and
// each integration must have seen it.

/// Counts what reached it.
final class Tally: Sendable {
    let logLines = Atomic<Int>(0)
    let timers = Atomic<Int>(0)
}
let tally = Tally()

struct CountingLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        // The client's own lines (the service group logs too).
        if event.metadata?["http.request.id"] != nil {
            tally.logLines.add(1, ordering: .relaxed)
        }
    }
}

final class CountingTimer: TimerHandler {
    func recordNanoseconds(_ duration: Int64) { tally.timers.add(1, ordering: .relaxed) }
}

final class CountingFactory: MetricsFactory {
    func makeCounter(label: String, dimensions: [(String, String)]) -> CounterHandler { NOOPMetricsHandler.instance }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> RecorderHandler { NOOPMetricsHandler.instance }
    func makeTimer(label: String, dimensions: [(String, String)]) -> TimerHandler { CountingTimer() }
    func destroyCounter(_ handler: CounterHandler) {}
    func destroyRecorder(_ handler: RecorderHandler) {}
    func destroyTimer(_ handler: TimerHandler) {}
}

struct Probe: Request {
    typealias Response = Data
    var path: String { "/probe" }
}

let logger = Logger(label: "consumer") { _ in CountingLogHandler() }
let quiet = Logger(label: "consumer.lifecycle") { _ in SwiftLogNoOpLogHandler() }
let client = HTTPClient(
    baseURL: URL(string: "http://127.0.0.1:9")!,
    configuration: .init(timeout: 5, interceptors: [TracingInterceptor(tracer: NoOpTracer())]),
    plugins: [NetworkLoggerPlugin(logger: logger)],
    transport: AsyncHTTPClientTransport()
)
let recording = client.recordMetrics(factory: CountingFactory())
var outcome = "delivered"
do {
    _ = try await client.send(Probe())
} catch let error as HTTPClientError {
    outcome = error.code.rawValue
}
recording.dispose()
let group = ServiceGroup(services: [HTTPClientService(client, gracePeriod: 1)], logger: quiet)
async let running: Void = group.run()
await group.triggerGracefulShutdown()
try await running
print("consumer with every trait: \(outcome) over AsyncHTTPClient; \(tally.logLines.load(ordering: .relaxed)) log lines, "
      + "\(tally.timers.load(ordering: .relaxed)) durations recorded, a traced call, the client drained by its service")
guard outcome == "transport", tally.logLines.load(ordering: .relaxed) > 0, tally.timers.load(ordering: .relaxed) > 0 else {
    print("an integration did not do its work")
    exit(1)
}

// A fleet on the PostgreSQL that CI started (RXNK_POSTGRES_URL): a credential goes through it.
guard let address = ProcessInfo.processInfo.environment["RXNK_POSTGRES_URL"].flatMap(URLComponents.init(string:)),
      let host = address.host, let user = address.user else {
    print("consumer with every trait: no RXNK_POSTGRES_URL, the PostgreSQL fleet not tried")
    exit(1)
}
let postgres = PostgresClient(configuration: .init(
    host: host, port: address.port ?? 5432, username: user, password: address.password,
    database: String(address.path.dropFirst()), tls: .disable
))
let runningPostgres = Task { await postgres.run() }
let fleet = try Fleet.postgreSQL(postgres, namespace: "consumer-check-\(getpid())")
let store = fleet.credentialStore(named: "consumer")
// The store's own calls block their thread: off the cooperative pool.
let roundTrip: OAuthCredential? = try await withCheckedThrowingContinuation { continuation in
    DispatchQueue.global().async {
        continuation.resume(with: Result {
            try store.save(OAuthCredential(accessToken: "consumer-access", refreshToken: "consumer-refresh"))
            defer { try? store.clear() }
            return try store.load()
        })
    }
}
await fleet.leave()
runningPostgres.cancel()
guard roundTrip?.accessToken == "consumer-access" else {
    print("the PostgreSQL fleet did not keep the credential")
    exit(1)
}
print("consumer with every trait: a credential through a PostgreSQL fleet")
SWIFT
scratch="${CONSUMER_SCRATCH:-$consumer/.build}"
swift build --package-path "$consumer" --scratch-path "$scratch" -Xswiftc -warnings-as-errors
swift run --package-path "$consumer" --scratch-path "$scratch" --skip-build MyDaemon
