public import Crypto
import Foundation
import QuestlineCore

/// The server's secret key (or keys, during a rotation): what seals secrets stored at rest and
/// keys the hashes a stolen copy of the database must not be able to test guesses against.
///
/// Configured with `--secret-key-file` (one key a line; the first seals, the others only open
/// what they sealed before) or `QUESTLINE_SECRET_KEY` (one key, or several separated by commas).
/// A key is 32 random bytes as 64 hex digits (`questline secrets new-key` prints one). Sealed
/// values name the key that sealed them (`v1.<key id>.<AES-GCM box>`), so a rotation is: put the
/// new key first, run `questline secrets reseal`, keep the old key for a day (stored replies of
/// idempotent requests live 24 hours), then remove it (docs/deployment.md).
public struct SecretBox: Sendable {
    public struct Key: Sendable {
        public let id: String
        let key: SymmetricKey
    }

    /// The first key seals; every key opens.
    public let keys: [Key]

    public init(keys raw: [SymmetricKey]) {
        precondition(!raw.isEmpty, "a secret box needs a key")
        keys = raw.map { key in
            Key(id: key.withUnsafeBytes { Secret.hex(SHA256.hash(data: Data($0)).prefix(4)) }, key: key)
        }
    }

    /// A key made now and held only in memory: for tests and tools that store nothing sealed.
    public static func ephemeral() -> SecretBox { SecretBox(keys: [SymmetricKey(size: .bits256)]) }

    /// Parses keys as configured: 64 hex digits each, separated by line ends (LF or CRLF) or
    /// commas; blank lines and lines starting with `#` are skipped. A failure with a reason when
    /// one is malformed.
    public static func parse(_ text: String) -> Result<SecretBox, ParseError> {
        // Lines first (LF, CRLF or CR: `isNewline`), comments dropped, then commas.
        let pieces = text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.hasPrefix("#") }
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        guard !pieces.isEmpty else { return .failure(ParseError(reason: "no key in it")) }
        var keys: [SymmetricKey] = []
        for (index, piece) in pieces.enumerated() {
            guard let bytes = Self.hexBytes(piece), bytes.count == 32 else {
                return .failure(ParseError(reason: "key \(index + 1) is not 64 hex digits (32 random bytes)"))
            }
            keys.append(SymmetricKey(data: bytes))
        }
        return .success(SecretBox(keys: keys))
    }

    public struct ParseError: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// 32 random bytes as hex: a new key.
    public static func newKey() -> String { SymmetricKey(size: .bits256).withUnsafeBytes { Secret.hex($0) } }

    // MARK: Sealing

    /// `v1.<key id>.<base64url of AES-GCM nonce, ciphertext and tag>` under the first key.
    public func seal(_ plaintext: String, purpose: String) throws -> String {
        let current = keys[0]
        let box = try AES.GCM.seal(Array(plaintext.utf8), using: subkey(current.key, purpose: purpose))
        guard let combined = box.combined else { throw SealError.malformed }
        return "v1.\(current.id).\(Self.base64URL(combined))"
    }

    /// The plaintext of a sealed value, or nil when it was not sealed by one of these keys (or
    /// is not a sealed value at all).
    public func open(_ sealed: String, purpose: String) -> String? {
        let parts = sealed.split(separator: ".", maxSplits: 2)
        guard parts.count == 3, parts[0] == "v1", let key = keys.first(where: { $0.id == parts[1] }),
            let bytes = Self.base64URLDecoded(String(parts[2])),
            let box = try? AES.GCM.SealedBox(combined: bytes),
            let opened = try? AES.GCM.open(box, using: subkey(key.key, purpose: purpose))
        else { return nil }
        return String(decoding: opened, as: UTF8.self)
    }

    /// Whether `value` is sealed, and by the current key.
    public func isSealedByCurrentKey(_ value: String) -> Bool { value.hasPrefix("v1.\(keys[0].id).") }

    public static func isSealed(_ value: String) -> Bool { value.hasPrefix("v1.") }

    public enum SealError: Error { case malformed }

    // MARK: Keyed hashes and derived keys

    /// HMAC-SHA256 under the current key, for `purpose`: made once, used per request.
    public func keyedHash(purpose: String) -> KeyedHash { KeyedHash(key: subkey(keys[0].key, purpose: purpose)) }

    /// HMAC-SHA256 under every key, the current first: what was hashed under a key still in
    /// the file (before a rotation) is matched by one of them.
    public func keyedHashes(purpose: String) -> [KeyedHash] {
        keys.map { KeyedHash(key: subkey($0.key, purpose: purpose)) }
    }

    public struct KeyedHash: Sendable {
        let key: SymmetricKey

        /// The hash of `bytes`, as hex.
        public func hex(_ bytes: [UInt8]) -> String {
            Secret.hex(HMAC<SHA256>.authenticationCode(for: bytes, using: key))
        }
    }

    /// Keys for one purpose, derived from each server key (the current first) and `material`
    /// (HKDF): without the server's key, `material` (a request body holding a password) cannot be
    /// tested. The first seals; every one opens what its server key sealed before a rotation.
    public func derivedKeys(purpose: String, material: [UInt8], info: String) -> [SymmetricKey] {
        keys.map { key in
            key.key.withUnsafeBytes { server in
                HKDF<SHA256>.deriveKey(
                    inputKeyMaterial: SymmetricKey(data: Array(server) + material),
                    salt: Array("questline.\(purpose).v2".utf8), info: Array(info.utf8), outputByteCount: 32)
            }
        }
    }

    private func subkey(_ key: SymmetricKey, purpose: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: key, salt: Array("questline.secret-box.v1".utf8), info: Array(purpose.utf8),
            outputByteCount: 32)
    }

    static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            case 0x41...0x46: return c - 0x41 + 10
            default: return nil
            }
        }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func base64URLDecoded(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
