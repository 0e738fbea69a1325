import Foundation
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// What the child's board and the guardian's console show of the household together
/// (`family-card.mustache`): the family streak at a glance, and the ways in.
struct FamilyCard: Equatable {
    let streak: Int
    let anyoneIn: Bool
    let todayMet: Bool
    /// "3-day family streak".
    let streakText: String
    /// "Waiting on Kid and Grace today."
    let waiting: String?

    init(_ view: QuestsFeature.FamilyStreakView, localizer l: Localizer) {
        streak = view.board.current
        anyoneIn = view.members.contains { $0.joined }
        todayMet = view.board.todayMet
        streakText = l("quests.familyStreak.days", ["count": .number(view.board.current)])
        let names = view.members.filter { view.board.waitingOn.contains($0.member.id) }.map(\.member.displayName)
        waiting =
            names.isEmpty
            ? nil : l("quests.familyStreak.waiting", ["names": .list(names.map(Message.Argument.text))])
    }
}

/// The family streak page (`family-streak.mustache`): the streak, the last 14 days, each
/// member with their day, and joining or leaving where the viewer may.
struct FamilyStreakPage: Equatable {
    struct Day: Equatable {
        let label: String
        let weekday: String
        let state: String
        let title: String
    }

    struct Member: Equatable {
        let id: String
        let name: String
        let status: String
        let met: Bool
        let joined: Bool
        /// The viewer may switch this member (themselves, or a guardian a child).
        let canChange: Bool
    }

    let card: FamilyCard
    let days: [Day]
    let members: [Member]
    let notice: String?
    let error: String?
    let live: String?

    init(_ view: QuestsFeature.FamilyStreakView, me: MemberRecord, message: Flash.Message?, localizer l: Localizer) {
        card = FamilyCard(view, localizer: l)
        days = view.board.days.map { day in
            let key: String
            switch day.state {
            case .met: key = "quests.familyStreak.day.met"
            case .missed: key = "quests.familyStreak.day.missed"
            case .none: key = "quests.familyStreak.day.none"
            case .today: key = "quests.familyStreak.day.today"
            }
            return Day(
                label: l.render(.number(day.day.day)), weekday: l.format(day.day, .weekdayShort),
                state: day.state.rawValue, title: l(key, ["day": .day(day.day, .short)]))
        }
        members = view.members.map { entry in
            let member = entry.member
            let status =
                !entry.joined
                ? l("quests.familyStreak.notIn")
                : entry.metToday
                    ? l("quests.familyStreak.done")
                    : l(member.role == .child ? "quests.familyStreak.needsLearning" : "quests.familyStreak.needsRead")
            return Member(
                id: member.id.rawValue, name: member.displayName, status: status, met: entry.joined && entry.metToday,
                joined: entry.joined, canChange: AccessPolicy.allows(me.actor, .updateMember(member.scope)))
        }
        notice = message?.kind == .notice ? message?.text : nil
        error = message?.kind == .error ? message?.text : nil
        live = liveEventsPath(me)
    }
}

extension QuestsPages {
    func registerFamilyStreak(on router: Router<AppRequestContext>) {
        router.get("/quests/family/streak") { request, context in try await self.familyStreak(request, context) }
        router.post("/quests/family/streak") { request, context in try await self.setFamilyStreak(request, context) }
    }

    /// The household the actor belongs to, for the household's shared pages.
    func sharedHousehold(of member: MemberRecord) throws -> HouseholdID {
        guard let household = member.householdID else {
            throw DomainError.notFound(Message("quests.error.noHousehold"))
        }
        return household
    }

    /// The family card and the co-op cards for the board or the console, when the member has a
    /// household (one read of the household: `QuestsFeature.together`).
    func together(for member: MemberRecord, localizer l: Localizer) async throws -> (FamilyCard?, [CoopCard]) {
        guard let household = member.householdID else { return (nil, []) }
        let together = try await family.quests.together(household, as: member)
        return (
            FamilyCard(together.streak, localizer: l),
            together.coop.map { CoopCard($0, appNames: [:], compact: true, localizer: l) }
        )
    }

    private func familyStreak(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family/streak")
        let view = try await family.quests.familyStreak(try sharedHousehold(of: me), as: me)
        return pages.page(
            "family-streak", title: context.localizer("quests.familyStreak.title"),
            model: FamilyStreakPage(view, me: me, message: flash.message(in: request), localizer: context.localizer),
            context: context,
            path: "/quests", back: me.role == .child ? "/quests" : "/quests/family")
    }

    private func setFamilyStreak(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let me = try context.requireWebMember(next: "/quests/family/streak")
        let form = try await Form(request)
        let joined = form["joined"] == "on"
        do {
            try await family.quests.setFamilyStreak(
                try sharedHousehold(of: me), member: try MemberID.parse(form["member"], field: "member"),
                joined: joined, as: me, scope: context.scope.write)
            return flash.redirect(
                to: "/quests/family/streak", .notice,
                context.localizer(joined ? "quests.notice.streakJoined" : "quests.notice.streakLeft"))
        } catch let error as DomainError where error.isFormProblem {
            return flash.redirect(to: "/quests/family/streak", refused: error)
        }
    }
}
