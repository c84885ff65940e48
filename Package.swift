// swift-tools-version:6.0
import PackageDescription

// The library has no package dependencies: only the toolchain (Foundation,
// FoundationNetworking on Linux, Dispatch, Synchronization, Glibc/Darwin).
// Benchmarks live in their own package under Benchmarks/.
let strictSettings: [SwiftSetting] = []

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
    ],
    targets: [
        .target(name: "RxCore", swiftSettings: strictSettings),
        .target(name: "RxReachability", dependencies: ["RxCore"], swiftSettings: strictSettings),
        .target(name: "RxHTTP", dependencies: ["RxCore", "RxReachability"], swiftSettings: strictSettings),
        .target(
            name: "RxNetworkKit",
            dependencies: ["RxCore", "RxReachability", "RxHTTP"],
            swiftSettings: strictSettings
        ),
        .target(name: "RxTesting", dependencies: ["RxCore", "RxHTTP"], swiftSettings: strictSettings),

        .executableTarget(
            name: "RxNetworkKitDemo",
            dependencies: ["RxNetworkKit", "RxTesting"],
            path: "Examples/RxNetworkKitDemo",
            swiftSettings: strictSettings
        ),

        .executableTarget(
            name: "RxNetworkKitMetrics",
            dependencies: ["RxNetworkKit", "RxTesting"],
            path: "Examples/RxNetworkKitMetrics",
            swiftSettings: strictSettings
        ),

        .executableTarget(
            name: "RxNetworkKitSoak",
            dependencies: ["RxNetworkKit", "RxTesting"],
            path: "Examples/RxNetworkKitSoak",
            swiftSettings: strictSettings
        ),

        .testTarget(name: "RxCoreTests", dependencies: ["RxCore", "RxTesting"], swiftSettings: strictSettings),
        .testTarget(
            name: "RxReachabilityTests",
            dependencies: ["RxReachability", "RxTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "RxHTTPTests", dependencies: ["RxHTTP", "RxTesting"], swiftSettings: strictSettings),
        .testTarget(
            name: "RxNetworkKitTests",
            dependencies: ["RxNetworkKit", "RxTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "RxTestingTests", dependencies: ["RxTesting", "RxHTTP"], swiftSettings: strictSettings),
    ],
    swiftLanguageModes: [.v6]
)
