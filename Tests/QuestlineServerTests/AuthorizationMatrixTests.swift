import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineServer
import Testing

/// Who is asking, in the authorization matrix.
enum Asker: String, CaseIterable, Sendable {
    /// No credentials (and no device id).
    case anonymous
    /// The member who owns the resource in the path: the child for a child's data, the
    /// household's guardian for the household, the administrator for admin operations and
    /// for member-scoped operations without an id in the path (their own data).
    case owner
    /// A signed-in member with no household.
    case stranger
    /// The guardian of the household the resource belongs to.
    case guardian
    /// A child of that household.
    case child
    /// The guardian of another household.
    case otherGuardian
}

/// The members and resources each matrix cell starts from (a fresh database per cell).
struct World: Sendable {
    var tokens: [Asker: String] = [:]
    var adminID = "", childID = "", guardianID = "", household = "", quest = "", session = "", invitation = "",
        comment = "", webhook = "", delivery = "", timeRequest = "", child2ID = "", coop = ""

    /// This week's Monday on the harness's clock (a Thursday midday: the same in every zone).
    var monday: String { LocalDay(Harness.start, in: .gmt).monday.iso }

    /// A co-op quest for both children, this week.
    var coopInput: String {
        #"{"title":"Together","goal":"minutes","target":60,"weekStart":"\#(monday)","children":["\#(childID)","\#(child2ID)"],"rewardApps":[{"appToken":"game","minutes":10}]}"#
    }

