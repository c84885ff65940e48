// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "RxNetworkKitBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "RxNetworkKit", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
    ],
    targets: [
        .executableTarget(
            name: "RxCoreBenchmarks",
            dependencies: [
                .product(name: "RxCore", package: "RxNetworkKit"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ],
            path: "Benchmarks/RxCoreBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
