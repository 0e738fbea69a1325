import CompressNIO
import Foundation
import HTTPTypes
import NIOCore
import QuestlineTestSupport
import Testing

/// Styles and scripts go compressed to a browser that takes gzip; `/favicon.ico` answers.
@Suite struct StaticAssetsTests {
    @Test func textFilesAreServedCompressedWithTheirETag() async throws {
        try await Harness.run(on: [.sqlite]) { app in
            let plain = try await app.send(.get, "/static/css/app.css")
            #expect(plain.status == .ok && plain.headers[.contentEncoding] == nil)
            for path in ["/static/css/app.css", "/static/js/app.js", "/static/geo/us-states.json"] {
                let zipped = try await app.send(.get, path, headers: [.acceptEncoding: "gzip, deflate, br"])
                #expect(zipped.status == .ok && zipped.headers[.contentEncoding] == "gzip", "\(path)")
                #expect(zipped.headers[.vary] == "Accept-Encoding")
                var buffer = ByteBuffer(bytes: zipped.bytes)
                let unzipped = try buffer.decompress(with: .gzip())
                let original = try await app.send(.get, path)
                #expect(Array(unzipped.readableBytesView) == original.bytes, "\(path)")
                #expect(zipped.bytes.count < original.bytes.count / 2, "\(path): \(zipped.bytes.count) bytes")
                let etag = try #require(zipped.headers[.eTag])
                let again = try await app.send(
                    .get, path, headers: [.acceptEncoding: "gzip", .ifNoneMatch: etag])
                #expect(again.status == .notModified)
            }
            let icon = try await app.send(.get, "/favicon.ico")
            #expect(icon.status == .ok && icon.headers[.contentType] == "image/svg+xml" && icon.text.contains("<svg"))
        }
    }
}
