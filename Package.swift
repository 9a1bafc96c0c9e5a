// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "Quire",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "Quire", targets: ["Quire"]),
    .library(name: "QuireCore", targets: ["QuireCore"]),
    .library(name: "QuireApp", targets: ["QuireApp"]),
    .library(name: "QuireSyncProtocol", targets: ["QuireSyncProtocol"]),
    .library(name: "QuireServer", targets: ["QuireServer"]),
    .library(name: "QuireSync", targets: ["QuireSync"]),
    .library(name: "QuireWeb", targets: ["QuireWeb"]),
    .library(name: "QuireSyncPlanning", targets: ["QuireSyncPlanning"]),
    .library(name: "QuireSyncSimulation", targets: ["QuireSyncSimulation"]),
    .executable(name: "quire", targets: ["quire"]),
    .executable(name: "quire-bench", targets: ["quire-bench"]),
    .executable(name: "quire-sim", targets: ["quire-sim"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
  ],
  targets: [
    .target(name: "CQuireShims"),
    .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
    .systemLibrary(name: "CJPEG", providers: [.apt(["libjpeg62-turbo-dev"])]),
    .target(
      name: "CQuireImaging",
      dependencies: ["CPNG", "CJPEG"],
      linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("jpeg")]
    ),
    .target(
      name: "QuireCore",
      dependencies: ["CQuireShims", .product(name: "ZIPFoundation", package: "ZIPFoundation")]
    ),
    .target(
      name: "Quire",
      dependencies: [
        "QuireCore", "CQuireShims", "CQuireImaging", .product(name: "ZIPFoundation", package: "ZIPFoundation"),
        .product(name: "GRDB", package: "GRDB.swift"),
      ]
    ),
    .target(
      name: "QuireSyncProtocol",
      dependencies: ["QuireCore", .product(name: "Crypto", package: "swift-crypto")]
    ),
    .target(
      name: "QuireServer",
      dependencies: [
        "QuireCore", "QuireSyncProtocol", "QuireWeb", "CQuireShims",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
        .product(name: "HummingbirdTLS", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
      ]
    ),
    .target(name: "QuireSyncPlanning"),
    .target(name: "QuireSyncSimulation", dependencies: ["QuireSyncPlanning"]),
    .executableTarget(name: "quire-sim", dependencies: ["QuireSyncSimulation"]),
    .target(
      name: "QuireSync",
      dependencies: [
        "Quire", "QuireSyncProtocol", .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
      ]
    ),
    .target(
      name: "QuireApp",
      dependencies: [
        "Quire", "QuireCore", "QuireSync", "QuireWeb",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ]
    ),
    .target(
      name: "QuireWeb",
      dependencies: [
        "QuireSyncProtocol", .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ],
      resources: [.copy("Resources/web")]
    ),
    .executableTarget(
      name: "quire",
      dependencies: [
        "Quire", "QuireApp", "QuireServer", "QuireSync", "QuireSyncProtocol",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .executableTarget(
      name: "quire-bench",
      dependencies: [
        "Quire", "QuireApp", "QuireCore", "QuireSync", "QuireServer", "QuireSyncProtocol",
        "CQuireShims",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
      ]
    ),
    .executableTarget(
      name: "quire-test-helper",
      dependencies: ["Quire", "QuireApp"],
      path: "Tests/quire-test-helper"
    ),
    .testTarget(
      name: "QuireTests",
      dependencies: [
        "Quire", "QuireCore", "QuireApp", "QuireSyncProtocol", "QuireServer", "QuireSync", "QuireWeb",
        "CQuireShims",
        "QuireSyncPlanning", "QuireSyncSimulation", "quire-test-helper",
        "quire",
        .product(name: "ZIPFoundation", package: "ZIPFoundation"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "Crypto", package: "swift-crypto"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
