import Foundation
import QuestlineAPI
import QuestlineTestSupport
import Testing

@Suite struct ContractTests {
    @Test func theContractShipsWithTheModule() throws {
        let text = String(decoding: try QuestlineContract.yaml(), as: UTF8.self)
        #expect(text.contains("url: /api/v1"))
        // Every write a device may retry takes the idempotency key.
        for operation in [
            "signUp", "updateMe", "updateMember", "createHousehold", "createChild", "createInvitation",
            "acceptInvitation",
        ] {
            let start = try #require(text.range(of: "operationId: \(operation)\n"))
            let rest = text[start.upperBound...]
            let end = rest.range(of: "operationId:")?.lowerBound ?? rest.endIndex
            #expect(
                rest[..<end].contains("#/components/parameters/IdempotencyKey"), "\(operation) takes no Idempotency-Key"
            )
        }
    }

    /// An operation that takes an Idempotency-Key documents the answers the key itself may
    /// cause: 400 (a malformed key), 409 (in progress, or applied without its response) and 422
    /// (reused for another request).
    @Test func everyOperationWithAnIdempotencyKeyDocumentsItsAnswers() throws {
        let text = String(decoding: try QuestlineContract.yaml(), as: UTF8.self)
        let operations = text.components(separatedBy: "operationId: ").dropFirst()
        var checked = 0
        for operation in operations {
            let body = operation.components(separatedBy: "\n  /").first ?? operation
            guard body.contains("#/components/parameters/IdempotencyKey") else { continue }
            checked += 1
            let name = body.prefix { $0 != "\n" }
            for code in ["400", "409", "422"] {
                #expect(body.contains("\"\(code)\": {$ref"), "\(name) does not document \(code)")
            }
        }
        #expect(checked > 20)
    }

    @Test func generatedTypesRoundTripTheWireFormat() throws {
        let json =
            #"{"id":"6b1c1b1e-8a36-4f8e-9d3c-1f2a3b4c5d6e","displayName":"Ada","timeZone":"Asia/Kolkata","role":"child","createdAt":"2026-05-07T10:00:00Z"}"#
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let member = try decoder.decode(Components.Schemas.Member.self, from: Data(json.utf8))
        #expect(member.role == .child)
        #expect(member.email == nil)
        #expect(member.createdAt == Date(timeIntervalSince1970: 1_778_148_000))
        #expect(throws: DecodingError.self) {
            try decoder.decode(
                Components.Schemas.Member.self,
                from: Data(
                    #"{"id":"x","displayName":"A","timeZone":"UTC","role":"boss","createdAt":"2026-05-07T10:00:00Z"}"#
                        .utf8))
        }
    }
}

@Suite struct RFC3339Tests {
    @Test func parsesLikeFoundationAndPrintsUTC() throws {
        let transcoder = RFC3339DateTranscoder()
        for text in [
            "2026-05-10T08:30:00Z", "2026-05-10T10:30:00+02:00", "2026-05-10T03:00:00-05:30", "1970-01-01T00:00:00Z",
            "2024-02-29T23:59:59Z", "2026-12-31T23:59:59-10:00",
        ] {
            #expect(try transcoder.decode(text) == (try Date(text, strategy: .iso8601)), "\(text)")
        }
        #expect(try transcoder.decode("2026-05-10T08:30:00.250Z").timeIntervalSince1970 == 1_778_401_800.25)
        #expect(try transcoder.encode(try transcoder.decode("2026-05-10T10:30:00+02:00")) == "2026-05-10T08:30:00Z")
        #expect(try transcoder.encode(Date(timeIntervalSince1970: 1_778_401_800.25)) == "2026-05-10T08:30:00.250Z")
        #expect(try transcoder.encode(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
        for bad in [
            "", "2026-05-10", "2026-02-30T00:00:00Z", "2026-05-10T24:00:00Z", "2026-05-10T08:30:00",
            "2026-05-10T08:30:00+2:00",
            "2026-05-10T08:30:00Zjunk", "2026-05-10T08:30:00.Z", "yesterday at noon, roughly",
        ] {
            #expect(throws: (any Error).self) { try transcoder.decode(bad) }
        }
        var generator = SeededGenerator(seed: 21)
        for _ in 0..<2_000 {
            let millis = Int.random(in: -2_000_000_000_000...4_000_000_000_000, using: &generator)
            let date = Date(timeIntervalSince1970: Double(millis) / 1000)
            let back = try transcoder.decode(transcoder.encode(date))
            #expect(Int((back.timeIntervalSince1970 * 1000).rounded()) == millis, "\(date)")
        }
    }
}
