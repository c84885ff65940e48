// swift-tools-version:6.1
import PackageDescription

// The library has no package dependencies by default: only the toolchain (Foundation,
// FoundationNetworking on Linux, Dispatch, Synchronization, Glibc/Darwin). Each integration is an
// opt-in package trait (SE-0450) whose dependencies are used only under a `.when(traits:)` condition
// and whose code sits under `#if <Trait>`: with no trait enabled a consumer resolves nothing.
//
//   .package(url: "…/RxNetworkKit.git", from: "…", traits: ["AsyncHTTPClient", "Logging"])
//
// Benchmarks and the fuzzers are sibling packages (Benchmarks/, Fuzz/).

/// A product of `package`, used only when `trait` (or one of `traits`) is enabled.
func dependency(_ product: String, _ package: String, trait: String, or traits: String...) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: Set([trait] + traits)))
}

let asyncHTTPClient = "AsyncHTTPClient"
let logging = "Logging"
let metrics = "Metrics"
let tracing = "Tracing"
let serviceLifecycle = "ServiceLifecycle"
let postgreSQL = "PostgreSQL"

/// What the AsyncHTTPClient transport is built on.
let transportDependencies: [Target.Dependency] = [
    dependency("AsyncHTTPClient", "async-http-client", trait: asyncHTTPClient),
    dependency("NIOCore", "swift-nio", trait: asyncHTTPClient),
    dependency("NIOPosix", "swift-nio", trait: asyncHTTPClient),
    dependency("NIOHTTP1", "swift-nio", trait: asyncHTTPClient),
    dependency("NIOConcurrencyHelpers", "swift-nio", trait: asyncHTTPClient),
    // A WebSocket's reads reach RxHTTP as `Data` sharing the ByteBuffer's storage, not a copy.
    dependency("NIOFoundationCompat", "swift-nio", trait: asyncHTTPClient),
    dependency("NIOHTTPCompression", "swift-nio-extras", trait: asyncHTTPClient),
    // TLS for the WebSocket handshake, which runs on NIO directly (AsyncHTTPClient cannot upgrade).
    dependency("NIOSSL", "swift-nio-ssl", trait: asyncHTTPClient),
]

/// The server-Swift integrations of RxHTTP.
let integrationDependencies: [Target.Dependency] = [
    // The PostgreSQL fleet runs its statements with a no-op Logger (never the app's: its queries
    // carry credentials).
    dependency("Logging", "swift-log", trait: logging, or: postgreSQL),
    dependency("Metrics", "swift-metrics", trait: metrics),
    dependency("Tracing", "swift-distributed-tracing", trait: tracing),
    dependency("Instrumentation", "swift-distributed-tracing", trait: tracing),
    dependency("ServiceLifecycle", "swift-service-lifecycle", trait: serviceLifecycle),
    dependency("PostgresNIO", "postgres-nio", trait: postgreSQL),
]

