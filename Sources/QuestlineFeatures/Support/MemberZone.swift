public import Foundation
public import QuestlineCore
public import QuestlineStore

extension MemberRecord {
    /// The member's IANA time zone, typed; UTC for a name the tz database no longer knows.
    public var zoneID: TimeZoneID { TimeZoneID(timeZone) ?? .utc }

    /// The member's time zone, in which their "today" is computed.
    public var zone: TimeZone { zoneID.timeZone }
}
