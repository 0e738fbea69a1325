import Foundation
import HTTPTypes
import Logging
import QuestlineAPI
import QuestlineCore
import QuestlineL10n
import QuestlineStore
import QuestlineTestSupport
import Testing

@testable import QuestlineFeatures
@testable import QuestlineServer

/// A kept quest board and a kept console are always the ones computed fresh: random usage
/// reports (learning and reward apps), redemptions, point corrections, shield rules (downtime and
/// days without rewards), quests set, paused and resumed, time requests approved, zone changes,
/// and clock moves small (across a grant's expiry, downtime's start and end) and large (across
/// midnights and the DST change of 2026-10-25 in Europe), sent to either of two instances
/// (PostgreSQL; SQLite is served by one). After every step each child's board and the
/// household's console, asked of each instance (its features, with the policy and restriction
/// the pages show; and its API), equal the ones a cold instance computes from the database.
@Suite struct KeptBoardPropertyTests {
    private static func at(_ iso: String) -> Date { try! Date(iso, strategy: .iso8601) }

    /// The household: a guardian, two children with a learning and a reward app each.
    struct Family {
        let guardian: String
        let guardianID: MemberID
        let children: [(token: String, id: MemberID)]
    }

    @Test func aKeptBoardIsAlwaysTheFreshOne() async throws {
        try await Harness.run(sessionLifetime: 400 * 86_400) { app in
            app.clock.set(Self.at("2026-10-23T06:00:00Z"))
            let f = try await HouseholdAPITests().family(app)
            let second = try await app.send(
                .post, "/api/v1/households/\(f.household)/children",
                json: #"{"username":"Kid2","password":"kidpass123","displayName":"Kid two"}"#, token: f.guardian)
            #expect(second.status == .created, "\(second.text)")
            let login = try await app.send(
                .post, "/api/v1/auth/login", json: #"{"login":"kid2","password":"kidpass123"}"#)
            let children = [(f.child, f.childID), (try login.string("token"), try second.string("id"))]
            let rules = try await app.send(
                .put, "/api/v1/households/\(f.household)/quest-rules",
                json: #"{"pointsPerMinute":1,"minMinutes":1,"maxMinutes":60}"#, token: f.guardian)
            #expect(rules.status == .ok, "\(rules.text)")
            for (_, child) in children {
                for (token, body) in [
                    ("khan", #"{"name":"Khan Kids","role":"learning","pointsPerMinute":2}"#),
                    ("game", #"{"name":"Minecraft","role":"reward"}"#),
                ] {
                    let put = try await app.send(
                        .put, "/api/v1/children/\(child)/apps/\(token)", json: body, token: f.guardian)
                    #expect(put.status == .ok, "\(put.text)")
                }
            }
            let family = Family(
                guardian: f.guardian, guardianID: try #require(MemberID(f.guardianID)),
                children: try children.map { ($0.0, try #require(MemberID($0.1))) })
            try await KeptWidgetPropertyTests.onTwoInstances(app) { other in
                try await Self.steps(family, app: app, other: other)
            }
        }
    }

    private static func steps(_ family: Family, app: Harness, other: Harness) async throws {
        var random = SeededGenerator(seed: 5151)
        // Each instance's features keep answers as the server's do (its store hears the same
        // events); the cold ones keep nothing.
        let kept = [app, other].map {
            FamilyFeatures(store: $0.store, configuration: FeatureConfiguration(clock: app.clock))
        }
        var cold = FeatureConfiguration(clock: app.clock)
        cold.keptBoards = 0
        let fresh = FamilyFeatures(store: app.store, configuration: cold)
        var quests: [String] = []
        // Steps after which every answer compared was a kept one: all of them on SQLite; on
        // PostgreSQL, where the other tests of a run share the notification channel and their
        // household-wide events forget every board, at least some.
        var keptSteps = 0
        let zones = ["Europe/Berlin", "America/New_York", "Pacific/Auckland", "Asia/Kolkata"]
        for step in 0..<120 {
            let instance = Bool.random(using: &random) ? app : other
            let child = family.children[Int.random(in: 0..<family.children.count, using: &random)]
            let now = app.clock.now()
            let action: String
            var reply: Reply?
            switch Int.random(in: 0..<13, using: &random) {
            case 0...2:
                let appToken = Bool.random(using: &random) ? "khan" : "game"
                let ago = Int.random(in: 5...120, using: &random)
                let seconds = Int.random(in: 5...40, using: &random) * 60
                let start = ISO8601DateFormatter().string(from: now.addingTimeInterval(TimeInterval(-ago * 60)))
                action = "usage \(appToken) \(seconds / 60) min from \(ago) min ago"
                reply = try await instance.send(
                    .post, "/api/v1/children/\(child.id)/usage",
                    json: QuestAPITests().usage([("u\(step)", appToken, start, seconds)], zone: "UTC"),
                    token: child.token)
            case 3:
                let minutes = Int.random(in: 5...30, using: &random)
                action = "redeem \(minutes) min"
                reply = try await instance.send(
                    .post, "/api/v1/children/\(child.id)/redemptions",
                    json: #"{"appToken":"game","minutes":\#(minutes)}"#, token: child.token)
            case 4:
                let points = Int.random(in: 10...200, using: &random)
                action = "adjust \(points)"
                reply = try await instance.send(
                    .post, "/api/v1/children/\(child.id)/adjustments",
                    json: #"{"points":\#(points),"reason":"Step \#(step)"}"#, token: family.guardian)
            case 5:
                let days = (1...7).filter { _ in Int.random(in: 0..<3, using: &random) > 0 }
                let start = Int.random(in: 0...23, using: &random)
                let downtime =
                    Bool.random(using: &random)
                    ? #","downtime":{"start":\#(start),"end":\#((start + Int.random(in: 1...10, using: &random)) % 24)}"#
                    : ""
                action = "shield rules \(days)\(downtime)"
                reply = try await instance.send(
                    .put, "/api/v1/children/\(child.id)/shield-rules", json: #"{"rewardDays":\#(days)\#(downtime)}"#,
                    token: family.guardian)
            case 6:
                if quests.count < 2 || Int.random(in: 0..<3, using: &random) == 0 {
                    let weekly = Bool.random(using: &random)
                    action = weekly ? "weekly quest" : "daily quest"
                    reply = try await instance.send(
                        .post, "/api/v1/children/\(child.id)/quests",
                        json: weekly
                            ? #"{"title":"Week","goalType":"weeklyMinutes","target":90}"#
                            : #"{"title":"Day","goalType":"dailyMinutes","target":20,"rewardApps":[{"appToken":"game","minutes":15}]}"#,
                        token: family.guardian)
                    if reply?.status == .created, let id = try? reply?.string("id") { quests.append(id) }
                } else {
                    let quest = quests[Int.random(in: 0..<quests.count, using: &random)]
                    let status = Bool.random(using: &random) ? "paused" : "active"
                    action = "quest \(status)"
                    reply = try await instance.send(
                        .put, "/api/v1/quests/\(quest)/status", json: #"{"status":"\#(status)"}"#,
                        token: family.guardian)
                }
            case 7:
                let zone = zones[Int.random(in: 0..<zones.count, using: &random)]
                action = "zone \(zone)"
                reply = try await instance.send(
                    .patch, "/api/v1/members/\(child.id)", json: #"{"timeZone":"\#(zone)"}"#, token: family.guardian)
            case 8:
                let minutes = Int.random(in: 5...30, using: &random)
                action = "time request \(minutes) min"
                let asked = try await instance.send(
                    .post, "/api/v1/children/\(child.id)/time-requests",
                    json: #"{"appToken":"game","minutes":\#(minutes),"note":"Please"}"#, token: child.token)
                if asked.status == .created, let id = try? asked.string("id") {
                    reply = try await (Bool.random(using: &random) ? app : other).send(
                        .post, "/api/v1/time-requests/\(id)/decision", json: #"{"approve":true}"#,
                        token: family.guardian)
                } else {
                    reply = asked
                }
            case 9...10:
                let minutes = Int.random(in: 1...90, using: &random)
                action = "clock +\(minutes) min"
                app.clock.set(now.addingTimeInterval(TimeInterval(minutes * 60)))
            default:
                let hours = Int.random(in: 1...14, using: &random)
                action = "clock +\(hours) h"
                app.clock.set(now.addingTimeInterval(TimeInterval(hours * 3600)))
            }
            // A step may be refused (too few points, a day without rewards): what it must not do
            // is leave a kept answer behind.
            if let reply, reply.status.code >= 500 { Issue.record("step \(step) (\(action)): \(reply.text)") }
            let label = "step \(step) (\(action))"
            if try await Self.expectFresh(family, kept: kept, fresh: fresh, instances: [app, other], label) {
                keptSteps += 1
            }
        }
        if app.database == .sqlite {
            #expect(keptSteps == 120)
        } else {
            #expect(keptSteps > 0)
        }
    }

    /// What a board shows, told apart field by field: the API's body, and the policy and the
    /// restriction the pages show.
    struct Shown: Equatable {
        let body: Components.Schemas.QuestBoard
        let policy: ShieldPolicy
        let restriction: ShieldPolicy.Reason?
        let restrictedUntil: Date?
        let trueUntil: Date

        init(_ board: QuestBoard) {
            body = Components.Schemas.QuestBoard(board, localizer: Localizer(.english))
            policy = board.policy
            restriction = board.restriction?.reason
            restrictedUntil = board.restriction?.until
            trueUntil = board.trueUntil
        }
    }

    /// Each child's board and the console, asked of each instance, equal the cold ones. Another
    /// instance hears of a write when its notification arrives (PostgreSQL, a few milliseconds
    /// after the commit): it is asked again for up to two seconds before that counts.
    @discardableResult
    private static func expectFresh(
        _ family: Family, kept: [FamilyFeatures], fresh: FamilyFeatures, instances: [Harness], _ label: String
    ) async throws -> Bool {
        let store = instances[0].store
        let guardian = try #require(try await store.accounts.member(family.guardianID))
        let deadline = ContinuousClock.now + .seconds(2)
        while true {
            var differences: [String] = []
            let console = try await fresh.quests.household(as: guardian)
            for (index, features) in kept.enumerated() {
                let asked = try await features.quests.household(as: guardian)
                if asked != console { differences.append("instance \(index) console: \(asked) != \(console)") }
            }
            for child in family.children {
                let expected = Shown(try await fresh.quests.board(child.id, as: guardian))
                for (index, features) in kept.enumerated() {
                    let asked = Shown(try await features.quests.board(child.id, as: guardian))
                    if asked != expected { differences.append("instance \(index) board: \(asked) != \(expected)") }
                }
                for (index, instance) in instances.enumerated() {
                    let reply = try await instance.send(.get, "/api/v1/children/\(child.id)/quests", token: child.token)
                    let answered = reply.status == .ok ? try reply.decode(Components.Schemas.QuestBoard.self) : nil
                    if answered != expected.body {
                        differences.append("instance \(index) API board: \(reply.text) != \(expected.body)")
                    }
                }
            }
            if differences.isEmpty {
                // Whether each instance kept what it was asked (the comparison is then of kept
                // answers, not of two computations).
                return kept.allSatisfy {
                    $0.quests.parts.kept.boards.count == family.children.count
                        && $0.quests.parts.kept.consoles.count == 1
                }
            }
            if ContinuousClock.now > deadline {
                Issue.record("\(label): \(differences.joined(separator: "\n"))")
                return false
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// The rules of a kept board alone: it is used only for the zone it was computed in and until
/// the instant it says.
@Suite struct KeptBoardRulesTests {
    @Test func aBoardSaysUntilWhenItIsTrue() throws {
        let zone = try #require(TimeZone(identifier: "Europe/Berlin"))
        let now = try Date("2026-10-24T20:00:00Z", strategy: .iso8601)  // 22:00 in Berlin (summer time)
        let midnight = try Date("2026-10-24T22:00:00Z", strategy: .iso8601)
        let open = ShieldPolicy.compute(rewardApps: ["game"], balances: [], rules: .open, now: now, zone: zone)
        #expect(UnlockLedger.trueUntil(balances: [], policy: open, now: now, zone: zone) == midnight)
        // A grant expiring before midnight, another starting later: the expiry.
        let soon = GrantBalance(
            grant: UnlockGrant(
                id: "a", token: "game", minutes: 10, startsAt: now.addingTimeInterval(-60),
                expiresAt: now.addingTimeInterval(600), questID: nil),
            secondsLeft: 600)
        let policy = ShieldPolicy.compute(rewardApps: ["game"], balances: [soon], rules: .open, now: now, zone: zone)
        #expect(
            UnlockLedger.trueUntil(balances: [soon], policy: policy, now: now, zone: zone)
                == now.addingTimeInterval(600))
        // Downtime from 21:00 to 23:00 local: its end (21:00Z) comes before midnight.
        let downtime = ShieldRules(downtime: try LocalHours.validated(start: 21, end: 23, field: "downtime"))
        let shielded = ShieldPolicy.compute(rewardApps: ["game"], balances: [], rules: downtime, now: now, zone: zone)
        #expect(
            UnlockLedger.trueUntil(balances: [], policy: shielded, now: now, zone: zone)
                == now.addingTimeInterval(3600))
        // The night the clocks go back: midnight of the 25th is still 22:00Z on the 24th, and the
        // next one 23:00Z on the 25th (a day of 25 hours).
        let after = midnight.addingTimeInterval(60)
        #expect(
            UnlockLedger.trueUntil(
                balances: [],
                policy: ShieldPolicy.compute(rewardApps: [], balances: [], rules: .open, now: after, zone: zone),
                now: after, zone: zone) == (try Date("2026-10-25T23:00:00Z", strategy: .iso8601)))
    }
}
