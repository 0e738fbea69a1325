import Foundation
import Synchronization

/// JSON columns decoded once per text: the same text decodes to the same value, so a value
/// decoded for one request serves the next that reads the same text (a quest's spec is read by
/// every usage report and board of its child).
/// Keyed by the whole text, so it is never stale and needs nothing from other instances. At
/// most `capacity` texts are kept; when full it starts again.
final class DecodedJSONCache<Value: Decodable & Sendable>: Sendable {
    private let values = Mutex<[String: Value]>([:])
    let capacity: Int

    init(capacity: Int = 2_000) { self.capacity = capacity }

    func decode(_ text: String) throws -> Value {
        if let known = values.withLock({ $0[text] }) { return known }
        let value = try JSONDecoder().decode(Value.self, from: Data(text.utf8))
        values.withLock { values in
            if values.count >= capacity { values.removeAll(keepingCapacity: true) }
            values[text] = value
        }
        return value
    }

    var count: Int { values.withLock { $0.count } }
}
