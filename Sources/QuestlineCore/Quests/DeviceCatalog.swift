import Foundation

/// An app installed on a child's device, as the device reports it: an opaque token, the name
/// shown, a category and its icon (a PNG of at most 64 KB).
public struct DeviceApp: Sendable, Equatable {
    public let token: String
    public let name: String
    public let category: String
    public let icon: [UInt8]?

    public init(token: String, name: String, category: String, icon: [UInt8]?) {
        self.token = token
        self.name = name
        self.category = category
        self.icon = icon
    }
}

/// The checks of a device's app catalog: every problem named by its field, nothing kept when
/// any is wrong.
public enum DeviceCatalog {
    public static let categories = [
        "education", "reading", "games", "entertainment", "social", "creativity", "productivity", "other",
    ]
    public static let maxApps = 300
    public static let maxIconBytes = 64 * 1024

    public struct Item: Sendable {
        public let token: String
        public let name: String
        public let category: String
        /// The icon, base64 as sent.
        public let icon: String?

        public init(token: String, name: String, category: String, icon: String?) {
            self.token = token
            self.name = name
            self.category = category
            self.icon = icon
        }
    }

    public static func validate(_ items: [Item]) throws(DomainError) -> [DeviceApp] {
        guard items.count <= maxApps else {
            throw .invalid(field: "apps", Message("quests.error.deviceAppsMax", ["count": .number(maxApps)]))
        }
        var issues: [FieldIssue] = []
        var seen = Set<String>()
        var apps: [DeviceApp] = []
        for (index, item) in items.enumerated() {
            let field = "apps[\(index)]"
            let token = item.token.trimmed()
            var tokenCheck = FieldValidation()
            tokenCheck.check { () throws(DomainError) in try AppToken.check(token, field: field + ".token") }
            if !tokenCheck.issues.isEmpty {
                issues += tokenCheck.issues
            } else if !seen.insert(token).inserted {
                issues.append(FieldIssue(field: field + ".token", message: Message("quests.error.deviceTokenTwice")))
            }
            let name = item.name.trimmed()
            if name.isEmpty || name.count > 60 {
                issues.append(
                    FieldIssue(
                        field: field + ".name", message: Message("quests.error.deviceAppName", ["max": .number(60)])))
            }
            if !categories.contains(item.category) {
                issues.append(
                    FieldIssue(
                        field: field + ".category",
                        message: Message(
                            "quests.error.deviceCategory", ["choices": .text(categories.joined(separator: ", "))])))
            }
            var icon: [UInt8]?
            if let text = item.icon {
                if let data = Data(base64Encoded: text) {
                    let bytes = [UInt8](data)
                    if bytes.count > maxIconBytes {
                        issues.append(
                            FieldIssue(
                                field: field + ".icon",
                                message: Message("quests.error.deviceIconSize", ["max": .number(64)])))
                    } else if UploadedImage.contentType(of: bytes) != "image/png" {
                        issues.append(
                            FieldIssue(field: field + ".icon", message: Message("quests.error.deviceIconType")))
                    } else {
                        icon = bytes
                    }
                } else {
                    issues.append(
                        FieldIssue(field: field + ".icon", message: Message("quests.error.deviceIconEncoding")))
                }
            }
            apps.append(DeviceApp(token: token, name: name, category: item.category, icon: icon))
        }
        if !issues.isEmpty { throw .invalid(issues) }
        return apps
    }
}
