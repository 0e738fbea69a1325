import Foundation

/// Household roles.
public enum HouseholdRole: String, Sendable, Codable, CaseIterable {
    case guardian
    case child
}

/// Input rules for accounts. Every check names the field it is about.
public enum AccountRules {
    public static let passwordMinLength = 8
    /// bcrypt reads at most 72 bytes; longer passwords would be silently truncated.
    public static let passwordMaxBytes = 72
    public static let displayNameMaxLength = 50
    public static let householdNameMaxLength = 60

    /// The e-mail's login key (`LoginName.key`) if it looks like an e-mail; white space or an
    /// invisible character inside it is refused (no look-alike of another account's address).
    public static func email(_ raw: String, field: String = "email") throws(DomainError) -> String {
        let value = LoginName.key(raw)
        let parts = value.split(separator: "@", omittingEmptySubsequences: false)
        guard value.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
            !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            value.unicodeScalars.allSatisfy({ !LoginName.isInvisible($0) })
        else { throw .invalid(field: field, Message("accounts.error.emailShape")) }
        return value
    }

    /// A child's login name: 3 to 32 of a-z, 0-9, '.', '_', '-', after `LoginName.key`.
    public static func username(_ raw: String, field: String = "username") throws(DomainError) -> String {
        let value = LoginName.key(raw)
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789._-")
        guard (3...32).contains(value.count), value.unicodeScalars.allSatisfy({ allowed.contains($0) }) else {
            throw .invalid(
                field: field, Message("accounts.error.usernameShape", ["min": .number(3), "max": .number(32)]))
        }
        return value
    }

    /// A password is refused with a control character, rather than hashed in another form:
    /// bcrypt stops at a NUL, so `abcdefgh\0XYZ` would sign in as `abcdefgh`.
    public static func password(_ raw: String, field: String = "password") throws(DomainError) -> String {
        try TextRule.check(raw, field: field, multiline: false)
        guard raw.count >= passwordMinLength else {
            throw .invalid(
                field: field, Message("accounts.error.passwordTooShort", ["count": .number(passwordMinLength)]))
        }
        guard raw.utf8.count <= passwordMaxBytes else {
            throw .invalid(
                field: field, Message("accounts.error.passwordTooLong", ["count": .number(passwordMaxBytes)]))
        }
        return raw
    }

    public static func displayName(_ raw: String, field: String = "displayName") throws(DomainError) -> String {
        let value = raw.trimmed()
        guard !value.isEmpty else { throw .invalid(field: field, Message("accounts.error.nameMissing")) }
        guard value.count <= displayNameMaxLength else {
            throw .invalid(field: field, Message("input.error.tooLong", ["count": .number(displayNameMaxLength)]))
        }
        try TextRule.check(value, field: field, multiline: false)
        return value
    }

    public static func householdName(_ raw: String, field: String = "name") throws(DomainError) -> String {
        let value = raw.trimmed()
        guard !value.isEmpty else { throw .invalid(field: field, Message("accounts.error.nameMissing")) }
        guard value.count <= householdNameMaxLength else {
            throw .invalid(field: field, Message("input.error.tooLong", ["count": .number(householdNameMaxLength)]))
        }
        return value
    }

    public static func timeZone(_ raw: String, field: String = "timeZone") throws(DomainError) -> TimeZoneID {
        guard let zone = TimeZoneID(raw.trimmed(newlines: false)) else {
            throw .invalid(field: field, Message("accounts.error.timeZone"))
        }
        return zone
    }
}
