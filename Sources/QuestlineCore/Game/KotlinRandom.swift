/// Kotlin's default seeded generator, `kotlin.random.Random(seed: Int)` (XorWow), ported bit
/// for bit so that a shuffle here equals the Wikipedia Android app's shuffle.
///
/// All arithmetic wraps on signed 32-bit integers; `>>>` (logical shift) is done on the
/// unsigned bit pattern; shift counts are taken modulo 32 as on the JVM.
public struct KotlinRandom: Sendable {
    private var x: Int32
    private var y: Int32
    private var z: Int32
    private var w: Int32
    private var v: Int32
    private var addend: Int32

    public init(seed: Int32) {
        let seed2 = seed >> 31
        x = seed
        y = seed2
        z = 0
        w = 0
        v = ~seed
        addend = (seed &<< 10) ^ Self.ushr(seed2, 4)
        for _ in 0..<64 { _ = nextInt() }
    }

    /// The next 32 random bits as a signed integer.
    public mutating func nextInt() -> Int32 {
        var t = x
        t = t ^ Self.ushr(t, 2)
        x = y
        y = z
        z = w
        let v0 = v
        w = v0
        t = (t ^ (t &<< 1)) ^ v0 ^ (v0 &<< 4)
        v = t
        addend = addend &+ 362_437
        return t &+ addend
    }

    /// A uniform value in `0 ..< bound` (`bound > 0`), exactly as `Random.nextInt(until)`.
    public mutating func nextInt(_ bound: Int32) -> Int32 {
        precondition(bound > 0, "bound must be positive")
        if bound & -bound == bound {  // a power of two: take the top bits
            let bitCount = Int32(31 - bound.leadingZeroBitCount)
            return Self.ushr(nextInt(), 32 - bitCount) & ((-bitCount) >> 31)
        }
        while true {
            let bits = Self.ushr(nextInt(), 1)
            let value = bits % bound
            if bits &- value &+ (bound &- 1) >= 0 { return value }
        }
    }

    /// `MutableList.shuffle(random)`: from the last index down to 1, swap with `nextInt(i + 1)`.
    public mutating func shuffle<T>(_ list: inout [T]) {
        guard list.count > 1 else { return }
        for i in stride(from: list.count - 1, through: 1, by: -1) {
            let j = Int(nextInt(Int32(i + 1)))
            list.swapAt(i, j)
        }
    }

    /// JVM `>>>`: logical shift right with the count taken modulo 32.
    static func ushr(_ value: Int32, _ count: Int32) -> Int32 {
        Int32(bitPattern: UInt32(bitPattern: value) >> UInt32(count & 31))
    }
}