    /// A tiny valid PNG: the signature and nothing else an image sniffer needs.
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]

    static func make(_ app: Harness, stories: Bool = false) async throws -> World {
        var world = World()
        let (admin, adminID) = try await app.signUpAdministrator("admin@example.com", name: "Admin")
        let (guardian, guardianID) = try await app.signUp("guardian@example.com", name: "Grace")
        let (stranger, _) = try await app.signUp("stranger@example.com", name: "Sam")
        let (other, _) = try await app.signUp("other@example.com", name: "Olga")
        world.adminID = adminID
        world.guardianID = guardianID
        world.household =
            try await app.send(.post, "/api/v1/households", json: #"{"name":"Home"}"#, token: guardian).string("id")
        _ = try await app.send(.post, "/api/v1/households", json: #"{"name":"Other"}"#, token: other)
        world.childID =
            try await app.send(
                .post, "/api/v1/households/\(world.household)/children",
                json: #"{"username":"kid","password":"kidpass123","displayName":"Kid"}"#, token: guardian
            )
            .string("id")
        let child =
            try await app.send(.post, "/api/v1/auth/login", json: #"{"login":"kid","password":"kidpass123"}"#).string(
                "token")
        world.tokens = [.owner: admin, .stranger: stranger, .guardian: guardian, .child: child, .otherGuardian: other]
        for (token, body) in [
            ("khan", #"{"name":"Khan","role":"learning"}"#), ("game", #"{"name":"Game","role":"reward"}"#),
            ("spare", #"{"name":"Spare","role":"reward"}"#),
        ] {
            _ = try await app.send(.put, "/api/v1/children/\(world.childID)/apps/\(token)", json: body, token: guardian)
        }
        world.quest =
            try await app.send(
                .post, "/api/v1/children/\(world.childID)/quests",
                json:
                    #"{"title":"Learn","goalType":"dailyMinutes","target":30,"rewardApps":[{"appToken":"game","minutes":10}]}"#,
                token: guardian
            ).string("id")
        // A second child with the same reward app, and a co-op quest for both (this week).
        world.child2ID =
            try await app.send(
                .post, "/api/v1/households/\(world.household)/children",
                json: #"{"username":"kidtwo","password":"kidpass123","displayName":"Kid Two"}"#, token: guardian
            )
            .string("id")
        _ = try await app.send(
            .put, "/api/v1/children/\(world.child2ID)/apps/game", json: #"{"name":"Game","role":"reward"}"#,
            token: guardian)
        world.coop =
            try await app.send(
                .post, "/api/v1/households/\(world.household)/coop-quests", json: world.coopInput, token: guardian
            ).string("id")
        // The device's app catalog, with an icon.
        _ = try await app.send(
            .put, "/api/v1/children/\(world.childID)/device-apps",
            json:
                #"{"apps":[{"token":"dev.game","name":"Game","category":"games","icon":"\#(Data(png).base64EncodedString())"}]}"#,
            token: child)
        // A request for more time, waiting for an answer.
        world.timeRequest =
            try await app.send(
                .post, "/api/v1/children/\(world.childID)/time-requests",
                json: #"{"appToken":"game","minutes":15,"note":"Homework done"}"#, token: child
            ).string("id")
        // A webhook endpoint that hears points change, so that the adjustment below has a delivery.
        world.webhook =
            try await app.send(
                .post, "/api/v1/admin/webhooks",
                json: #"{"url":"https://93.184.215.14/hook","events":["points.changed"]}"#,
                token: admin
            ).string("id")
        _ = try await app.send(
            .post, "/api/v1/children/\(world.childID)/adjustments", json: #"{"points":100,"reason":"Start"}"#,
            token: guardian)
        world.delivery =
            try await app.send(.get, "/api/v1/admin/webhooks/\(world.webhook)/deliveries", token: admin)
            .decode([Components.Schemas.WebhookDelivery].self).first?.id ?? ""
        world.invitation =
            try await app.send(
                .post, "/api/v1/households/\(world.household)/invitations", json: #"{"role":"guardian"}"#,
                token: guardian
            ).string("code")
        world.session =
            try await app.send(.post, "/api/v1/game/sessions", json: "{}", token: admin).string("id")
        for token in world.tokens.values {
            _ = try await app.send(.post, "/api/v1/saved", json: #"{"language":"en","title":"Octopus"}"#, token: token)
        }
        if stories {
            // The owner (the administrator) has a comment, a profile photo, selfies at Daytona and
            // Homestead, and Daytona's rewards collected (100 points).
            try await StoryContentFeature(store: app.store, configuration: FeatureConfiguration())
                .installBundledContentIfEmpty()
            world.comment =
                try await app.send(
                    .post, "/api/v1/stories/daytona/chapters/0/comments", json: #"{"text":"Great lap"}"#, token: admin
                )
                .string("id")
            for story in ["daytona", "homestead"] {
                _ = try await app.sendBytes(.put, "/api/v1/stories/\(story)/selfie", bytes: png, token: admin)
                _ = try await app.send(.get, "/api/v1/stories/\(story)/chapters/0/pages/0", token: admin)
            }
            _ = try await app.sendBytes(.put, "/api/v1/profile/photo", bytes: png, token: admin)
            let collected = try await app.send(.post, "/api/v1/stories/daytona/rewards", token: admin)
            #expect(collected.status == .created, "\(collected.text)")
        }
        return world
    }
}

struct Cell: Sendable {
    let method: HTTPRequest.Method
    let path: String
    let json: String?
    var bytes: [UInt8]? = nil
}

/// One operation of the contract: how to call it, and the status each asker gets.
struct MatrixRow: Sendable, CustomTestStringConvertible {
    let operation: String
    let request: @Sendable (World) -> Cell
    let expected: [Asker: Int]
    /// Who "owner" is for this operation when not the administrator: the child for a child's
    /// data, the guardian for a household's.
    var owner: Asker = .owner
    /// A server-sent event stream: allowed askers are not called (the stream does not end).
    var streams = false
    /// The world needs the stories content.
    var stories = false

    var testDescription: String { operation }

    /// A read: `GET` (what it may write, such as a story page's progress, changes no status).
    var read: Bool { request(World()).method == .get }
}

private let now = "2026-05-07T09:00:00Z"
private let read =
    #"{"eventId":"e-1","articleId":"Octopus","title":"Octopus","language":"en","at":"\#(now)","timeZone":"Europe/Berlin"}"#
private let quest = #"{"title":"Learn more","goalType":"weeklyMinutes","target":100}"#

/// Statuses: every member for their own data; in a household, guardians manage and children
/// read and report; outside it, 404.
private func all(_ status: Int, anonymous: Int = 401) -> [Asker: Int] {
    [
        .anonymous: anonymous, .owner: status, .stranger: status, .guardian: status, .child: status,
        .otherGuardian: status,
    ]
}
/// Child-scoped: the owner is the child.
private func childData(child: Int, guardian: Int) -> [Asker: Int] {
    [.anonymous: 401, .owner: child, .stranger: 404, .guardian: guardian, .child: child, .otherGuardian: 404]
}
private func householdData(guardian: Int, child: Int) -> [Asker: Int] {
    [.anonymous: 401, .owner: guardian, .stranger: 404, .guardian: guardian, .child: child, .otherGuardian: 404]
}
private func ownerOnly(_ status: Int, others: Int) -> [Asker: Int] {
    [.anonymous: 401, .owner: status, .stranger: others, .guardian: others, .child: others, .otherGuardian: others]
}
/// A guardian's act for their own household: the household's guardians may, a child may not,
/// a member without a household has none (the owner here is the administrator, without one).
private func guardiansOwn(_ status: Int) -> [Asker: Int] {
    [.anonymous: 401, .owner: 404, .stranger: 404, .guardian: status, .child: 403, .otherGuardian: status]
}
private func adminOnly(_ status: Int) -> [Asker: Int] {
    [.anonymous: 401, .owner: status, .stranger: 403, .guardian: 403, .child: 403, .otherGuardian: 403]
}

let matrix: [MatrixRow] = [
    MatrixRow(
        operation: "signUp",
        request: { _ in
            Cell(
                method: .post, path: "/api/v1/auth/signup",
                json:
                    #"{"email":"new-\#(UUID().uuidString.prefix(8))@example.com","password":"password123","displayName":"New","timeZone":"UTC"}"#
            )
        },
        expected: all(201, anonymous: 201)),
    MatrixRow(
        operation: "logIn",
        request: { _ in
            Cell(
                method: .post, path: "/api/v1/auth/login",
                json: #"{"login":"stranger@example.com","password":"password123"}"#)
        },
        expected: all(200, anonymous: 200)),
    MatrixRow(
        operation: "logOut", request: { _ in Cell(method: .post, path: "/api/v1/auth/logout", json: nil) },
        expected: all(204)),
    MatrixRow(
        operation: "getMe", request: { _ in Cell(method: .get, path: "/api/v1/me", json: nil) }, expected: all(200)),
    MatrixRow(
        operation: "updateMe",
        request: { _ in Cell(method: .patch, path: "/api/v1/me", json: #"{"displayName":"Renamed"}"#) },
        expected: all(200)),
    MatrixRow(
        operation: "getMember", request: { w in Cell(method: .get, path: "/api/v1/members/\(w.childID)", json: nil) },
        expected: childData(child: 200, guardian: 200), owner: .child),
    MatrixRow(
        operation: "updateMember",
        request: { w in Cell(method: .patch, path: "/api/v1/members/\(w.childID)", json: #"{"displayName":"Kiddo"}"#) },
        expected: childData(child: 200, guardian: 200), owner: .child),
    MatrixRow(
        operation: "createHousehold",
        request: { _ in Cell(method: .post, path: "/api/v1/households", json: #"{"name":"Another"}"#) },
        expected: [.anonymous: 401, .owner: 201, .stranger: 201, .guardian: 409, .child: 409, .otherGuardian: 409]),
    MatrixRow(
        operation: "getHousehold",
        request: { w in Cell(method: .get, path: "/api/v1/households/\(w.household)", json: nil) },
        expected: householdData(guardian: 200, child: 200), owner: .guardian),
    MatrixRow(
        operation: "createChild",
        request: { w in
            Cell(
                method: .post, path: "/api/v1/households/\(w.household)/children",
                json: #"{"username":"kid2","password":"kidpass123","displayName":"Kid 2"}"#)
        },
        expected: householdData(guardian: 201, child: 403), owner: .guardian),
    MatrixRow(
        operation: "createInvitation",
        request: { w in
            Cell(method: .post, path: "/api/v1/households/\(w.household)/invitations", json: #"{"role":"child"}"#)
        },
        expected: householdData(guardian: 201, child: 403), owner: .guardian),
    MatrixRow(
        operation: "acceptInvitation",
        request: { w in Cell(method: .post, path: "/api/v1/invitations/accept", json: #"{"code":"\#(w.invitation)"}"#)
        },
        expected: [.anonymous: 401, .owner: 200, .stranger: 200, .guardian: 409, .child: 409, .otherGuardian: 409]),
    MatrixRow(
        operation: "getTodaysGame", request: { _ in Cell(method: .get, path: "/api/v1/game/today", json: nil) },
        expected: all(200)),
    MatrixRow(
        operation: "getGameDay", request: { _ in Cell(method: .get, path: "/api/v1/game/days/2026-05-06", json: nil) },
        expected: all(200)),
    MatrixRow(
        operation: "startGame", request: { _ in Cell(method: .post, path: "/api/v1/game/sessions", json: "{}") },
        expected: [.anonymous: 401, .owner: 200, .stranger: 201, .guardian: 201, .child: 201, .otherGuardian: 201]),
    MatrixRow(
        operation: "getGameSession",
        request: { w in Cell(method: .get, path: "/api/v1/game/sessions/\(w.session)", json: nil) },
        expected: [.anonymous: 401, .owner: 200, .stranger: 404, .guardian: 404, .child: 404, .otherGuardian: 404]),
    MatrixRow(
        operation: "answerQuestion",
        request: { w in
            Cell(
                method: .post, path: "/api/v1/game/sessions/\(w.session)/answers",
                json: #"{"questionIndex":0,"choice":"first"}"#)
        },
        expected: [.anonymous: 401, .owner: 200, .stranger: 404, .guardian: 404, .child: 404, .otherGuardian: 404]),
    MatrixRow(
        operation: "getGameStats", request: { _ in Cell(method: .get, path: "/api/v1/game/stats", json: nil) },
        expected: all(200)),
    MatrixRow(
        operation: "getGameArchive", request: { _ in Cell(method: .get, path: "/api/v1/game/archive", json: nil) },
        expected: all(200)),
    MatrixRow(
        operation: "recordRead", request: { _ in Cell(method: .post, path: "/api/v1/reading/reads", json: read) },
        expected: all(200)),
    MatrixRow(
        operation: "recordReads",
        request: { _ in Cell(method: .post, path: "/api/v1/reading/reads/batch", json: #"{"reads":[\#(read)]}"#) },
        expected: all(200)),
    MatrixRow(
        operation: "getReadingWidget", request: { _ in Cell(method: .get, path: "/api/v1/reading/widget", json: nil) },
        expected: all(200, anonymous: 200)),
    MatrixRow(
        operation: "getReadingWidgetBasis",
        request: { _ in Cell(method: .get, path: "/api/v1/reading/widget/basis", json: nil) },
        expected: all(200, anonymous: 200)),
    MatrixRow(
        operation: "joinChallenge",
        request: { _ in Cell(method: .post, path: "/api/v1/reading/challenge/join", json: nil) }, expected: all(200)),
    MatrixRow(
        operation: "claimPrize",
        request: { _ in Cell(method: .post, path: "/api/v1/reading/challenge/claim", json: nil) }, expected: all(409)),
    MatrixRow(
        operation: "getShareCard", request: { _ in Cell(method: .get, path: "/api/v1/reading/share.svg", json: nil) },
        expected: all(200)),
    MatrixRow(
        operation: "searchArticles",
        request: { _ in Cell(method: .get, path: "/api/v1/reading/articles?q=Octopus", json: nil) },
        expected: all(200, anonymous: 200)),
    MatrixRow(
        operation: "randomArticle",
        request: { _ in Cell(method: .get, path: "/api/v1/reading/articles/random", json: nil) },
        expected: all(200, anonymous: 200)),
    MatrixRow(
        operation: "getArticleSummary",
        request: { _ in
            Cell(method: .get, path: "/api/v1/reading/articles/summary?title=Indian%20Army", json: nil)
        },
        expected: all(200, anonymous: 200)),
    MatrixRow(
        operation: "trackReadingEvent",
        request: { _ in Cell(method: .post, path: "/api/v1/reading/events", json: #"{"name":"reading_share"}"#) },
        expected: all(204)),
    MatrixRow(
        operation: "listCampaigns", request: { _ in Cell(method: .get, path: "/api/v1/reading/campaigns", json: nil) },
        expected: all(200, anonymous: 200)),
    MatrixRow(
        operation: "listBadges", request: { _ in Cell(method: .get, path: "/api/v1/badges", json: nil) },
        expected: all(200)),
    // Each asker deletes their own account; the guardian's household still has a child.
    MatrixRow(
        operation: "deleteMe", request: { _ in Cell(method: .delete, path: "/api/v1/me", json: nil) },
        // A child cannot delete its own account (a guardian does).
        expected: [.anonymous: 401, .owner: 204, .stranger: 204, .guardian: 409, .child: 403, .otherGuardian: 204]),
    MatrixRow(
        operation: "deleteMember",
        request: { w in Cell(method: .delete, path: "/api/v1/members/\(w.childID)", json: nil) },
        expected: childData(child: 403, guardian: 204), owner: .child),
    MatrixRow(
        operation: "getNotificationPreferences",
        request: { _ in Cell(method: .get, path: "/api/v1/me/notifications", json: nil) }, expected: all(200)),
    MatrixRow(
        operation: "setNotificationPreferences",
        request: { _ in
            Cell(
                method: .put, path: "/api/v1/me/notifications",
                json: #"{"streakReminders":true,"quietHours":{"start":21,"end":7}}"#)
        }, expected: all(200)),
    MatrixRow(
        operation: "getStreakSettings", request: { _ in Cell(method: .get, path: "/api/v1/me/streak", json: nil) },
        expected: all(200)),
    MatrixRow(
        operation: "setRestDays",
        request: { _ in Cell(method: .put, path: "/api/v1/me/streak/rest-days", json: #"{"weekdays":[6,7]}"#) },
        expected: all(200)),
    MatrixRow(
        operation: "pauseStreak",
        request: { _ in
            Cell(method: .post, path: "/api/v1/me/streak/pause", json: #"{"start":"2099-06-01","end":"2099-06-03"}"#)
        }, expected: all(200)),
    // Each asker's own streak, in a fresh world: there is no pause to end.
    MatrixRow(
        operation: "endStreakPause",
        request: { _ in Cell(method: .delete, path: "/api/v1/me/streak/pause", json: nil) },
        expected: all(409)),
    MatrixRow(
        operation: "exportMe", request: { _ in Cell(method: .get, path: "/api/v1/me/export", json: nil) },
        expected: all(200)),
    MatrixRow(
        operation: "listWebhooks", request: { _ in Cell(method: .get, path: "/api/v1/admin/webhooks", json: nil) },
        expected: adminOnly(200)),
    MatrixRow(
        operation: "createWebhook",
        request: { _ in
            Cell(
                method: .post, path: "/api/v1/admin/webhooks",
                json: #"{"url":"https://93.184.215.14/hook","events":["quest.completed"],"description":"Ops"}"#)
        }, expected: adminOnly(201)),
    MatrixRow(
        operation: "deleteWebhook",
        request: { w in Cell(method: .delete, path: "/api/v1/admin/webhooks/\(w.webhook)", json: nil) },
        expected: adminOnly(204)),
    MatrixRow(
        operation: "listWebhookDeliveries",
        request: { w in Cell(method: .get, path: "/api/v1/admin/webhooks/\(w.webhook)/deliveries", json: nil) },
        expected: adminOnly(200)),
    MatrixRow(
        operation: "replayWebhookDelivery",
        request: { w in
            Cell(method: .post, path: "/api/v1/admin/webhook-deliveries/\(w.delivery)/replay", json: nil)
        }, expected: adminOnly(200)),
    MatrixRow(
        operation: "putCampaign",
        request: { _ in
            Cell(
                method: .put, path: "/api/v1/admin/campaigns/matrix",
                json: #"""
                    {"id":"matrix","startDay":"2026-05-01","endDay":"2026-05-30","goalDays":10,"claimUntilDay":"2026-06-30","removeAfterDay":"2026-06-30","freezes":1}
                    """#)
        }, expected: adminOnly(200)),
    MatrixRow(
        operation: "getReadingFunnel",
        request: { _ in Cell(method: .get, path: "/api/v1/admin/reading/funnel?campaign=2026", json: nil) },
        expected: adminOnly(200)),
    MatrixRow(
        operation: "listSaved", request: { _ in Cell(method: .get, path: "/api/v1/saved", json: nil) },
        expected: all(200)),
    MatrixRow(
        operation: "saveArticle",
        request: { _ in Cell(method: .post, path: "/api/v1/saved", json: #"{"language":"en","title":"Squid"}"#) },
        expected: all(200)),
    MatrixRow(
        operation: "unsaveArticle",
        request: { _ in Cell(method: .delete, path: "/api/v1/saved?language=en&title=Octopus", json: nil) },
        expected: all(204)),
    MatrixRow(
        operation: "importSaved",
        request: { _ in
            Cell(
                method: .post, path: "/api/v1/saved/import",
                json: #"""
                    {"importId":"matrix-import","total":1,"offset":0,"items":[{"language":"en","title":"Squid","savedAt":"2026-05-01T10:00:00Z"}]}
                    """#)
        }, expected: all(200)),
    MatrixRow(
        operation: "getActivity", request: { _ in Cell(method: .get, path: "/api/v1/activity", json: nil) },
        expected: all(200)),
    // Each asker's own recap.
    MatrixRow(
        operation: "getRecap", request: { _ in Cell(method: .get, path: "/api/v1/me/recap?period=2026", json: nil) },
        expected: all(200)),
    MatrixRow(
        operation: "getRecapPicture",
        request: { _ in Cell(method: .get, path: "/api/v1/me/recap.svg?period=2026-05", json: nil) },
        expected: all(200)),
    MatrixRow(
        operation: "recordReadingTime",
        request: { _ in
            Cell(
                method: .post, path: "/api/v1/activity/reading-time",
                json: #"""
                    {"intervals":[{"eventId":"t-1","start":"2026-05-07T08:00:00Z","end":"2026-05-07T08:05:00Z","timeZone":"UTC"}]}
                    """#)
        }, expected: all(200)),
    MatrixRow(
        operation: "getQuestRules",
        request: { w in Cell(method: .get, path: "/api/v1/households/\(w.household)/quest-rules", json: nil) },
        expected: householdData(guardian: 200, child: 200), owner: .guardian),
    MatrixRow(
        operation: "setQuestRules",
        request: { w in
            Cell(
                method: .put, path: "/api/v1/households/\(w.household)/quest-rules",
                json: #"{"pointsPerMinute":2,"minMinutes":5,"maxMinutes":30}"#)
        },
        expected: householdData(guardian: 200, child: 403), owner: .guardian),
    MatrixRow(
        operation: "listCheers",
        request: { w in Cell(method: .get, path: "/api/v1/households/\(w.household)/cheers", json: nil) },
        expected: householdData(guardian: 200, child: 200), owner: .guardian),
    // To the child: the child cheering itself is refused by the rule (400), after access.
    MatrixRow(
        operation: "sendCheer",
        request: { w in
            Cell(
                method: .post, path: "/api/v1/households/\(w.household)/cheers",
                json: #"{"to":"\#(w.childID)","cheer":"proud"}"#)
        }, expected: householdData(guardian: 201, child: 400), owner: .guardian),
    MatrixRow(
        operation: "setCheerSettings",
        request: { w in
            Cell(method: .put, path: "/api/v1/households/\(w.household)/cheer-settings", json: #"{"enabled":false}"#)
        }, expected: householdData(guardian: 204, child: 403), owner: .guardian),
    MatrixRow(
        operation: "getFamilyStreak",
        request: { w in Cell(method: .get, path: "/api/v1/households/\(w.household)/family-streak", json: nil) },
        expected: householdData(guardian: 200, child: 200), owner: .guardian),
    // The guardian's own membership: a child may not change another member's.
    MatrixRow(
        operation: "setFamilyStreakMember",
        request: { w in
            Cell(
                method: .put, path: "/api/v1/households/\(w.household)/family-streak/members/\(w.guardianID)",
                json: #"{"joined":true}"#)
        }, expected: householdData(guardian: 200, child: 403), owner: .guardian),
    MatrixRow(
        operation: "listCoopQuests",
        request: { w in Cell(method: .get, path: "/api/v1/households/\(w.household)/coop-quests", json: nil) },
        expected: householdData(guardian: 200, child: 200), owner: .guardian),
    MatrixRow(
        operation: "createCoopQuest",
        request: { w in
            Cell(method: .post, path: "/api/v1/households/\(w.household)/coop-quests", json: w.coopInput)
        }, expected: householdData(guardian: 201, child: 403), owner: .guardian),
    MatrixRow(
        operation: "getCoopQuest",
        request: { w in Cell(method: .get, path: "/api/v1/coop-quests/\(w.coop)", json: nil) },
        expected: householdData(guardian: 200, child: 200), owner: .guardian),
    MatrixRow(
        operation: "cancelCoopQuest",
        request: { w in Cell(method: .post, path: "/api/v1/coop-quests/\(w.coop)/cancel", json: nil) },
        expected: householdData(guardian: 200, child: 403), owner: .guardian),
    // Each asker's own league.
    MatrixRow(
        operation: "getLeague", request: { _ in Cell(method: .get, path: "/api/v1/me/league", json: nil) },
        expected: all(200)),
    MatrixRow(
        operation: "setLeague",
        request: { _ in Cell(method: .put, path: "/api/v1/me/league", json: #"{"joined":true}"#) }, expected: all(200)),
    // Friend groups are a household's guardians' to start, join and leave; an unknown code is
    // refused by its field, an unknown group is not found.
    MatrixRow(
        operation: "createFriendGroup",
        request: { _ in Cell(method: .post, path: "/api/v1/me/league/friend-groups", json: #"{"name":"Friends"}"#) },
        expected: guardiansOwn(201)),
    MatrixRow(
        operation: "joinFriendGroup",
        request: { _ in
            Cell(method: .post, path: "/api/v1/me/league/friend-groups/join", json: #"{"code":"ABCD-EFGH"}"#)
        },
        expected: guardiansOwn(400)),
    MatrixRow(
        operation: "leaveFriendGroup",
        request: { _ in Cell(method: .delete, path: "/api/v1/me/league/friend-groups/none", json: nil) },
        expected: guardiansOwn(404)),
    MatrixRow(
        operation: "householdEvents",
        request: { w in Cell(method: .get, path: "/api/v1/households/\(w.household)/events", json: nil) },
        expected: householdData(guardian: 200, child: 200), owner: .guardian, streams: true),
    MatrixRow(
        operation: "listQuestApps",
        request: { w in Cell(method: .get, path: "/api/v1/children/\(w.childID)/apps", json: nil) },
        expected: childData(child: 200, guardian: 200), owner: .child),
    MatrixRow(
        operation: "putQuestApp",
        request: { w in
            Cell(
                method: .put, path: "/api/v1/children/\(w.childID)/apps/new-app",
                json: #"{"name":"New","role":"learning"}"#)
        },
        expected: childData(child: 403, guardian: 200), owner: .child),
    MatrixRow(
        operation: "deleteQuestApp",
        request: { w in Cell(method: .delete, path: "/api/v1/children/\(w.childID)/apps/spare", json: nil) },
        expected: childData(child: 403, guardian: 204), owner: .child),
    MatrixRow(
        operation: "getQuestBoard",
        request: { w in Cell(method: .get, path: "/api/v1/children/\(w.childID)/quests", json: nil) },
        expected: childData(child: 200, guardian: 200), owner: .child),
    MatrixRow(
        operation: "createQuest",
        request: { w in Cell(method: .post, path: "/api/v1/children/\(w.childID)/quests", json: quest) },
        expected: childData(child: 403, guardian: 201), owner: .child),
    MatrixRow(
        operation: "getQuest", request: { w in Cell(method: .get, path: "/api/v1/quests/\(w.quest)", json: nil) },
        expected: childData(child: 200, guardian: 200), owner: .child),
    MatrixRow(
        operation: "updateQuest", request: { w in Cell(method: .put, path: "/api/v1/quests/\(w.quest)", json: quest) },
        expected: childData(child: 403, guardian: 200), owner: .child),
    MatrixRow(
        operation: "deleteQuest", request: { w in Cell(method: .delete, path: "/api/v1/quests/\(w.quest)", json: nil) },
        expected: childData(child: 403, guardian: 204), owner: .child),
    MatrixRow(
        operation: "setQuestStatus",
        request: { w in Cell(method: .put, path: "/api/v1/quests/\(w.quest)/status", json: #"{"status":"paused"}"#) },
        expected: childData(child: 403, guardian: 200), owner: .child),
    // The old addresses, kept through API version 1.
    MatrixRow(
        operation: "getChallenge",
        request: { w in Cell(method: .get, path: "/api/v1/challenges/\(w.quest)", json: nil) },
        expected: childData(child: 200, guardian: 200), owner: .child),
    MatrixRow(
        operation: "updateChallenge",
        request: { w in Cell(method: .put, path: "/api/v1/challenges/\(w.quest)", json: quest) },
        expected: childData(child: 403, guardian: 200), owner: .child),
    MatrixRow(
        operation: "deleteChallenge",
        request: { w in Cell(method: .delete, path: "/api/v1/challenges/\(w.quest)", json: nil) },
        expected: childData(child: 403, guardian: 204), owner: .child),
    MatrixRow(
        operation: "setChallengeStatus",
        request: { w in Cell(method: .put, path: "/api/v1/challenges/\(w.quest)/status", json: #"{"status":"paused"}"#)
        },
        expected: childData(child: 403, guardian: 200), owner: .child),
    MatrixRow(
        operation: "reportUsage",
        request: { w in
            Cell(
                method: .post, path: "/api/v1/children/\(w.childID)/usage",
                json: #"""
                    {"reports":[{"id":"m-1","appToken":"khan","startedAt":"2026-05-07T09:00:00Z","durationSeconds":600,"timeZone":"Europe/Berlin"}]}
                    """#)
        }, expected: childData(child: 200, guardian: 200), owner: .child),
    MatrixRow(
        operation: "listGrants",
        request: { w in Cell(method: .get, path: "/api/v1/children/\(w.childID)/grants", json: nil) },
        expected: childData(child: 200, guardian: 200), owner: .child),
    MatrixRow(
        operation: "listDeviceApps",
        request: { w in Cell(method: .get, path: "/api/v1/children/\(w.childID)/device-apps", json: nil) },
        expected: childData(child: 200, guardian: 200), owner: .child),
    MatrixRow(
        operation: "reportDeviceApps",
        request: { w in
            Cell(
                method: .put, path: "/api/v1/children/\(w.childID)/device-apps",
                json: #"{"apps":[{"token":"dev.khan","name":"Khan","category":"education"}]}"#)
        },
        expected: childData(child: 200, guardian: 403), owner: .child),
    MatrixRow(
        operation: "getDeviceAppIcon",
        request: { w in
            Cell(method: .get, path: "/api/v1/children/\(w.childID)/device-apps/dev.game/icon", json: nil)
        },
        expected: childData(child: 200, guardian: 200), owner: .child),
    MatrixRow(
        operation: "listTimeRequests",
        request: { w in Cell(method: .get, path: "/api/v1/children/\(w.childID)/time-requests", json: nil) },
        expected: childData(child: 200, guardian: 200), owner: .child),
    MatrixRow(
        operation: "askForTime",
        request: { w in
            Cell(
                method: .post, path: "/api/v1/children/\(w.childID)/time-requests",
                json: #"{"appToken":"spare","minutes":10}"#)
        },
        expected: childData(child: 201, guardian: 403), owner: .child),
    MatrixRow(
        operation: "decideTimeRequest",
        request: { w in
            Cell(method: .post, path: "/api/v1/time-requests/\(w.timeRequest)/decision", json: #"{"approve":true}"#)
        },
        expected: childData(child: 403, guardian: 200), owner: .child),
    MatrixRow(
        operation: "getShieldPolicy",
        request: { w in Cell(method: .get, path: "/api/v1/children/\(w.childID)/policy", json: nil) },
        expected: childData(child: 200, guardian: 200), owner: .child),
    MatrixRow(
        operation: "getShieldRules",
        request: { w in Cell(method: .get, path: "/api/v1/children/\(w.childID)/shield-rules", json: nil) },
        expected: childData(child: 200, guardian: 200), owner: .child),
    MatrixRow(
        operation: "setShieldRules",
        request: { w in
            Cell(
                method: .put, path: "/api/v1/children/\(w.childID)/shield-rules",
                json: #"{"rewardDays":[1,2,3,4,5,6,7],"downtime":{"start":21,"end":7}}"#)
        },
        expected: childData(child: 403, guardian: 200), owner: .child),
    MatrixRow(
        operation: "redeemPoints",
        request: { w in
            Cell(
                method: .post, path: "/api/v1/children/\(w.childID)/redemptions",
                json: #"{"appToken":"game","minutes":5}"#)
        },
        expected: childData(child: 201, guardian: 403), owner: .child),
    MatrixRow(
        operation: "adjustPoints",
        request: { w in
            Cell(
                method: .post, path: "/api/v1/children/\(w.childID)/adjustments",
                json: #"{"points":5,"reason":"Well done"}"#)
        },
        expected: childData(child: 403, guardian: 201), owner: .child),
    MatrixRow(
        operation: "getLedger",
        request: { w in Cell(method: .get, path: "/api/v1/children/\(w.childID)/ledger", json: nil) },
        expected: childData(child: 200, guardian: 200), owner: .child),
    MatrixRow(
        operation: "listStories", request: { _ in Cell(method: .get, path: "/api/v1/stories?q=speedway", json: nil) },
        expected: all(200), stories: true),
    MatrixRow(
        operation: "getStoryCatalog", request: { _ in Cell(method: .get, path: "/api/v1/stories/catalog", json: nil) },
        expected: all(200), stories: true),
    MatrixRow(
        operation: "getStoryPreferences",
        request: { _ in Cell(method: .get, path: "/api/v1/stories/preferences", json: nil) }, expected: all(200),
        stories: true),
    MatrixRow(
        operation: "setStoryPreferences",
        request: { _ in
            Cell(method: .put, path: "/api/v1/stories/preferences", json: #"{"states":["FL"],"tracks":["daytona"]}"#)
        },
        expected: all(200), stories: true),
    MatrixRow(
        operation: "finishOnboarding",
        request: { _ in Cell(method: .post, path: "/api/v1/stories/onboarding", json: nil) }, expected: all(204),
        stories: true),
    MatrixRow(
        operation: "getStory", request: { _ in Cell(method: .get, path: "/api/v1/stories/daytona", json: nil) },
        expected: all(200), stories: true),
    MatrixRow(
        operation: "setStoryBookmark",
        request: { _ in Cell(method: .put, path: "/api/v1/stories/daytona/bookmark", json: #"{"bookmarked":true}"#) },
        expected: all(204), stories: true),
    MatrixRow(
        operation: "getStoryPage",
        request: { _ in Cell(method: .get, path: "/api/v1/stories/daytona/chapters/0/pages/1", json: nil) },
        expected: all(200), stories: true),
    MatrixRow(
        operation: "listStoryComments",
        request: { _ in Cell(method: .get, path: "/api/v1/stories/daytona/chapters/0/comments", json: nil) },
        expected: all(200), stories: true),
    MatrixRow(
        operation: "addStoryComment",
        request: { _ in
            Cell(method: .post, path: "/api/v1/stories/daytona/chapters/0/comments", json: #"{"text":"Hi"}"#)
        },
        expected: all(201), stories: true),
    // Comments are visible to every member; only the author deletes one.
    MatrixRow(
        operation: "deleteStoryComment",
        request: { w in Cell(method: .delete, path: "/api/v1/comments/\(w.comment)", json: nil) },
        expected: adminOnly(204), stories: true),
    MatrixRow(
        operation: "uploadSelfie",
        request: { _ in Cell(method: .put, path: "/api/v1/stories/texas/selfie", json: nil, bytes: World.png) },
        expected: all(204), stories: true),
    // Selfies and photos are served to their owner only: the others have none of their own.
    MatrixRow(
        operation: "getSelfie", request: { _ in Cell(method: .get, path: "/api/v1/stories/daytona/selfie", json: nil) },
        expected: ownerOnly(200, others: 404), stories: true),
    MatrixRow(
        operation: "collectStoryRewards",
        request: { _ in Cell(method: .post, path: "/api/v1/stories/homestead/rewards", json: nil) },
        expected: ownerOnly(201, others: 409), stories: true),
    MatrixRow(
        operation: "getStoryProfile", request: { _ in Cell(method: .get, path: "/api/v1/profile/stories", json: nil) },
        expected: all(200), stories: true),
    MatrixRow(
        operation: "setProfileDetails",
        request: { _ in Cell(method: .put, path: "/api/v1/profile/details", json: #"{"location":"Austin"}"#) },
        expected: all(200), stories: true),
    MatrixRow(
        operation: "uploadProfilePhoto",
        request: { _ in Cell(method: .put, path: "/api/v1/profile/photo", json: nil, bytes: World.png) },
        expected: all(204), stories: true),
    MatrixRow(
        operation: "getProfilePhoto", request: { _ in Cell(method: .get, path: "/api/v1/profile/photo", json: nil) },
        expected: ownerOnly(200, others: 404), stories: true),
    MatrixRow(
        operation: "getPoints", request: { _ in Cell(method: .get, path: "/api/v1/points", json: nil) },
        expected: all(200), stories: true),
    MatrixRow(
        operation: "listDailyTasks", request: { _ in Cell(method: .get, path: "/api/v1/points/tasks", json: nil) },
        expected: all(200), stories: true),
    MatrixRow(
        operation: "completeDailyTask",
        request: { _ in Cell(method: .post, path: "/api/v1/points/tasks/check-in", json: nil) },
        expected: all(201), stories: true),
    MatrixRow(
        operation: "listShopCards", request: { _ in Cell(method: .get, path: "/api/v1/shop/cards?q=flag", json: nil) },
        expected: all(200), stories: true),
    // Points are one balance per member: the owner has a story's rewards, the child its quest
    // adjustment; the others have nothing to spend.
    MatrixRow(
        operation: "buyCard",
        request: { _ in Cell(method: .post, path: "/api/v1/shop/cards/pit-crew/purchase", json: nil) },
        expected: [.anonymous: 401, .owner: 201, .stranger: 409, .guardian: 409, .child: 201, .otherGuardian: 409],
        stories: true),
    MatrixRow(
        operation: "listHelpTopics", request: { _ in Cell(method: .get, path: "/api/v1/help", json: nil) },
        expected: all(200), stories: true),
]

@Suite struct AuthorizationMatrixTests {
    /// Every operation in openapi.yaml has a row, and every row is an operation: a new
    /// operation without a row fails here.
    @Test func everyOperationOfTheContractHasARow() throws {
        let yaml = String(decoding: try QuestlineContract.yaml(), as: UTF8.self)
        let operations = Set(
            yaml.split(separator: "\n").compactMap { line -> String? in
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard trimmed.hasPrefix("operationId:") else { return nil }
                return trimmed.dropFirst("operationId:".count).trimmingCharacters(in: .whitespaces)
            })
        let rows = matrix.map(\.operation)
        #expect(Set(rows).count == rows.count, "an operation has two rows")
        #expect(operations.subtracting(rows).sorted() == [], "operations without a row in the authorization matrix")
        #expect(Set(rows).subtracting(operations).sorted() == [], "rows for operations the contract does not have")
        #expect(matrix.allSatisfy { Set($0.expected.keys) == Set(Asker.allCases) })
    }

    /// The askers of a row, grouped by the world they share. A refused request changes nothing
    /// (refusals never half-write), so the askers refused share one world, and the first asker
    /// allowed goes last in it; each other asker allowed gets a world of its own (a write that
    /// succeeds changes what the next one finds). A read changes nothing a status depends on,
    /// so its askers share one world.
    static func worlds(_ row: MatrixRow) -> [[Asker]] {
        let called = Asker.allCases.filter { asker in !(row.streams && (200..<300).contains(row.expected[asker]!)) }
        let allowed = called.filter { (200..<300).contains(row.expected[$0]!) }
        let refused = called.filter { !allowed.contains($0) }
        if row.read { return called.isEmpty ? [] : [refused + allowed] }
        return [refused + allowed.prefix(1)] + allowed.dropFirst().map { [$0] }
    }

    @Test(arguments: matrix)
    func eachAskerGetsTheExpectedStatus(_ row: MatrixRow) async throws {
        for group in Self.worlds(row) where !group.isEmpty {
            try await Harness.run(feedFetcher: try FixtureFeeds(), sessionLifetime: 7 * 86_400) { app in
                let world = try await World.make(app, stories: row.stories)
                let cell = row.request(world)
                for asker in group {
                    let expected = row.expected[asker]!
                    let token = world.tokens[asker == .owner ? row.owner : asker]
                    let reply: Reply
                    if let bytes = cell.bytes {
                        reply = try await app.sendBytes(cell.method, cell.path, bytes: bytes, token: token)
                    } else {
                        reply = try await app.send(cell.method, cell.path, json: cell.json, token: token)
                    }
                    #expect(
                        reply.status.code == expected,
                        "\(row.operation) as \(asker.rawValue): \(reply.status.code) \(reply.text.prefix(300))")
                    if reply.status.code >= 400 {
                        #expect(reply.headers[.contentType] == "application/problem+json")
                    }
                }
            }
        }
    }
}
