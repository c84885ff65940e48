// swift-tools-version:6.0
import PackageDescription

// A transport beside the library, not in it: RxNetworkKit keeps zero package dependencies, and a
// daemon that outgrows URLSession adds this one package. `name:` pins the identity of the parent
// package, which otherwise is its checkout's folder name.
let package = Package(
    name: "RxNetworkKitAsyncHTTPClient",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "RxNetworkKitAsyncHTTPClient", targets: ["RxNetworkKitAsyncHTTPClient"]),
    ],
    dependencies: [
        .package(name: "RxNetworkKit", path: "../.."),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
    ],
    targets: [
        .target(
            name: "RxNetworkKitAsyncHTTPClient",
            dependencies: [
                .product(name: "RxHTTP", package: "RxNetworkKit"),
                .product(name: "RxCore", package: "RxNetworkKit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // The same requests over both transports: `swift run --package-path Transports/AsyncHTTPClient transport-demo`.
        .executableTarget(
            name: "transport-demo",
            dependencies: [
                "RxNetworkKitAsyncHTTPClient",
                .product(name: "RxNetworkKit", package: "RxNetworkKit"),
                .product(name: "RxTesting", package: "RxNetworkKit"),
            ],
            path: "Examples/TransportDemo"
        ),
        .testTarget(
            name: "RxNetworkKitAsyncHTTPClientTests",
            dependencies: [
                "RxNetworkKitAsyncHTTPClient",
                .product(name: "RxNetworkKit", package: "RxNetworkKit"),
                .product(name: "RxTesting", package: "RxNetworkKit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
