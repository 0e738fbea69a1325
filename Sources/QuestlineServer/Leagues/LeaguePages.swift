import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// The weekly league page (`league.mustache`): joining, this week's boards with display names
/// and points only, last week's results, and for a guardian the household's friend groups.
struct LeaguePage: Equatable {
    struct Row: Equatable {
        let rank: Int
        let name: String
        let points: String
        let me: Bool
        let movement: String
        let movementLabel: String?
    }

    struct Board: Equatable {
        let title: String
        let note: String
        let rows: [Row]
        let empty: Bool
    }

    struct Group: Equatable {
        let id: String
        let name: String
        let code: String?
        let households: String
    }

    let joined: Bool
    let tier: String
    /// What an article read and a daily game finished are worth (`LeagueRules`).
    let articlePoints = LeagueRules.pointsPerArticle
    let gamePoints = LeagueRules.pointsPerGame
    let closes: String
    let nextWeekNote: Bool
    /// While the week's divisions are not drawn: when they are.
    let drawNote: String?
    let boards: [Board]
    let last: [String]
    let hasLast: Bool
    let groups: [Group]
    let managesGroups: Bool
    /// A guardian's children, each with a button to take them in or out.
    let children: [Child]
    let hasChildren: Bool
    let isChild: Bool

    struct Child: Equatable {
        let id: String
        let name: String
        let joined: Bool
    }
    let notice: String?
    let errors: [String: String]

    init(
        _ view: LeaguesFeature.View, now: Date, notice: String?, errors: [String: String], localizer l: Localizer
    ) {
        joined = view.joined
        tier = l(view.tier.title)
        closes = l(Message.at(view.closesAt, now: now, in: view.me.zoneID))
        nextWeekNote = view.divisionFromNextWeek
        drawNote = view.divisionDrawAt.map { l(Message.at($0, now: now, in: view.me.zoneID)) }
        boards = view.boards.map { board in
            Board(
                title: l(board.title),
                note: l(board.kind == .division ? "leagues.board.divisionNote" : "leagues.board.noTiersNote"),
                rows: board.rows.map { row in
                    Row(
                        rank: row.rank, name: row.name, points: l(Message.count(row.points, .points)), me: row.isMe,
                        movement: row.movement.rawValue,
                        movementLabel: row.movement == .up
                            ? l("leagues.board.movingUp") : row.movement == .down ? l("leagues.board.movingDown") : nil)
                }, empty: board.rows.isEmpty)
        }
        last =
            view.last.map { last in
                last.results.map { result in
                    let arguments: [String: Message.Argument] = [
                        "week": .day(last.week, .short), "rank": .number(result.rank),
                        "points": .message(.count(result.points, .points)),
                        "tier": .message(result.tier?.title ?? LeagueTier.bronze.title),
                    ]
                    let board = result.board == "division" ? "division" : "household"
                    let move = result.movement == .up ? "up" : result.movement == .down ? "down" : "stay"
                    return l(Message("leagues.last.\(board).\(move)", arguments))
                }
            } ?? []
        hasLast = !last.isEmpty
        groups = view.friendGroups.map { group in
            Group(
                id: group.id, name: group.name, code: view.managesGroups ? FriendCode.shown(group.code) : nil,
                households: l.render(
                    .list(
                        group.households.map {
                            view.householdNames[$0].map(Message.Argument.text)
                                ?? .message(Message("leagues.group.aHousehold"))
                        })))
        }
        managesGroups = view.managesGroups
        children = view.children.map { Child(id: $0.child.id.rawValue, name: $0.child.displayName, joined: $0.joined) }
        hasChildren = !children.isEmpty
        isChild = view.me.role == .child
        self.notice = notice
        self.errors = errors
    }
}

struct LeaguePages: FeatureModule {
    let leagues: LeaguesFeature
    let pages: PageRenderer
    let flash: Flash

    func register(on router: Router<AppRequestContext>) {
        router.get("/league") { request, context in try await self.league(request, context) }
        router.post("/league") { request, context in try await self.setJoined(request, context) }
        router.post("/league/friend-groups") { request, context in try await self.createGroup(request, context) }
        router.post("/league/friend-groups/join") { request, context in try await self.joinGroup(request, context) }
        router.post("/league/friend-groups/:group/leave") { request, context in
            try await self.leaveGroup(request, context)
        }
    }

    private func league(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/league")
        let message = flash.message(in: request)
        return try await page(
            me, context, notice: message?.kind == .notice ? message?.text : nil,
            errors: message?.kind == .error ? ["form": message!.text] : [:])
    }

    private func page(
        _ me: MemberRecord, _ context: AppRequestContext, notice: String?, errors: [String: String],
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let view = try await leagues.league(as: me)
        return pages.page(
            "league", title: context.localizer("leagues.page.title"),
            model: LeaguePage(
                view, now: leagues.clock.now(), notice: notice, errors: errors, localizer: context.localizer),
            context: context,
            path: "/reading", status: status, back: "/reading")
    }

    /// Joins or leaves: the member, or (`member`, a guardian for a child of theirs) another.
    private func setJoined(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/league")
        let form = try await Form(request)
        let joined = form["joined"] == "on"
        guard !form["member"].isEmpty, form["member"] != me.id.rawValue else {
            try await leagues.setJoined(joined, as: me, scope: context.scope.write)
            return flash.redirect(
                to: "/league", .notice,
                context.localizer(joined ? "leagues.notice.joined" : "leagues.notice.left"))
        }
        let child = try MemberID.parse(form["member"], field: "member")
        try await leagues.setJoined(joined, member: child, as: me, scope: context.scope.write)
        let name = try await leagues.league(as: me).children.first { $0.child.id == child }?.child.displayName ?? ""
        return flash.redirect(
            to: "/league", .notice,
            context.localizer(
                joined ? "leagues.notice.childJoined" : "leagues.notice.childLeft", ["name": .text(name)]))
    }

    private func createGroup(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/league")
        let form = try await Form(request)
        return try await submitting {
            let group = try await leagues.createFriendGroup(name: form["name"], as: me, scope: context.scope.write)
            return flash.redirect(
                to: "/league", .notice,
                context.localizer(
                    "leagues.notice.groupCreated",
                    ["group": .text(group.name), "code": .text(FriendCode.shown(group.code))]))
        } refused: { error in
            try await page(me, context, notice: nil, errors: FieldErrors.of(error), status: .badRequest)
        }
    }

    private func joinGroup(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/league")
        let form = try await Form(request)
        return try await submitting {
            let group = try await leagues.joinFriendGroup(code: form["code"], as: me, scope: context.scope.write)
            return flash.redirect(
                to: "/league", .notice, context.localizer("leagues.notice.groupJoined", ["group": .text(group.name)]))
        } refused: { error in
            try await page(me, context, notice: nil, errors: FieldErrors.of(error), status: .badRequest)
        }
    }

    private func leaveGroup(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/league")
        try await leagues.leaveFriendGroup(context.parameters.get("group") ?? "", as: me, scope: context.scope.write)
        return flash.redirect(to: "/league", .notice, context.localizer("leagues.notice.groupLeft"))
    }
}
