import Crypto
import Foundation
import OpenAPIRuntime
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// The device's side of family quests: the shield policy it enforces and the rules behind it.
extension APIImplementation {
    func getShieldPolicy(_ input: Operations.getShieldPolicy.Input) async throws -> Operations.getShieldPolicy.Output {
        let me = try identity.requireMember()
        let policy = try await family.shield.policy(try MemberID.parse(input.path.childId, field: "childId"), as: me)
        let tag = Self.etag(policy)
        if let asked = input.headers.If_hyphen_None_hyphen_Match,
            asked.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == tag })
        {
            return .notModified(.init(headers: .init(ETag: tag)))
        }
        return .ok(.init(headers: .init(ETag: tag), body: .json(.init(policy, computedAt: family.clock.now()))))
    }

    /// A strong tag of what the policy says (not of when it was computed): the same grants,
    /// rules and use give the same tag, so a polling device gets 304.
    static func etag(_ policy: ShieldPolicy) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .secondsSince1970
        let body = (try? encoder.encode(policy)) ?? Data()
        return "\"" + SHA256.hash(data: body).prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
    }

    func getShieldRules(_ input: Operations.getShieldRules.Input) async throws -> Operations.getShieldRules.Output {
        let me = try identity.requireMember()
        let rules = try await family.shield.shieldRules(
            try MemberID.parse(input.path.childId, field: "childId"), as: me)
        return .ok(.init(body: .json(.init(rules))))
    }

    func setShieldRules(_ input: Operations.setShieldRules.Input) async throws -> Operations.setShieldRules.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let rules = try await family.shield.setShieldRules(
            try MemberID.parse(input.path.childId, field: "childId"), as: me, rewardDays: body.rewardDays,
            downtimeStart: body.downtime?.start, downtimeEnd: body.downtime?.end, scope: writeScope)
        return .ok(.init(body: .json(.init(rules))))
    }
}

extension APIImplementation {
    func listTimeRequests(_ input: Operations.listTimeRequests.Input) async throws
        -> Operations.listTimeRequests.Output
    {
        let me = try identity.requireMember()
        let requests = try await family.shield.timeRequests(
            try MemberID.parse(input.path.childId, field: "childId"), as: me)
        return .ok(.init(body: .json(requests.map(Components.Schemas.TimeRequest.init))))
    }

    func askForTime(_ input: Operations.askForTime.Input) async throws -> Operations.askForTime.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let request = try await family.shield.askForTime(
            try MemberID.parse(input.path.childId, field: "childId"), as: me, appToken: body.appToken,
            minutes: body.minutes, note: body.note ?? "", scope: writeScope)
        return .created(.init(body: .json(.init(request))))
    }

    func decideTimeRequest(_ input: Operations.decideTimeRequest.Input) async throws
        -> Operations.decideTimeRequest.Output
    {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let request = try await family.shield.decide(
            input.path.requestId, approve: body.approve, as: me, scope: writeScope)
        return .ok(.init(body: .json(.init(request))))
    }
}

extension APIImplementation {
    func listDeviceApps(_ input: Operations.listDeviceApps.Input) async throws -> Operations.listDeviceApps.Output {
        let me = try identity.requireMember()
        let child = try MemberID.parse(input.path.childId, field: "childId")
        let apps = try await family.shield.deviceApps(child, as: me)
        return .ok(
            .init(
                body: .json(
                    apps.map {
                        .init(
                            token: $0.app.token, name: $0.app.name, category: $0.app.category,
                            iconUrl: $0.hasIcon ? Self.deviceIconPath(child, token: $0.app.token) : nil)
                    })))
    }

    /// Where a device app's icon is served (the API's own address, cookie or bearer).
    static func deviceIconPath(_ child: MemberID, token: String) -> String {
        "/api/v1/children/\(child.rawValue)/device-apps/"
            + (token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token) + "/icon"
    }

    func reportDeviceApps(_ input: Operations.reportDeviceApps.Input) async throws
        -> Operations.reportDeviceApps.Output
    {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let count = try await family.shield.reportDeviceApps(
            try MemberID.parse(input.path.childId, field: "childId"), as: me,
            apps: body.apps.map {
                DeviceCatalog.Item(token: $0.token, name: $0.name, category: $0.category.rawValue, icon: $0.icon)
            }, scope: writeScope)
        return .ok(.init(body: .json(.init(count: count))))
    }

    func getDeviceAppIcon(_ input: Operations.getDeviceAppIcon.Input) async throws
        -> Operations.getDeviceAppIcon.Output
    {
        let me = try identity.requireMember()
        let icon = try await family.shield.deviceIcon(
            try MemberID.parse(input.path.childId, field: "childId"), token: input.path.appToken, as: me)
        return .ok(.init(body: .png(HTTPBody(icon))))
    }
}

extension Components.Schemas.TimeRequest {
    init(_ request: TimeRequest) {
        self.init(
            id: request.id, childId: request.child.rawValue, appToken: request.appToken, minutes: request.minutes,
            note: request.note, state: .init(rawValue: request.state.rawValue) ?? .pending,
            createdAt: request.createdAt, decidedAt: request.decidedAt)
    }
}
