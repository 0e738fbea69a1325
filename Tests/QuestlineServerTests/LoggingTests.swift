import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import NIOCore
import QuestlineCore
import QuestlineServer
import QuestlineStore
import QuestlineTestSupport
import Testing

/// The part of a session this test needs.
private struct SignedIn: Decodable {
    struct Member: Decodable { let id: String }
    let token: String
    let member: Member
}

/// `--log-format json`: one JSON object a line, with the request's id, member and route; and
/// no secret (password, bearer token, session cookie) in any line.
@Suite struct LoggingTests {
    @Test func jsonLinesCarryTheMessageLevelAndMetadata() throws {
        let lines = NIOLockedValueBox<[String]>([])
        var logger = Logger(label: "questline.test") { label in
            JSONLogHandler(label: label, level: .debug) { line in lines.withLockedValue { $0.append(line) } }
        }
        logger[metadataKey: "request_id"] = "abc"
        logger.info("Said \"hi\"\nthen left", metadata: ["count": .stringConvertible(3), "list": ["a", "b"]])
        logger.trace("not at trace")
        let written = lines.withLockedValue { $0 }
        #expect(written.count == 1)
        let line = try #require(written.first)
        let parsed = try JSONSerialization.jsonObject(with: Data(line.utf8))
        let object = try #require(parsed as? [String: Any])
        #expect(object["message"] as? String == "Said \"hi\"\nthen left")
        #expect(object["level"] as? String == "info" && object["label"] as? String == "questline.test")
        #expect(object["request_id"] as? String == "abc" && object["count"] as? String == "3")
        #expect(object["list"] as? [String] == ["a", "b"])
        #expect((object["ts"] as? String)?.hasSuffix("Z") == true)
    }

    /// The text lines keep `StreamLogHandler`'s format (time, level, label, sorted metadata,
    /// source, message), with the metadata formatted only when a line is written.
    @Test func textLinesKeepTheStreamFormat() throws {
        let lines = NIOLockedValueBox<[String]>([])
        var logger = Logger(label: "questline.test") { label in
            TextLogHandler(label: label, level: .debug) { line in lines.withLockedValue { $0.append(line) } }
        }
        logger[metadataKey: "request_id"] = "abc"
        logger[metadataKey: "member_id"] = "m1"
        logger.info("Answered", metadata: ["count": .stringConvertible(3)])
        logger.trace("not at trace")
        struct Broken: Error {}
        logger.warning("Failed", error: Broken())
        let written = lines.withLockedValue { $0 }
        #expect(written.count == 2)
        let pattern =
            #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} info questline\.test: count=3 member_id=m1 request_id=abc \[QuestlineServerTests\] Answered\n$/#
        #expect(try pattern.wholeMatch(in: written[0]) != nil, "\(written[0])")
        #expect(written[1].contains(" warning questline.test: error.message=Broken() error.type="))
        #expect(written[1].hasSuffix("request_id=abc [QuestlineServerTests] Failed\n"))
    }

    @Test(arguments: TestDatabase.available)
    func requestLinesNameTheRequestMemberAndRouteAndNoSecret(_ db: TestDatabase) async throws {
        let lines = NIOLockedValueBox<[String]>([])
        try await db.withStore { store in
            let logger = Logger(label: "questline") { label in
                JSONLogHandler(label: label, level: .info) { line in lines.withLockedValue { $0.append(line) } }
            }
            var configuration = Harness.configuration(clock: ManualClock(Harness.start))
            configuration.logLevel = .info
            let app = try await buildApplication(configuration: configuration, store: store, logger: logger)
            try await app.test(.router) { client in
                let password = "s3cret-Passw0rd"
                let signUp = try await client.execute(
                    uri: "/api/v1/auth/signup", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(
                        string:
                            #"{"email":"log@example.com","password":"\#(password)","displayName":"Log","timeZone":"UTC"}"#
                    ))
                #expect(signUp.status == .created)
                let session = try JSONDecoder().decode(SignedIn.self, from: Data(String(buffer: signUp.body).utf8))
                let me = try await client.execute(
                    uri: "/api/v1/me?q=private", method: .get, headers: [.authorization: "Bearer \(session.token)"])
                #expect(me.status == .ok)
                let (formCookie, formToken) = try await Harness.formToken(client: client, cookie: nil)
                let web = try await client.execute(
                    uri: "/login", method: .post,
                    headers: [.contentType: "application/x-www-form-urlencoded", .cookie: formCookie],
                    body: ByteBuffer(string: "login=log%40example.com&password=\(password)&_csrf=\(formToken)"))
                #expect(web.headers[.setCookie] != nil, "the web login set no session cookie: \(web.status)")
                // A request the address checks refuse (a control character in the query) is logged
                // too, with the status it was sent.
                let refused = try await client.execute(
                    uri: "/api/v1/me?q=%01", method: .get, headers: [.authorization: "Bearer \(session.token)"])
                #expect(refused.status == .badRequest)
                let cookie = web.headers[.setCookie] ?? ""
                let secrets = [
                    password, session.token, String(cookie.split(separator: ";")[0].split(separator: "=").last ?? ""),
                ]
                let written = lines.withLockedValue { $0 }
                for line in written {
                    #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "not JSON: \(line)")
                    for secret in secrets where !secret.isEmpty {
                        #expect(!line.contains(secret), "a secret in the logs: \(line)")
                    }
                    #expect(!line.contains("private"), "a query string in the logs: \(line)")
                }
                let request = try #require(
                    written.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
                        .first { $0["path"] as? String == "/api/v1/me" })
                #expect(request["route"] as? String == "/api/v1/me")
                #expect(request["status"] as? String == "200")
                #expect(request["member_id"] as? String == session.member.id)
                #expect((request["request_id"] as? String)?.isEmpty == false)
                let refusedLine = written.compactMap {
                    try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                }
                .first { $0["path"] as? String == "/api/v1/me" && $0["status"] as? String == "400" }
                #expect(refusedLine != nil, "no line for the refused request")
            }
        }
    }
}
