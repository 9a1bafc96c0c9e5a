// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "Quire",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "Quire", targets: ["Quire"]),
    .executable(name: "quire", targets: ["quire"]),
    .executable(name: "quire-bench", targets: ["quire-bench"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
  ],
  targets: [
    .target(name: "CQuireShims"),
    .target(
      name: "Quire",
      dependencies: ["CQuireShims", .product(name: "ZIPFoundation", package: "ZIPFoundation")]
    ),
    .executableTarget(
      name: "quire",
      dependencies: ["Quire", .product(name: "ArgumentParser", package: "swift-argument-parser")]
    ),
    .executableTarget(
      name: "quire-bench",
      dependencies: ["Quire", "CQuireShims", .product(name: "ArgumentParser", package: "swift-argument-parser")]
    ),
    .executableTarget(
      name: "quire-test-helper",
      dependencies: ["Quire"],
      path: "Tests/quire-test-helper"
    ),
    .testTarget(
      name: "QuireTests",
      dependencies: ["Quire", "CQuireShims", "quire-test-helper", "quire"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
