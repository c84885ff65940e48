// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for the parsers the library owns, a sibling package so the library keeps zero
// dependencies and its normal build never sees the sanitizer. Each target defines only
// `LLVMFuzzerTestOneInput`: libFuzzer supplies `main`, so they build with the fuzzer flags only
// (`Fuzz/run.sh` passes them). `name:` pins the parent's identity whatever its folder is called.
let targets = [
    "FuzzURLBuilding", "FuzzRetryAfter", "FuzzResponseDecoding", "FuzzHeaders",
    "FuzzMultipart", "FuzzRedirects", "FuzzLoopbackRequestParser", "FuzzEventStream", "FuzzJSONLines", "FuzzCacheHeaders", "FuzzWebSocketFrames",
    "FuzzTransferHeaders", "FuzzOutboxRecords",
]

let package = Package(
    name: "RxNetworkKitFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "RxNetworkKit", path: "..")],
    targets: [.target(name: "FuzzSupport", path: "Support/FuzzSupport")] + targets.map { name in
        .executableTarget(
            name: name,
            dependencies: [
                "FuzzSupport",
                .product(name: "RxHTTP", package: "RxNetworkKit"),
                .product(name: "RxTesting", package: "RxNetworkKit"),
            ],
            path: "Targets/\(name)"
        )
    },
    swiftLanguageModes: [.v6]
)
