// swift-tools-version:6.1
import PackageDescription

// A sibling package, as swift-nio and swift-async-algorithms keep theirs, so that the library's
// own Package.swift keeps zero dependencies.
//
// ordo-one/benchmark 1.38.1 declares swift-tools 6.3 and, on Linux with Swift 6.3, a dependency
// on ordo-one/swift-runtime-interposer behind its default "RuntimeInterposer" trait. Naming the
// traits explicitly (`traits: ["MallocInterposer"]`) leaves that trait off, so SwiftPM neither
// fetches nor builds the runtime interposer (which the offline package mirror lacks), while the
// malloc interposer behind the malloc metrics stays on. Trait selection needs tools 6.1.
// `name:` pins the identity of the parent package, which otherwise is its checkout's folder name.
let package = Package(
    name: "RxNetworkKitBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The traits whose code the tools measure: the fast transport, the integrations and the
        // fleet's PostgreSQL engine.
        .package(name: "RxNetworkKit", path: "..", traits: ["AsyncHTTPClient", "Logging", "Metrics", "Tracing", "PostgreSQL"]),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // The workloads, free of the framework: RxCore, OpenCombine and plain closures.
        .target(
            name: "Workloads",
            dependencies: [
                .product(name: "RxCore", package: "RxNetworkKit"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]
        ),
        // `swift package benchmark` finds this target (under Benchmarks/, with the plugin).
        .executableTarget(
            name: "RxCoreBenchmarks",
            dependencies: [
                "Workloads",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/RxCoreBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // One workload, once, for callgrind and perf: `rxcore-profile churn/RxCore`.
        .executableTarget(
            name: "rxcore-profile",
            dependencies: ["Workloads"],
            path: "Tools/rxcore-profile"
        ),
        // The HTTP workloads: raw URLSession and AsyncHTTPClient vs client.rx over each transport,
        // against a server in another process (LoopbackHTTPServer child, or nginx).
        .executableTarget(
            name: "http-bench",
            dependencies: [
                .product(name: "RxHTTP", package: "RxNetworkKit"),
                .product(name: "RxTesting", package: "RxNetworkKit"),
                .product(name: "RxNetworkKitAsyncHTTPClient", package: "RxNetworkKit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Tools/http-bench"
        ),
        // CPU per request of the client's machinery: host protection, an events subscriber, and the
        // integrations with no-op backends.
        .executableTarget(
            name: "client-overhead",
            dependencies: [
                .product(name: "RxCore", package: "RxNetworkKit"),
                .product(name: "RxHTTP", package: "RxNetworkKit"),
                .product(name: "RxTesting", package: "RxNetworkKit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            path: "Tools/client-overhead"
        ),
        // Streaming: Server-Sent Events through the client vs the parser alone; RSS over a big body.
        .executableTarget(
            name: "stream-bench",
            dependencies: [
                .product(name: "RxCore", package: "RxNetworkKit"),
                .product(name: "RxHTTP", package: "RxNetworkKit"),
                .product(name: "RxTesting", package: "RxNetworkKit"),
            ],
            path: "Tools/stream-bench"
        ),
        // Recovery after outages with default settings, and the reachability probe rate.
        .executableTarget(
            name: "recovery-bench",
            dependencies: [
                .product(name: "RxCore", package: "RxNetworkKit"),
                .product(name: "RxHTTP", package: "RxNetworkKit"),
                .product(name: "RxTesting", package: "RxNetworkKit"),
            ],
            path: "Tools/recovery-bench"
        ),
        // A fleet of replicas (child processes): refreshes per expiry, a shared quota against a
        // server that 429s, the cost of `.fleet`, a sibling's cooldown.
        .executableTarget(
            name: "fleet-bench",
            dependencies: [
                .product(name: "RxCore", package: "RxNetworkKit"),
                .product(name: "RxHTTP", package: "RxNetworkKit"),
                .product(name: "RxTesting", package: "RxNetworkKit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tools/fleet-bench"
        ),
        // Large bodies: a download or an upload through the client, timed, with its peak memory
        // (`transfer-bench.sh` runs it beside curl and a connection-cutting proxy).
        .executableTarget(
            name: "transfer-bench",
            dependencies: [
                .product(name: "RxCore", package: "RxNetworkKit"),
                .product(name: "RxHTTP", package: "RxNetworkKit"),
                .product(name: "RxTesting", package: "RxNetworkKit"),
                .product(name: "RxNetworkKitAsyncHTTPClient", package: "RxNetworkKit"),
            ],
            path: "Tools/transfer-bench"
        ),
        // The durable outbox: enqueue latency and throughput on this disk, delivery against a raw loop.
        .executableTarget(
            name: "outbox-bench",
            dependencies: [
                .product(name: "RxCore", package: "RxNetworkKit"),
                .product(name: "RxHTTP", package: "RxNetworkKit"),
                .product(name: "RxTesting", package: "RxNetworkKit"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tools/outbox-bench"
        ),
        // WebSocket messages per second: a raw SwiftNIO client vs `webSocket(path:).messages` over
        // AsyncHTTPClientTransport, against a SwiftNIO server in a child process.
        .executableTarget(
            name: "ws-bench",
            dependencies: [
                .product(name: "RxCore", package: "RxNetworkKit"),
                .product(name: "RxHTTP", package: "RxNetworkKit"),
                .product(name: "RxTesting", package: "RxNetworkKit"),
                .product(name: "RxNetworkKitAsyncHTTPClient", package: "RxNetworkKit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            path: "Tools/ws-bench"
        ),
    ],
    swiftLanguageModes: [.v6]
)
