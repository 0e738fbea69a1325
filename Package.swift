// swift-tools-version:6.1
import Foundation
import PackageDescription

/// Imports are internal unless marked `public import` (the module's public API exposes them).
let internalImports: [SwiftSetting] = [.enableUpcomingFeature("InternalImportsByDefault")]

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Questline",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "QuestlineCore", targets: ["QuestlineCore"]),
        .library(name: "QuestlineAPI", targets: ["QuestlineAPI"]),
        .library(name: "QuestlineClient", targets: ["QuestlineClient"]),
        .library(name: "QuestlineKit", targets: ["QuestlineKit"]),
        .executable(name: "questline", targets: ["questline"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird.git", from: "2.1.0"),
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession.git", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        .package(url: "https://github.com/vapor/sql-kit.git", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit.git", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-kit.git", from: "2.17.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-async-algorithms.git", from: "1.1.4"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        // Whole-response snapshots of the screens most likely to regress (tests only).
        .package(url: "https://github.com/pointfreeco/swift-snapshot-testing.git", from: "1.19.7"),
    ],
    targets: [
        // Pure domain: Foundation only, no I/O, no clock, no randomness of its own.
        .target(name: "QuestlineCore", swiftSettings: strict + internalImports),

        // Words in the reader's language: the message catalogs (one string catalog per language),
        // CLDR plurals, and numbers, days, times and lists in the reader's locale (Foundation's
        // ICU formats). Foundation and the core only: an app renders the core's copy with it too.
        .target(
            name: "QuestlineL10n", dependencies: ["QuestlineCore"], resources: [.copy("Resources")],
            swiftSettings: strict + internalImports),

        // The wire contract (openapi.yaml) and the types generated from it.
        .target(
            name: "QuestlineAPI",
            dependencies: ["QuestlineCore", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            resources: [.copy("openapi.yaml")],
            swiftSettings: strict,
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),

        // The generated client, for apps and tests.
        .target(
            name: "QuestlineClient",
            dependencies: [
                "QuestlineAPI",
                "QuestlineCore",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strict,
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),

        // What an app embeds (iOS, or a device on Linux): the outbox, sessions, live updates, the
        // shield and the widget between syncs. Foundation, the core and the client only: no server
        // code, and the HTTP transport is injected (URLSession's on Apple platforms,
        // AsyncHTTPClient's on Linux).
        .target(
            name: "QuestlineKit",
            dependencies: [
                "QuestlineCore", "QuestlineL10n", "QuestlineAPI", "QuestlineClient",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strict + internalImports
        ),

        // SQL schema, migrations and repositories on SQLite and PostgreSQL (one SQL layer: SQLKit).
        .target(
            name: "QuestlineStore",
            dependencies: [
                "QuestlineCore",
                "QuestlineL10n",
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strict + internalImports
        ),

        // The use cases of every feature (load what a rule needs, ask the core, apply in one
        // transaction), with no HTTP framework: what the server, the CLI and the tests call.
        .target(
            name: "QuestlineFeatures",
            dependencies: [
                "QuestlineCore",
                "QuestlineL10n",
                "QuestlineStore",
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: strict + internalImports
        ),

        // Hummingbird adapters: composition root, middleware, API handlers, web pages.
        .target(
            name: "QuestlineServer",
            dependencies: [
                "QuestlineCore",
                "QuestlineL10n",
                "QuestlineStore",
                "QuestlineFeatures",
                "QuestlineAPI",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: strict,
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),

        // The command-line tools (migrate, demo-data, imports, previews) over the use cases, as a
        // library so they are testable; `serve` is added by the executable.
        .target(
            name: "QuestlineCLI",
            dependencies: [
                "QuestlineCore",
                "QuestlineL10n",
                "QuestlineStore",
                "QuestlineFeatures",
                "QuestlineKit", "QuestlineClient", "QuestlineAPI",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "questline",
            dependencies: [
                "QuestlineCLI", "QuestlineServer", "QuestlineStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "OTel", package: "swift-otel"),
            ],
            swiftSettings: strict),
        // The bare-route reference of scripts/load.sh: the same Hummingbird and build flags, one
        // route, nothing else (every route's speed is reported as a ratio to it).
        .executableTarget(
            name: "BareRoute", dependencies: [.product(name: "Hummingbird", package: "hummingbird")],
            path: "Benchmarks/BareRoute", swiftSettings: strict),

        .testTarget(
            name: "QuestlineCoreTests", dependencies: ["QuestlineCore", "QuestlineL10n", "QuestlineTestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: strict),
        .testTarget(
            name: "QuestlineAPITests", dependencies: ["QuestlineAPI", "QuestlineTestSupport"], swiftSettings: strict),
        // What the test targets share: the databases every store, feature and HTTP test runs on.
        .target(
            name: "QuestlineTestSupport",
            dependencies: [
                "QuestlineStore", .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/QuestlineTestSupport",
            swiftSettings: strict
        ),
        .testTarget(
            name: "QuestlineStoreTests",
            dependencies: [
                "QuestlineStore", "QuestlineCore", "QuestlineTestSupport",
                .product(name: "SQLKit", package: "sql-kit"),
            ], swiftSettings: strict),
        .testTarget(
            name: "QuestlineServerTests",
            dependencies: [
                .product(name: "CompressNIO", package: "compress-nio"),
                "QuestlineServer", "QuestlineFeatures", "QuestlineStore", "QuestlineCore", "QuestlineL10n",
                "QuestlineTestSupport",
                "QuestlineAPI",
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SnapshotTesting", package: "swift-snapshot-testing"),
            ],
            exclude: ["__Snapshots__"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "QuestlineClientTests",
            dependencies: [
                "QuestlineClient", "QuestlineServer", "QuestlineFeatures", "QuestlineStore", "QuestlineCore",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "QuestlineKitTests",
            dependencies: [
                "QuestlineKit", "QuestlineClient", "QuestlineAPI", "QuestlineServer", "QuestlineFeatures",
                "QuestlineStore", "QuestlineCore", "QuestlineL10n", "QuestlineTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "QuestlineCLITests",
            dependencies: [
                "QuestlineCLI", "QuestlineStore", "QuestlineCore", "QuestlineFeatures",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)

// Benchmarks (package-benchmark) are built only when asked for, so the everyday build and CI
// do not compile the benchmark framework: `QUESTLINE_BENCHMARKS=1 swift package benchmark`.
if ProcessInfo.processInfo.environment["QUESTLINE_BENCHMARKS"] == "1" {
    package.dependencies.append(
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]))
    package.targets.append(
        .executableTarget(
            name: "CoreBenchmarks",
            dependencies: ["QuestlineCore", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/CoreBenchmarks",
            swiftSettings: strict,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ))
}