let package = Package(
    name: "RxNetworkKit",
    // Synchronization's Atomic and Mutex need these releases on Apple platforms.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "RxNetworkKit", targets: ["RxNetworkKit"]),
        .library(name: "RxCore", targets: ["RxCore"]),
        .library(name: "RxReachability", targets: ["RxReachability"]),
        .library(name: "RxHTTP", targets: ["RxHTTP"]),
        .library(name: "RxTesting", targets: ["RxTesting"]),
        // Empty without the trait `AsyncHTTPClient`.
        .library(name: "RxNetworkKitAsyncHTTPClient", targets: ["RxNetworkKitAsyncHTTPClient"]),
    ],
    traits: [
        .trait(name: asyncHTTPClient, description: "AsyncHTTPClientTransport (product RxNetworkKitAsyncHTTPClient): SwiftNIO instead of URLSession"),
        .trait(name: logging, description: "NetworkLoggerPlugin(logger:) for a swift-log Logger"),
        .trait(name: metrics, description: "HTTPClientMetrics: the client's events as swift-metrics with OpenTelemetry's HTTP client names"),
        .trait(name: tracing, description: "TracingInterceptor: a swift-distributed-tracing span per call, traceparent on every attempt"),
        .trait(name: serviceLifecycle, description: "HTTPClientService: the client as a swift-service-lifecycle Service"),
        .trait(name: postgreSQL, description: "Fleet.postgreSQL(_:namespace:): a fleet of replicas coordinated through PostgreSQL (vapor/postgres-nio)"),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .target(name: "RxCore"),
        .target(name: "RxReachability", dependencies: ["RxCore"]),
        .target(name: "RxHTTP", dependencies: ["RxCore", "RxReachability"] + integrationDependencies),
        .target(
            name: "RxNetworkKit",
            dependencies: ["RxCore", "RxReachability", "RxHTTP"]
        ),
        .target(name: "RxTesting", dependencies: ["RxCore", "RxHTTP"]),
        .target(
            name: "RxNetworkKitAsyncHTTPClient",
            dependencies: ["RxCore", "RxHTTP"] + transportDependencies
        ),

        .executableTarget(
            name: "RxNetworkKitDemo",
            dependencies: [
                "RxNetworkKit", "RxTesting", "RxNetworkKitAsyncHTTPClient",
                dependency("Logging", "swift-log", trait: logging, or: serviceLifecycle),
                dependency("InMemoryLogging", "swift-log", trait: logging),
                dependency("Metrics", "swift-metrics", trait: metrics),
                dependency("MetricsTestKit", "swift-metrics", trait: metrics),
                dependency("Tracing", "swift-distributed-tracing", trait: tracing),
                dependency("InMemoryTracing", "swift-distributed-tracing", trait: tracing),
                dependency("ServiceLifecycle", "swift-service-lifecycle", trait: serviceLifecycle),
                dependency("PostgresNIO", "postgres-nio", trait: postgreSQL),
            ],
            path: "Examples/RxNetworkKitDemo"
        ),

        .executableTarget(
            name: "RxNetworkKitMetrics",
            dependencies: ["RxNetworkKit", "RxTesting"],
            path: "Examples/RxNetworkKitMetrics"
        ),

        .executableTarget(
            name: "RxNetworkKitSoak",
            dependencies: ["RxNetworkKit", "RxTesting", "RxNetworkKitAsyncHTTPClient"],
            path: "Examples/RxNetworkKitSoak"
        ),

        // A daemon in a ServiceGroup: SIGTERM drains the client (trait ServiceLifecycle; without it
        // it says how to build it).
        .executableTarget(
            name: "RxNetworkKitDaemon",
            dependencies: [
                "RxNetworkKit", "RxTesting",
                dependency("ServiceLifecycle", "swift-service-lifecycle", trait: serviceLifecycle),
                dependency("Logging", "swift-log", trait: serviceLifecycle),
            ],
            path: "Examples/RxNetworkKitDaemon"
        ),

        .testTarget(name: "RxCoreTests", dependencies: ["RxCore", "RxTesting"]),
        .testTarget(
            name: "RxReachabilityTests",
            dependencies: ["RxReachability", "RxTesting"]
        ),
        .testTarget(
            name: "RxHTTPTests",
            dependencies: [
                "RxHTTP", "RxTesting",
                dependency("Logging", "swift-log", trait: logging, or: serviceLifecycle),
                dependency("InMemoryLogging", "swift-log", trait: logging),
                dependency("Metrics", "swift-metrics", trait: metrics),
                dependency("MetricsTestKit", "swift-metrics", trait: metrics),
                dependency("Tracing", "swift-distributed-tracing", trait: tracing),
                dependency("Instrumentation", "swift-distributed-tracing", trait: tracing),
                dependency("InMemoryTracing", "swift-distributed-tracing", trait: tracing),
                dependency("ServiceLifecycle", "swift-service-lifecycle", trait: serviceLifecycle),
                dependency("ServiceLifecycleTestKit", "swift-service-lifecycle", trait: serviceLifecycle),
                dependency("PostgresNIO", "postgres-nio", trait: postgreSQL),
            ]
        ),
        .testTarget(
            name: "RxNetworkKitTests",
            dependencies: ["RxNetworkKit", "RxTesting"]
        ),
        .testTarget(name: "RxTestingTests", dependencies: ["RxTesting", "RxHTTP"]),
        .testTarget(
            name: "RxNetworkKitAsyncHTTPClientTests",
            dependencies: ["RxNetworkKitAsyncHTTPClient", "RxNetworkKit", "RxTesting"] + transportDependencies
        ),
    ],
    // Swift 6 for every target: complete concurrency checking is the language mode's, not a setting.
    // Warnings are errors in CI (`-Xswiftc -warnings-as-errors`): an unsafe flag here would stop the
    // package from being anyone's dependency.
    swiftLanguageModes: [.v6]
)
