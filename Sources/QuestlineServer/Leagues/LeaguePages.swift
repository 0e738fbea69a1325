import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures
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

    init(_ view: LeaguesFeature.View, now: Date, notice: String?, errors: [String: String]) {
        joined = view.joined
        tier = view.tier.name
        closes = Wording.at(view.closesAt, now: now, in: view.me.zone)
        nextWeekNote = view.divisionFromNextWeek
        drawNote = view.divisionDrawAt.map { Wording.at($0, now: now, in: view.me.zone) }
        boards = view.boards.map { board in
            Board(
                title: board.title,
                note: board.kind == .division
                    ? "The top fifth moves up a tier, the bottom fifth down." : "No tiers here: just for fun.",
                rows: board.rows.map { row in
                    Row(
                        rank: row.rank, name: row.name, points: Wording.count(row.points, "point"), me: row.isMe,
                        movement: row.movement.rawValue,
                        movementLabel: row.movement == .up
                            ? "↑ moving up" : row.movement == .down ? "↓ moving down" : nil)
                }, empty: board.rows.isEmpty)
        }
        last =
            view.last.map { last in
                last.results.map { result in
                    let board = result.board == "division" ? "your division" : "your household"
                    let move =
                        result.movement == .up
                        ? ", up to \(result.tier?.name ?? "")"
                        : result.movement == .down ? ", down to \(result.tier?.name ?? "")" : ""
                    return
                        "Week of \(Wording.shortDay(last.week)): #\(result.rank) in \(board) with \(Wording.count(result.points, "point"))\(move)."
                }
            } ?? []
        hasLast = !last.isEmpty
        groups = view.friendGroups.map { group in
            Group(
                id: group.id, name: group.name, code: view.managesGroups ? FriendCode.shown(group.code) : nil,
                households: Wording.list(group.households.map { view.householdNames[$0] ?? "A household" }))
        }
        managesGroups = view.managesGroups
        children = view.children.map { Child(id: $0.child.id.rawValue, name: $0.child.displayName, joined: $0.joined) }
        hasChildren = !children.isEmpty
        isChild = view.me.role == .child
        self.notice = notice
        self.errors = errors
    }
}

struct LeaguePages {
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
            "league", title: "Weekly league",
            model: LeaguePage(view, now: leagues.clock.now(), notice: notice, errors: errors), context: context,
            path: "/reading", status: status, back: "/reading")
    }

    /// Joins or leaves: the member, or (`member`, a guardian for a child of theirs) another.
    private func setJoined(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/league")
        let form = try await Form(request)
        let joined = form["joined"] == "on"
        guard !form["member"].isEmpty, form["member"] != me.id.rawValue else {
            try await leagues.setJoined(joined, as: me)
            return flash.redirect(
                to: "/league", .notice,
                joined ? "You are in: reads and daily games score points." : "You left the league.")
        }
        let child = try MemberID.parse(form["member"], field: "member")
        try await leagues.setJoined(joined, member: child, as: me)
        let name = try await leagues.league(as: me).children.first { $0.child.id == child }?.child.displayName ?? ""
        return flash.redirect(
            to: "/league", .notice,
            joined ? "\(name) plays with your household and friend groups." : "\(name) left the league.")
    }

    private func createGroup(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/league")
        let form = try await Form(request)
        return try await submitting {
            let group = try await leagues.createFriendGroup(name: form["name"], as: me)
            return flash.redirect(
                to: "/league", .notice,
                "\(group.name) is set: give the code \(FriendCode.shown(group.code)) to the other household's guardian."
            )
        } refused: { error in
            try await page(me, context, notice: nil, errors: FieldErrors.of(error), status: .badRequest)
        }
    }

    private func joinGroup(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/league")
        let form = try await Form(request)
        return try await submitting {
            let group = try await leagues.joinFriendGroup(code: form["code"], as: me)
            return flash.redirect(to: "/league", .notice, "Your household joined \(group.name).")
        } refused: { error in
            try await page(me, context, notice: nil, errors: FieldErrors.of(error), status: .badRequest)
        }
    }

    private func leaveGroup(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/league")
        try await leagues.leaveFriendGroup(context.parameters.get("group") ?? "", as: me)
        return flash.redirect(to: "/league", .notice, "Your household left the group.")
    }
}
