import Foundation
import HTTPTypes
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// Forgiving streaks in the web app (`/reading/streak`): rest days, a pause, ending it. A
/// refused form shows the page again with its error under the field it names.
struct StreakSettingsPage: Equatable {
    struct Weekday: Equatable {
        let value: Int
        let name: String
        let checked: Bool
    }

    struct PauseRow: Equatable {
        let text: String
    }

    let weekdays: [Weekday]
    /// "Saturday and Sunday", or nil for none.
    let restInForce: String?
    /// The change waiting for next Monday, in words.
    let restWaiting: String?
    let pauses: [PauseRow]
    let hasPauses: Bool
    /// What rest days, pauses and repairs are, with the rules' numbers and days.
    let restExplain: String
    let pauseExplain: String
    let repairExplain: String
    /// The pause in force or next, and whether it has begun (its button ends it, or cancels it).
    let currentPause: String?
    let pauseStarted: Bool
    let pausedDaysLeft: Int
    /// The first day a pause may cover, in words.
    let earliestText: String
    /// The Monday a rest-day change made now applies from, in words.
    let restChangeFrom: String
    let values: [String: String]
    let errors: [String: String]
    let notice: String?

    init(_ settings: ReadingFeature.StreakSettings, form: FormState, notice: String?, localizer l: Localizer) {
        let allowances = settings.allowances
        let today = settings.today
        let earliest = settings.earliestChange
        let inForce = allowances.restWeekdays(on: today)
        let waiting = allowances.restDays.last { $0.from > today }
        let shown =
            form.values["restDays"].map { $0.split(separator: ",").compactMap { Int($0) } }
            ?? (waiting?.weekdays ?? inForce)
        weekdays = (1...7).map {
            Weekday(value: $0, name: l.format(Self.weekday($0), .weekdayName), checked: shown.contains($0))
        }
        restInForce = inForce.isEmpty ? nil : l.render(Self.list(inForce))
        restWaiting = waiting.map {
            $0.weekdays.isEmpty
                ? l("reading.streak.rest.waitingNone", ["day": .day($0.from, .long)])
                : l("reading.streak.rest.waiting", ["day": .day($0.from, .long), "days": Self.list($0.weekdays)])
        }
        pauses = allowances.pauses.filter { $0.end >= today.adding(days: -365) }.map {
            PauseRow(
                text: l(
                    "reading.streak.pause.row",
                    Self.span($0).merging(["length": .message(.count($0.days, .days))]) { $1 }))
        }
        hasPauses = !pauses.isEmpty
        let current = allowances.currentOrNextPause(today: today)
        currentPause = current.map { l("reading.streak.pause.span", Self.span($0)) }
        pauseStarted = current.map { $0.start <= today } ?? false
        pausedDaysLeft = max(StreakAllowances.maxPauseDaysPerYear - allowances.pausedDays(inYear: today.year), 0)
        var values = form.values
        values["start"] = values["start"] ?? earliest.iso
        values["end"] = values["end"] ?? earliest.adding(days: 6).iso
        values["min"] = earliest.iso
        earliestText = l.format(earliest, .long)
        restChangeFrom = l.format(StreakAllowances.restDaysFrom(earliestChange: earliest), .weekday)
        restExplain = l(
            "reading.streak.rest.explain",
            ["count": .number(StreakAllowances.maxRestDays), "restChangeFrom": .text(restChangeFrom)])
        pauseExplain = l(
            "reading.streak.pause.explain",
            [
                "count": .number(StreakAllowances.maxPauseDaysPerYear), "left": .message(.count(pausedDaysLeft, .days)),
                "earliest": .day(earliest, .long),
            ])
        repairExplain = l(
            "reading.streak.repair.explain",
            [
                "articles": .message(.count(StreakAllowances.repairReads, .articles)),
                "window": .message(.count(StreakAllowances.repairEveryDays, .days)),
            ])
        self.values = values
        errors = form.errors
        self.notice = notice
    }

    /// A day of the weekday `number` (1 = Monday … 7 = Sunday), to name it in a language.
    static func weekday(_ number: Int) -> LocalDay { StreakCalendarView.monday.adding(days: number - 1) }

    /// Weekdays as a list in words: "Saturday and Sunday".
    static func list(_ weekdays: [Int]) -> Message.Argument {
        .list(weekdays.sorted().map { .day(weekday($0), .weekdayName) })
    }

    /// A pause's first and last day, as arguments.
    static func span(_ pause: StreakAllowances.Pause) -> [String: Message.Argument] {
        ["start": .day(pause.start, .long), "end": .day(pause.end, .long)]
    }
}

extension ReadingPages {
    func registerStreakSettings(on router: Router<AppRequestContext>) {
        router.get("/reading/streak") { request, context in try await self.streakSettings(request, context) }
        router.post("/reading/streak/rest-days") { request, context in try await self.setRestDays(request, context) }
        router.post("/reading/streak/pause") { request, context in try await self.pauseStreak(request, context) }
        router.post("/reading/streak/pause/end") { request, context in try await self.endPause(request, context) }
    }

    private func streakSettings(
        _ request: Request, _ context: AppRequestContext, refused: FormState = FormState()
    ) async throws -> Response {
        let member = try context.requireWebMember(next: "/reading/streak")
        let settings = try await reading.streakAllowances(member)
        let q = request.uri.queryParameters
        // A pause to come is planned, not in force: the notice says which.
        let pause = settings.allowances.currentOrNextPause(today: settings.today)
        let l = context.localizer
        let paused = pause.map {
            $0.start > settings.today
                ? l("reading.streak.notice.planned", StreakSettingsPage.span($0))
                : l("reading.streak.notice.paused", ["end": .day($0.end, .long)])
        }
        let notice =
            q["rest"] != nil
            ? l("reading.streak.notice.restSaved")
            : q["paused"] != nil ? paused : q["ended"] != nil ? l("reading.streak.notice.ended") : nil
        let page = StreakSettingsPage(
            settings, form: refused, notice: refused.error == nil ? notice : nil, localizer: l)
        return pages.page(
            "streak-settings", title: l("reading.streak.title"), model: page, context: context, path: "/reading/streak",
            status: refused.error.map { Problem.from($0).httpStatus } ?? .ok, back: "/reading")
    }

    private func setRestDays(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/reading/streak")
        let form = try await Form(request)
        let chosen = form.values("restDay").compactMap { Int($0) }
        do {
            _ = try await reading.setRestDays(member, weekdays: chosen, scope: context.scope.write)
            return Response.redirect(to: "/reading/streak?rest=1", type: .normal)
        } catch let error as DomainError {
            return try await streakSettings(
                request, context,
                refused: FormState(values: ["restDays": chosen.map(String.init).joined(separator: ",")], error: error))
        }
    }

    private func pauseStreak(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/reading/streak")
        let form = try await Form(request)
        do {
            _ = try await reading.pauseStreak(
                member, start: form["start"], end: form["end"], scope: context.scope.write)
            return Response.redirect(to: "/reading/streak?paused=1", type: .normal)
        } catch let error as DomainError {
            return try await streakSettings(
                request, context,
                refused: FormState(values: ["start": form["start"], "end": form["end"]], error: error))
        }
    }

    private func endPause(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        let member = try context.requireWebMember(next: "/reading/streak")
        do {
            _ = try await reading.endStreakPause(member, scope: context.scope.write)
            return Response.redirect(to: "/reading/streak?ended=1", type: .normal)
        } catch let error as DomainError {
            return try await streakSettings(request, context, refused: FormState(error: error))
        }
    }
}
