import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// The plain-text lines swift-log's `StreamLogHandler` writes (the same format, to standard
/// error), with the metadata formatted when a line is written instead of each time it changes.
///
/// `StreamLogHandler` formats its whole metadata again on every change; a request changes it
/// two or three times (Hummingbird's request id, ours, the member) and most requests write no
/// line: measured at 6 to 8 % of `/health`'s CPU (docs/performance.md, "The chain, level by
/// level"). The format is kept: `time level label: key=value … [source] message`, keys sorted.
public struct TextLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level
    private let label: String
    private let write: @Sendable (String) -> Void

    /// Writes to standard error unless `write` is given (tests collect the lines).
    public init(
        label: String, level: Logger.Level = .info, metadataProvider: Logger.MetadataProvider? = nil,
        write: (@Sendable (String) -> Void)? = nil
    ) {
        self.label = label
        logLevel = level
        self.metadataProvider = metadataProvider
        // One write per line: a line is out before the process can die.
        self.write = write ?? { line in FileHandle.standardError.write(Data(line.utf8)) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty {
            all.merge(provided) { _, provided in provided }
        }
        if let explicit = event.metadata, !explicit.isEmpty { all.merge(explicit) { _, explicit in explicit } }
        if let error = event.error {
            all["error.message"] = "\(error)"
            all["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        let pretty = all.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
        write(
            "\(Self.timestamp()) \(event.level)\(label.isEmpty ? "" : " ")\(label):\(pretty) [\(event.source)] \(event.message)\n"
        )
    }

    /// Local time to the second with the zone's offset, as `StreamLogHandler` writes it.
    private static func timestamp() -> String {
        var now = time(nil)
        var local = tm()
        guard localtime_r(&now, &local) != nil else { return "<unknown>" }
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
