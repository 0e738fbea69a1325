/// Who is asking: a signed-in member, their household membership, if any, and whether they
/// hold the stored administrator role (`questline admin grant`; never derived from an e-mail).
public struct Actor: Hashable, Sendable {
    public let memberID: MemberID
    public let householdID: HouseholdID?
    public let role: HouseholdRole?
    public let isAdministrator: Bool

    public init(memberID: MemberID, householdID: HouseholdID?, role: HouseholdRole?, isAdministrator: Bool = false) {
        self.memberID = memberID
        self.householdID = householdID
        self.role = role
        self.isAdministrator = isAdministrator
    }
}

/// What a member's data is attached to, as far as access is concerned.
public struct MemberScope: Hashable, Sendable {
    public let memberID: MemberID
    public let householdID: HouseholdID?
    public let role: HouseholdRole?

    public init(memberID: MemberID, householdID: HouseholdID?, role: HouseholdRole?) {
        self.memberID = memberID
        self.householdID = householdID
        self.role = role
    }
}

/// Things one can do to a member's or a household's data.
public enum Action: Sendable, Hashable {
    /// Read a member's profile and data.
    case readMember(MemberScope)
    /// Change a member's profile and data.
    case updateMember(MemberScope)
    /// See a household and its members.
    case readHousehold(HouseholdID)
    /// Add children, invite members, set challenges: what guardians do.
    case manageHousehold(HouseholdID)
    /// Delete a member's account and everything held about them: one's own (not a child's: a
    /// child's account holds the guardian's quests, rules and grants), or a guardian a child's.
    case deleteMember(MemberScope)
    /// Change a member's time zone, which decides their local days. A child's day follows its
    /// household: only a guardian sets a child's zone (a child's own change is refused, naming
    /// `timeZone`), or a child could leave downtime by moving to a zone where it is daytime.
    case changeTimeZone(MemberScope)
    /// Change reading campaigns, read the funnel, manage webhooks: what administrators do.
    case administer
    /// Report use of a child's apps: the child's device, or a guardian's device for the child.
    case reportUsage(MemberScope)
    /// What only the child itself does: spend its points, ask for more time, report the apps
    /// installed on its device. A guardian is refused (403).
    case actAsChild(MemberScope, ChildAction)
    /// Delete a comment: only its author.
    case deleteComment(author: MemberID)
}

/// What only a child does for itself (`Action.actAsChild`).
public enum ChildAction: String, Sendable, Hashable {
    case redeemPoints, askForTime, reportDeviceApps

    /// Why a guardian is refused it (`accounts.error.childOnly.redeemPoints`, …).
    var refusal: Message { Message("accounts.error.childOnly.\(rawValue)") }
}

/// The one place where access is decided. Every handler asks here.
///
/// Rules: a member may read and change their own data. Members of the same household may read
/// each other's profiles; a guardian may change a child's. Anything outside one's household is
/// reported as not found (404), so that a stranger cannot learn what exists; inside the
/// household, a refused action is forbidden (403).
public enum AccessPolicy {
    public static func check(_ actor: Actor, _ action: Action) throws(DomainError) {
        switch action {
        case .readMember(let target):
            if target.memberID == actor.memberID { return }
            guard sameHousehold(actor, target.householdID) else {
                throw .notFound(Message("accounts.error.noSuchMember"))
            }
        case .updateMember(let target):
            if target.memberID == actor.memberID { return }
            guard sameHousehold(actor, target.householdID) else {
                throw .notFound(Message("accounts.error.noSuchMember"))
            }
            guard actor.role == .guardian, target.role == .child else {
                throw .forbidden(Message("households.error.onlyGuardianChangesChild"))
            }
        case .readHousehold(let household):
            guard actor.householdID == household else { throw .notFound(Message("households.error.noSuchHousehold")) }
        case .manageHousehold(let household):
            guard actor.householdID == household else { throw .notFound(Message("households.error.noSuchHousehold")) }
            guard actor.role == .guardian else { throw .forbidden(Message("households.error.onlyGuardianManages")) }
        case .deleteMember(let target):
            if target.memberID == actor.memberID, target.role == .child {
                throw .forbidden(Message("accounts.error.childDeletesSelf"))
            }
            try check(actor, .updateMember(target))
        case .changeTimeZone(let target):
            if target.memberID == actor.memberID, target.role == .child {
                throw .forbidden(Message("accounts.error.childTimeZone"), field: "timeZone")
            }
            try check(actor, .updateMember(target))
        case .administer:
            guard actor.isAdministrator else { throw .forbidden(Message("accounts.error.administratorsOnly")) }
        case .reportUsage(let child):
            if child.memberID == actor.memberID { return }
            try check(actor, .updateMember(child))
        case .actAsChild(let child, let action):
            try check(actor, .readMember(child))
            guard child.memberID == actor.memberID else { throw .forbidden(action.refusal) }
        case .deleteComment(let author):
            guard author == actor.memberID else { throw .forbidden(Message("accounts.error.ownCommentsOnly")) }
        }
    }

    /// Whether `actor` may do `action`: what a screen asks to decide whether to offer it.
    public static func allows(_ actor: Actor, _ action: Action) -> Bool {
        do {
            try check(actor, action)
            return true
        } catch {
            return false
        }
    }

    private static func sameHousehold(_ actor: Actor, _ household: HouseholdID?) -> Bool {
        guard let mine = actor.householdID, let theirs = household else { return false }
        return mine == theirs
    }
}
