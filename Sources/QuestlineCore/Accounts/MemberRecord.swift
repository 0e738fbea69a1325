public import Foundation

/// A member as the store keeps them, with their household membership: what every use case and
/// page is given about who is asking. A core type, so that the server reads it without the store.
public struct MemberRecord: Sendable, Equatable {
    public let id: MemberID
    public let email: String?
    public let username: String?
    public let displayName: String
    public let timeZone: String
    public let householdID: HouseholdID?
    public let role: HouseholdRole?
    public let createdAt: Date
    /// The primary language the member chose (a wiki language code); nil until they do.
    public var language: String?
    /// Holds the administrator role (`questline admin grant`).
    public var isAdministrator: Bool

    public init(
        id: MemberID, email: String?, username: String?, displayName: String, timeZone: String,
        householdID: HouseholdID?, role: HouseholdRole?, createdAt: Date, language: String? = nil,
        isAdministrator: Bool = false
    ) {
        self.id = id
        self.email = email
        self.username = username
        self.displayName = displayName
        self.timeZone = timeZone
        self.householdID = householdID
        self.role = role
        self.createdAt = createdAt
        self.language = language
        self.isAdministrator = isAdministrator
    }

    public var scope: MemberScope { MemberScope(memberID: id, householdID: householdID, role: role) }
    public var actor: Actor {
        Actor(memberID: id, householdID: householdID, role: role, isAdministrator: isAdministrator)
    }

    /// The member's IANA time zone, typed; UTC for a name the tz database no longer knows.
    public var zoneID: TimeZoneID { TimeZoneID(timeZone) ?? .utc }

    /// The member's time zone, in which their "today" is computed.
    public var zone: TimeZone { zoneID.timeZone }
}

/// A household and its members.
public struct HouseholdRecord: Sendable, Equatable {
    public let id: HouseholdID
    public let name: String
    public let members: [MemberRecord]

    public init(id: HouseholdID, name: String, members: [MemberRecord]) {
        self.id = id
        self.name = name
        self.members = members
    }
}
