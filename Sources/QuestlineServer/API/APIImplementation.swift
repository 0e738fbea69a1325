import Foundation
import OpenAPIRuntime
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineStore

/// The JSON API, generated from openapi.yaml: each handler decodes (done by the generated
/// code), asks the use case, and encodes. Errors are thrown and rendered as problem+json by
/// `ErrorMiddleware`; the caller's identity comes from `Identity.current`.
struct APIImplementation: APIProtocol {
    let accounts: AccountsFeature
    let games: DailyGameFeature
    let reading: ReadingChallengeFeature
    let activity: ActivityFeature
    let quests: FamilyQuestsFeature
    let stories: StoriesFeature
    /// E-mails of members who may use the admin operations.
    let admins: Set<String>

    var identity: Identity { Identity.current }

    func signUp(_ input: Operations.signUp.Input) async throws -> Operations.signUp.Output {
        guard case .json(let body) = input.body else { throw DomainError.invalid(field: "body", "Send JSON.") }
        let signedIn = try await accounts.signUp(email: body.email, password: body.password,
                                                 displayName: body.displayName, timeZone: body.timeZone)
        if let device = body.deviceId { try await reading.adoptDevice(device, member: signedIn.member) }
        return .created(.init(body: .json(.init(signedIn))))
    }

    func logIn(_ input: Operations.logIn.Input) async throws -> Operations.logIn.Output {
        guard case .json(let body) = input.body else { throw DomainError.invalid(field: "body", "Send JSON.") }
        let signedIn = try await accounts.logIn(login: body.login, password: body.password)
        if let device = body.deviceId { try await reading.adoptDevice(device, member: signedIn.member) }
        return .ok(.init(body: .json(.init(signedIn))))
    }

    func logOut(_ input: Operations.logOut.Input) async throws -> Operations.logOut.Output {
        try await accounts.logOut(identity)
        return .noContent(.init())
    }

    func getMe(_ input: Operations.getMe.Input) async throws -> Operations.getMe.Output {
        .ok(.init(body: .json(.init(try identity.requireMember()))))
    }

    func updateMe(_ input: Operations.updateMe.Input) async throws -> Operations.updateMe.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw DomainError.invalid(field: "body", "Send JSON.") }
        let updated = try await accounts.updateProfile(me.id, as: me, displayName: body.displayName, timeZone: body.timeZone)
        return .ok(.init(body: .json(.init(updated))))
    }

    func getMember(_ input: Operations.getMember.Input) async throws -> Operations.getMember.Output {
        let me = try identity.requireMember()
        let member = try await accounts.member(try memberID(input.path.memberId), as: me)
        return .ok(.init(body: .json(.init(member))))
    }

    func updateMember(_ input: Operations.updateMember.Input) async throws -> Operations.updateMember.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw DomainError.invalid(field: "body", "Send JSON.") }
        let updated = try await accounts.updateProfile(try memberID(input.path.memberId), as: me,
                                                       displayName: body.displayName, timeZone: body.timeZone)
        return .ok(.init(body: .json(.init(updated))))
    }

    func createHousehold(_ input: Operations.createHousehold.Input) async throws -> Operations.createHousehold.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw DomainError.invalid(field: "body", "Send JSON.") }
        let household = try await accounts.createHousehold(name: body.name, as: me)
        return .created(.init(body: .json(.init(household))))
    }

    func getHousehold(_ input: Operations.getHousehold.Input) async throws -> Operations.getHousehold.Output {
        let me = try identity.requireMember()
        let household = try await accounts.household(try householdID(input.path.householdId), as: me)
        return .ok(.init(body: .json(.init(household))))
    }

    func createChild(_ input: Operations.createChild.Input) async throws -> Operations.createChild.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw DomainError.invalid(field: "body", "Send JSON.") }
        let child = try await accounts.createChild(
            in: try householdID(input.path.householdId), as: me, username: body.username, password: body.password,
            displayName: body.displayName, timeZone: body.timeZone)
        return .created(.init(body: .json(.init(child))))
    }

    func createInvitation(_ input: Operations.createInvitation.Input) async throws -> Operations.createInvitation.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw DomainError.invalid(field: "body", "Send JSON.") }
        let role = HouseholdRole(rawValue: body.role.rawValue) ?? .child
        let invitation = try await accounts.invite(to: try householdID(input.path.householdId), role: role, as: me)
        return .created(.init(body: .json(.init(code: invitation.code, role: body.role, expiresAt: invitation.expiresAt))))
    }

    func acceptInvitation(_ input: Operations.acceptInvitation.Input) async throws -> Operations.acceptInvitation.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw DomainError.invalid(field: "body", "Send JSON.") }
        let household = try await accounts.acceptInvitation(code: body.code, as: me)
        return .ok(.init(body: .json(.init(household))))
    }

    // MARK: Path parameters

    private func memberID(_ raw: String) throws -> MemberID {
        guard let id = MemberID(raw) else { throw DomainError.invalid(field: "memberId", "Expected a member id (a UUID).") }
        return id
    }

    func householdID(_ raw: String) throws -> HouseholdID {
        guard let id = HouseholdID(raw) else { throw DomainError.invalid(field: "householdId", "Expected a household id (a UUID).") }
        return id
    }
}

// MARK: Store records to wire types

extension Components.Schemas.Member {
    init(_ record: MemberRecord) {
        self.init(id: record.id.rawValue, email: record.email, username: record.username, displayName: record.displayName,
                  timeZone: record.timeZone, householdId: record.householdID?.rawValue,
                  role: record.role.flatMap { .init(rawValue: $0.rawValue) }, createdAt: record.createdAt)
    }
}

extension Components.Schemas.Session {
    init(_ signedIn: SignedIn) {
        self.init(token: signedIn.token, expiresAt: signedIn.expiresAt, member: .init(signedIn.member))
    }
}

extension Components.Schemas.Household {
    init(_ record: HouseholdRecord) {
        self.init(id: record.id.rawValue, name: record.name, members: record.members.map(Components.Schemas.Member.init))
    }
}
