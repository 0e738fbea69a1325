import Foundation
import Logging

/// One JSON object per line: `ts`, `level`, `label`, `message`, then the metadata's keys
/// (`request_id`, `member_id`, `route`, ...) as fields. swift-log ships only a text handler;
/// this is the few lines a log shipper needs (`--log-format json`).
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let label: String
    private let write: @Sendable (String) -> Void

    /// Writes to standard output unless `write` is given (tests collect the lines).
    public init(
        label: String, level: Logger.Level = .info, write: (@Sendable (String) -> Void)? = nil
    ) {
        self.label = label
        logLevel = level
        // One write per line, unbuffered: a line is out before the process can die.
        self.write = write ?? { line in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [String: Any] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { _, new in new }) {
            fields[key] = Self.json(value)
        }
        fields["ts"] = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(Date())
        fields["level"] = event.level.rawValue
        fields["label"] = label
        fields["message"] = event.message.description
        if let error = event.error { fields["error"] = String(describing: error) }
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes]),
            let line = String(data: data, encoding: .utf8)
        else { return }
        write(line)
    }

    private static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let string): return string
        case .stringConvertible(let convertible): return convertible.description
        case .array(let values): return values.map(json)
        case .dictionary(let values): return values.mapValues(json)
        }
    }
}
