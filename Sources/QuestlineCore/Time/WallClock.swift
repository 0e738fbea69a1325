public import Foundation

/// The source of "now". Injected everywhere; the core never reads the system clock itself.
public protocol WallClock: Sendable {
    func now() -> Date
}

/// The real clock.
public struct SystemClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that tests set and move by hand.
///
/// `@unchecked Sendable` is safe: the only stored state is guarded by `lock` on every access.
public final class ManualClock: WallClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    public init(_ start: Date) { current = start }

    public func now() -> Date { lock.withLock { current } }

    public func set(_ instant: Date) { lock.withLock { current = instant } }

    public func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}

extension WallClock {
    /// The member's local calendar day right now.
    public func today(in timeZone: TimeZone) -> LocalDay { LocalDay(now(), in: timeZone) }
}
