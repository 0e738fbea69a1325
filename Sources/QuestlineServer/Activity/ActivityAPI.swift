import Foundation
import OpenAPIRuntime
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// The Activity tab over the API.
extension APIImplementation {
    func listSaved(_ input: Operations.listSaved.Input) async throws -> Operations.listSaved.Output {
        let me = try identity.requireMember()
        let page = try Paging(limit: input.query.limit, offset: input.query.offset)
        let (total, articles) = try await activity.saved(me, page: page)
        return .ok(
            .init(
                body: .json(
                    .init(
                        total: total,
                        articles: articles.map {
                            .init(
                                language: $0.language, title: $0.title, lists: $0.lists, savedAt: $0.savedAt,
                                thumbnailUrl: $0.thumbnailURL)
                        }))))
    }

    func saveArticle(_ input: Operations.saveArticle.Input) async throws -> Operations.saveArticle.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let saved = try await activity.save(
            me, language: body.language, title: body.title, list: body.readingList, thumbnailURL: body.thumbnailUrl,
            scope: writeScope)
        return .ok(.init(body: .json(.init(saved: saved))))
    }

    func unsaveArticle(_ input: Operations.unsaveArticle.Input) async throws -> Operations.unsaveArticle.Output {
        let me = try identity.requireMember()
        _ = try await activity.unsave(
            me, language: input.query.language, title: input.query.title, list: input.query.readingList,
            scope: writeScope)
        return .noContent(.init())
    }

    func importSaved(_ input: Operations.importSaved.Input) async throws -> Operations.importSaved.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let items = body.items.map {
            LegacySavedItem(
                language: $0.language, title: $0.title, savedAt: $0.savedAt,
                readingListCreatedAt: $0.readingListCreatedAt,
                readingList: $0.readingList)
        }
        let report = try await activity.importBatch(
            me, importID: body.importId, total: body.total, offset: body.offset, items: items, scope: writeScope)
        return .ok(
            .init(
                body: .json(
                    .init(
                        imported: report.outcome.imported, alreadyCommitted: report.outcome.alreadyCommitted,
                        needsDate: report.needsDate.map { .init(index: $0.index, title: $0.title) },
                        progress: .init(done: report.outcome.done, total: report.outcome.total)))))
    }

    func getRecap(_ input: Operations.getRecap.Input) async throws -> Operations.getRecap.Output {
        let recap = try await activity.recap(try identity.requireMember(), period: input.query.period)
        return .ok(.init(body: .json(.init(recap, localizer: RequestLanguage.localizer))))
    }

    func getRecapPicture(_ input: Operations.getRecapPicture.Input) async throws -> Operations.getRecapPicture.Output {
        let me = try identity.requireMember()
        let recap = try await activity.recap(me, period: input.query.period)
        return .ok(
            .init(
                body: .image_svg_plus_xml(
                    HTTPBody(RecapPicture.svg(recap, name: me.displayName, localizer: RequestLanguage.localizer)))))
    }

    func getActivity(_ input: Operations.getActivity.Input) async throws -> Operations.getActivity.Output {
        let me = try identity.requireMember()
        // Without `locale`, the request's language formats the last save's time.
        let localeID = input.query.locale ?? RequestLanguage.current.locale.identifier
        guard localeID.count <= 32, localeID.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_" || $0 == "-") }),
            Locale.availableIdentifiers.contains(localeID) || input.query.locale == nil
        else { throw DomainError.invalid(field: "locale", Message("activity.error.locale")) }
        let view = try await activity.view(me, locale: Locale(identifier: localeID))
        return .ok(
            .init(
                body: .json(
                    .init(
                        saved: .init(
                            count: view.saved.count, lastSavedAt: view.saved.lastSavedAt,
                            lastSavedText: view.saved.lastSavedText,
                            thumbnails: view.saved.thumbnails),
                        articlesRead30Days: view.insights.articlesRead30, secondsRead7Days: view.insights.secondsRead7,
                        currentStreak: view.insights.currentStreak,
                        badges: view.badges.map {
                            .init(
                                id: $0.id, title: RequestLanguage.localizer(Message(stored: $0.title)),
                                awardedAt: $0.awardedAt)
                        },
                        timeline: view.insights.timeline.map {
                            .init(day: $0.day.iso, reads: $0.reads, saves: $0.saves)
                        }))))
    }

    func recordReadingTime(_ input: Operations.recordReadingTime.Input) async throws
        -> Operations.recordReadingTime.Output
    {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        guard body.intervals.count <= 500 else {
            throw DomainError.invalid(
                field: "intervals", Message("activity.error.intervalBatch", ["count": .number(500)]))
        }
        let recorded = try await activity.recordTime(
            .member(me.id), intervals: body.intervals.map { ($0.eventId, $0.start, $0.end, $0.timeZone, $0.articleId) },
            scope: writeScope)
        return .ok(.init(body: .json(.init(recorded: recorded))))
    }
}
