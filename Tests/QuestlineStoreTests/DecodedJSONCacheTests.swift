import Foundation
import Testing

@testable import QuestlineStore

/// JSON columns decoded once per text (`DecodedJSONCache`): a text always gives what decoding
/// it gives, a bad text is refused every time, and the cache never grows past its capacity.
@Suite struct DecodedJSONCacheTests {
    struct Spec: Codable, Sendable, Equatable {
        var title: String
        var minutes: Int
    }

    @Test func aTextGivesWhatDecodingItGives() throws {
        let cache = DecodedJSONCache<Spec>(capacity: 3)
        let text = #"{"title":"Read","minutes":20}"#
        #expect(try cache.decode(text) == Spec(title: "Read", minutes: 20))
        #expect(try cache.decode(text) == Spec(title: "Read", minutes: 20))
        #expect(try cache.decode(#"{"title":"Read","minutes":25}"#) == Spec(title: "Read", minutes: 25))
        #expect(cache.count == 2)
        for _ in 0..<2 { #expect(throws: (any Error).self) { try cache.decode(#"{"title":"Read"}"#) } }
        #expect(cache.count == 2)
        for n in 0..<10 { _ = try cache.decode(#"{"title":"T\#(n)","minutes":\#(n)}"#) }
        #expect(cache.count <= 3)
        #expect(try cache.decode(text) == Spec(title: "Read", minutes: 20))
    }
}
