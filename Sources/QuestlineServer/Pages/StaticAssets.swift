import CompressNIO
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// The bundled text files (styles, scripts, pictures, the map's shapes) compressed with gzip
/// once, at start (CompressNIO over zlib): served compressed to a browser that accepts gzip,
/// with an ETag and the same cache lifetime as the files themselves. `/favicon.ico`, which
/// browsers ask for by themselves, is the product's icon.
struct StaticAssets: Sendable {
    struct Asset: Sendable {
        let gzip: ByteBuffer
        let contentType: String
        let etag: String
    }

    /// By address (`/static/css/app.css`).
    let assets: [String: Asset]
    let icon: ByteBuffer

    static let compressible: [String: String] = [
        "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8", "svg": "image/svg+xml",
        "json": "application/json",
    ]

    /// Reads and compresses every compressible file under `directory` (the bundle's `public`).
    static func load(directory: String) throws -> StaticAssets {
        var assets: [String: Asset] = [:]
        let root = URL(fileURLWithPath: directory)
        let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard let type = compressible[file.pathExtension],
                let data = FileManager.default.contents(atPath: file.path)
            else { continue }
            var plain = ByteBuffer(bytes: data)
            let gzip = try plain.compress(with: .gzip())
            let relative = String(file.path.dropFirst(root.path.count))
            let digest = SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined()
            assets["/static" + relative] = Asset(gzip: gzip, contentType: type, etag: "\"gz-\(digest)\"")
        }
        let icon = FileManager.default.contents(atPath: root.appendingPathComponent("icon.svg").path) ?? Data()
        return StaticAssets(assets: assets, icon: ByteBuffer(bytes: icon))
    }

    /// The compressed answer to `request`, when it asks for a compressible file and accepts gzip.
    func response(to request: Request) -> Response? {
        guard let asset = assets[request.uri.path],
            request.headers[.acceptEncoding]?.lowercased().contains("gzip") == true
        else { return nil }
        var headers: HTTPFields = [
            .contentType: asset.contentType, .contentEncoding: "gzip", .vary: "Accept-Encoding",
            .cacheControl: "max-age=3600", .eTag: asset.etag,
        ]
        if request.headers[.ifNoneMatch] == asset.etag {
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(asset.gzip.readableBytes)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: asset.gzip))
    }

    /// `/favicon.ico`: the icon, as SVG (every browser that asks for it reads SVG).
    var favicon: Response {
        Response(
            status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "max-age=86400"],
            body: .init(byteBuffer: icon))
    }
}
