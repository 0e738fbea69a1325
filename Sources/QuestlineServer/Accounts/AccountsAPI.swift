import Foundation
import OpenAPIRuntime
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// Accounts and households over the API.
extension APIImplementation {
    func signUp(_ input: Operations.signUp.Input) async throws -> Operations.signUp.Output {
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let signedIn = try await accounts.signUp(
            email: body.email, password: body.password,
            displayName: body.displayName, timeZone: body.timeZone, scope: writeScope)
        if let device = body.deviceId {
            try await reading.adoptDevice(device, member: signedIn.member, scope: writeScope)
        }
        return .created(.init(body: .json(.init(signedIn))))
    }

    func logIn(_ input: Operations.logIn.Input) async throws -> Operations.logIn.Output {
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let signedIn = try await accounts.logIn(login: body.login, password: body.password, scope: writeScope)
        if let device = body.deviceId {
            try await reading.adoptDevice(device, member: signedIn.member, scope: writeScope)
        }
        return .ok(.init(body: .json(.init(signedIn))))
    }

    func logOut(_ input: Operations.logOut.Input) async throws -> Operations.logOut.Output {
        try await accounts.logOut(identity, scope: writeScope)
        return .noContent(.init())
    }

    func getMe(_ input: Operations.getMe.Input) async throws -> Operations.getMe.Output {
        .ok(.init(body: .json(.init(try identity.requireMember()))))
    }

    func updateMe(_ input: Operations.updateMe.Input) async throws -> Operations.updateMe.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let updated = try await accounts.updateProfile(
            me.id, as: me, displayName: body.displayName, timeZone: body.timeZone, language: body.language,
            scope: writeScope)
        return .ok(.init(body: .json(.init(updated))))
    }

    func deleteMe(_ input: Operations.deleteMe.Input) async throws -> Operations.deleteMe.Output {
        let me = try identity.requireMember()
        try await accounts.deleteMember(me.id, as: me, scope: writeScope)
        return .noContent(.init())
    }

    func deleteMember(_ input: Operations.deleteMember.Input) async throws -> Operations.deleteMember.Output {
        let me = try identity.requireMember()
        try await accounts.deleteMember(
            try MemberID.parse(input.path.memberId, field: "memberId"), as: me, scope: writeScope)
        return .noContent(.init())
    }

    func exportMe(_ input: Operations.exportMe.Input) async throws -> Operations.exportMe.Output {
        let me = try identity.requireMember()
        let archive = try await accounts.export(me)
        typealias Record = Components.Schemas.ExportSection.additionalPropertiesPayloadPayload
        let l = RequestLanguage.localizer
        func section(_ name: PersonalData.ExportSection) throws -> Components.Schemas.ExportSection {
            var kinds: [String: [Record]] = [:]
            for (kind, records) in archive.sections[name] ?? [:] {
                kinds[kind] = try records.map { record in
                    // Words kept as messages (a ledger entry's reason, a badge's title) read in
                    // the reader's language, as on every screen.
                    let fields: [String: (any Sendable)?] = record.mapValues { value in
                        if case .text(let text) = value, case let message = Message(stored: text), !message.isVerbatim {
                            return l(message)
                        }
                        return value.plain
                    }
                    return Record(additionalProperties: try OpenAPIObjectContainer(unvalidatedValue: fields))
                }
            }
            return Components.Schemas.ExportSection(additionalProperties: kinds)
        }
        return .ok(
            .init(
                headers: .init(Cache_hyphen_Control: "no-store"),
                body: .json(
                    .init(
                        memberId: archive.memberId, exportedAt: archive.exportedAt,
                        profile: .init(value1: try section(.profile)), reading: .init(value1: try section(.reading)),
                        saved: .init(value1: try section(.saved)), game: .init(value1: try section(.game)),
                        quests: .init(value1: try section(.quests)), points: .init(value1: try section(.points)),
                        stories: .init(value1: try section(.stories)),
                        notifications: .init(value1: try section(.notifications))))))
    }

    func getMember(_ input: Operations.getMember.Input) async throws -> Operations.getMember.Output {
        let me = try identity.requireMember()
        let member = try await accounts.member(try MemberID.parse(input.path.memberId, field: "memberId"), as: me)
        return .ok(.init(body: .json(.init(member))))
    }

    func updateMember(_ input: Operations.updateMember.Input) async throws -> Operations.updateMember.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let updated = try await accounts.updateProfile(
            try MemberID.parse(input.path.memberId, field: "memberId"), as: me,
            displayName: body.displayName, timeZone: body.timeZone, language: body.language, scope: writeScope)
        return .ok(.init(body: .json(.init(updated))))
    }

    func createHousehold(_ input: Operations.createHousehold.Input) async throws -> Operations.createHousehold.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let household = try await accounts.createHousehold(name: body.name, as: me, scope: writeScope)
        return .created(.init(body: .json(.init(household))))
    }

    func getHousehold(_ input: Operations.getHousehold.Input) async throws -> Operations.getHousehold.Output {
        let me = try identity.requireMember()
        let household = try await accounts.household(
            try HouseholdID.parse(input.path.householdId, field: "householdId"), as: me)
        return .ok(.init(body: .json(.init(household))))
    }

    func createChild(_ input: Operations.createChild.Input) async throws -> Operations.createChild.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let child = try await accounts.createChild(
            in: try HouseholdID.parse(input.path.householdId, field: "householdId"), as: me, username: body.username,
            password: body.password,
            displayName: body.displayName, timeZone: body.timeZone, scope: writeScope)
        return .created(.init(body: .json(.init(child))))
    }

    func createInvitation(_ input: Operations.createInvitation.Input) async throws -> Operations.createInvitation.Output
    {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let role = HouseholdRole(rawValue: body.role.rawValue) ?? .child
        let invitation = try await accounts.invite(
            to: try HouseholdID.parse(input.path.householdId, field: "householdId"), role: role, as: me,
            scope: writeScope)
        return .created(
            .init(body: .json(.init(code: invitation.code, role: body.role, expiresAt: invitation.expiresAt))))
    }

    func acceptInvitation(_ input: Operations.acceptInvitation.Input) async throws -> Operations.acceptInvitation.Output
    {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let household = try await accounts.acceptInvitation(code: body.code, as: me, scope: writeScope)
        return .ok(.init(body: .json(.init(household))))
    }
}

