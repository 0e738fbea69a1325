import Foundation
import QuestlineAPI
import Testing

@Suite struct ContractTests {
    @Test func theContractShipsWithTheModule() throws {
        let text = String(decoding: try QuestlineContract.yaml(), as: UTF8.self)
        #expect(text.contains("url: /api/v1"))
        // Every write a device may retry takes the idempotency key.
        for operation in ["signUp", "updateMe", "updateMember", "createHousehold", "createChild", "createInvitation", "acceptInvitation"] {
            let start = try #require(text.range(of: "operationId: \(operation)\n"))
            let rest = text[start.upperBound...]
            let end = rest.range(of: "operationId:")?.lowerBound ?? rest.endIndex
            #expect(rest[..<end].contains("#/components/parameters/IdempotencyKey"), "\(operation) takes no Idempotency-Key")
        }
    }

    @Test func generatedTypesRoundTripTheWireFormat() throws {
        let json = #"{"id":"6b1c1b1e-8a36-4f8e-9d3c-1f2a3b4c5d6e","displayName":"Ada","timeZone":"Asia/Kolkata","role":"child","createdAt":"2026-05-07T10:00:00Z"}"#
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let member = try decoder.decode(Components.Schemas.Member.self, from: Data(json.utf8))
        #expect(member.role == .child)
        #expect(member.email == nil)
        #expect(member.createdAt == Date(timeIntervalSince1970: 1_778_148_000))
        #expect(throws: DecodingError.self) {
            try decoder.decode(Components.Schemas.Member.self, from: Data(#"{"id":"x","displayName":"A","timeZone":"UTC","role":"boss","createdAt":"2026-05-07T10:00:00Z"}"#.utf8))
        }
    }
}
