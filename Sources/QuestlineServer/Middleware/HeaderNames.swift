import HTTPTypes

/// Header names the server reads and writes.
extension HTTPField.Name {
    static let xRequestID = Self("X-Request-Id")!
    static let idempotencyKey = Self("Idempotency-Key")!
    static let xForwardedFor = Self("X-Forwarded-For")!
    static let deviceID = Self("X-Device-Id")!
    static let idempotentReplayed = Self("Idempotent-Replayed")!
}