// MARK: Store records to wire types

extension Components.Schemas.Member {
    init(_ record: MemberRecord) {
        self.init(
            id: record.id.rawValue, email: record.email, username: record.username, displayName: record.displayName,
            timeZone: record.timeZone, householdId: record.householdID?.rawValue,
            role: record.role.flatMap { .init(rawValue: $0.rawValue) }, createdAt: record.createdAt,
            language: record.language)
    }
}

extension Components.Schemas.Session {
    init(_ signedIn: SignedIn) {
        self.init(token: signedIn.token, expiresAt: signedIn.expiresAt, member: .init(signedIn.member))
    }
}

extension Components.Schemas.Household {
    init(_ record: HouseholdRecord) {
        self.init(
            id: record.id.rawValue, name: record.name, members: record.members.map(Components.Schemas.Member.init))
    }
}

extension ExportValue {
    /// The value as the OpenAPI runtime's untyped containers take it.
    var plain: (any Sendable)? {
        switch self {
        case .text(let text): return text
        case .number(let number): return Int(number)
        case .decimal(let decimal): return decimal
        case .bytes(let bytes): return bytes.base64EncodedString()
        case .null: return nil
        }
    }
}

/// Notification settings over the API.
extension APIImplementation {
    func getNotificationPreferences(_ input: Operations.getNotificationPreferences.Input) async throws
        -> Operations.getNotificationPreferences.Output
    {
        .ok(.init(body: .json(.init(try await notifications.preferences(try identity.requireMember())))))
    }

    func setNotificationPreferences(_ input: Operations.setNotificationPreferences.Input) async throws
        -> Operations.setNotificationPreferences.Output
    {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let saved = try await notifications.setPreferences(
            me, streakReminders: body.streakReminders, questUpdates: body.questUpdates ?? true,
            quietStart: body.quietHours?.start,
            quietEnd: body.quietHours?.end, scope: writeScope)
        return .ok(.init(body: .json(.init(saved))))
    }
}

extension Components.Schemas.NotificationPreferences {
    init(_ preferences: NotificationPreferences) {
        self.init(
            streakReminders: preferences.streakReminders, questUpdates: preferences.questUpdates,
            quietHours: preferences.quietHours.map { .init(start: $0.start, end: $0.end) })
    }
}
