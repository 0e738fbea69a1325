/// A short digest that is the same on every device and every run (FNV-1a, 64 bits, in hex):
/// for keys derived from content, e.g. a batch's Idempotency-Key from its items' keys. Not a
/// cryptographic hash: use it where a collision costs a duplicate check, not a secret.
public enum StableDigest {
    public static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
