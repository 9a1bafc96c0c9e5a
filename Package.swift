// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "Quire",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "Quire", targets: ["Quire"]),
    .library(name: "QuireApp", targets: ["QuireApp"]),
    .executable(name: "quire", targets: ["quire"]),
    .executable(name: "quire-bench", targets: ["quire-bench"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
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
      name: "Quire",
      dependencies: [
        "CQuireShims", "CQuireImaging", .product(name: "ZIPFoundation", package: "ZIPFoundation"),
        .product(name: "GRDB", package: "GRDB.swift"),
      ]
    ),
    .target(name: "QuireSyncProtocol", dependencies: ["Quire"]),
    .target(
      name: "QuireApp",
      dependencies: [
        "Quire", .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "NIOCore", package: "swift-nio"),
      ],
      resources: [.copy("Resources/web")]
    ),
    .executableTarget(
      name: "quire",
      dependencies: [
        "Quire", "QuireApp", .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .executableTarget(
      name: "quire-bench",
      dependencies: [
        "Quire", "QuireApp", "CQuireShims",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
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
        "Quire", "QuireApp", "QuireSyncProtocol", "CQuireShims", "quire-test-helper", "quire",
        .product(name: "ZIPFoundation", package: "ZIPFoundation"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
