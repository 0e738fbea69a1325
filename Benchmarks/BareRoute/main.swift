import Hummingbird

/// The bare-route reference for `scripts/load.sh`: the same Hummingbird and build flags as the
/// product, one route answering a small JSON body, no middleware, no database. Every route of the
/// product is reported as a ratio to this one, the stack's limit on this machine.
///
///   BareRoute [--port N]
struct Status: ResponseEncodable {
    let status: String
    let service: String
}

let arguments = CommandLine.arguments
let port =
    arguments.firstIndex(of: "--port").flatMap { arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil }
    ?? 8090
let router = Router()
router.get("/bare") { _, _ in Status(status: "ok", service: "bare") }
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
