import Crypto
import Foundation
import HummingbirdBcrypt
import NIOConcurrencyHelpers
import NIOPosix

/// bcrypt password hashing, off the event loops (a hash takes about a quarter second at cost 12).
struct PasswordHasher: Sendable {
    let cost: UInt8

    func hash(_ password: String) async throws -> String {
        let cost = self.cost
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: cost) }
    }

    func verify(_ password: String, hash: String) async throws -> Bool {
        try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
    }

    /// A hash to verify against when a login name is unknown, so that a wrong name and a wrong
    /// password cost the same: one verification. Made once per hasher, on first use (making it
    /// on every attempt cost a second hash, and so told unknown names apart).
    func decoyHash() async throws -> String { try await decoy.value() }

    private let decoy: Decoy

    init(cost: UInt8) {
        self.cost = cost
        decoy = Decoy(cost: cost)
    }

    /// The decoy hash, computed by the first caller; later callers wait for that one.
    final class Decoy: Sendable {
        private let task: NIOLockedValueBox<Task<String, any Error>?> = .init(nil)
        let cost: UInt8

        init(cost: UInt8) { self.cost = cost }

        func value() async throws -> String {
            let cost = cost
            let task = self.task.withLockedValue { task in
                if let task { return task }
                let made = Task {
                    try await NIOThreadPool.singleton.runIfActive {
                        Bcrypt.hash("decoy-password-for-timing", cost: cost)
                    }
                }
                task = made
                return made
            }
            return try await task.value
        }
    }
}

/// Random bearer secrets (session tokens, invitation codes). Only their SHA-256 is stored, so a
/// copy of the database does not sign anyone in.
public enum Secret {
    /// 32 random bytes, base64url without padding (43 characters).
    static func makeToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A short code a person can type: 10 characters from an alphabet without look-alikes.
    static func makeCode() -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<10).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    static func digest(_ secret: String) -> String { hex(SHA256.hash(data: Data(secret.utf8))) }

    /// Lowercase hex (every request hashes its token: no `String(format:)` per byte here).
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
