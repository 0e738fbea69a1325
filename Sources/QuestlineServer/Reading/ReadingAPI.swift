import Foundation
import OpenAPIRuntime
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n
import QuestlineStore

/// The reading challenge over the API.
extension APIImplementation {
    /// The reader: the signed-in member, else the device named by `X-Device-Id`.
    func reader(deviceId: String?, timeZone: String?) throws -> ReaderIdentity {
        // a bad token is a 401, not an anonymous device
        if identity.member == nil, identity.failure != nil { _ = try identity.requireMember() }
        return try ReaderIdentity.resolve(
            member: identity.member, device: deviceId, timeZone: timeZone, deviceField: "X-Device-Id",
            zoneField: "X-Time-Zone")
    }

    private func input(_ read: Components.Schemas.ReadInput) -> ReadInput {
        ReadInput(
            eventId: read.eventId, articleId: read.articleId, title: read.title, language: read.language, at: read.at,
            timeZone: read.timeZone, thumbnailUrl: read.thumbnailUrl)
    }

    func recordRead(_ input: Operations.recordRead.Input) async throws -> Operations.recordRead.Output {
        let reader = try reader(deviceId: input.headers.X_hyphen_Device_hyphen_Id, timeZone: nil)
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let read = try reading.validate([self.input(body)], readerZone: reader.member.map { _ in reader.timeZone }) {
            _ in ""
        }[0]
        let recorded = try await reading.record([read], for: reader, scope: writeScope)
        return .ok(
            .init(
                body: .json(
                    .init(eventId: read.eventID, localDay: read.localDay.iso, recorded: recorded.contains(read.eventID))
                )))
    }

    func recordReads(_ input: Operations.recordReads.Input) async throws -> Operations.recordReads.Output {
        let reader = try reader(deviceId: input.headers.X_hyphen_Device_hyphen_Id, timeZone: nil)
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        let most = 500
        guard body.reads.count <= most else {
            throw DomainError.invalid(field: "reads", Message("reading.error.tooManyReads", ["count": .number(most)]))
        }
        let reads = try reading.validate(
            body.reads.map(self.input), readerZone: reader.member.map { _ in reader.timeZone }
        ) { "reads[\($0)]." }
        let recorded = try await reading.record(reads, for: reader, scope: writeScope)
        return .ok(
            .init(
                body: .json(
                    .init(
                        recorded: recorded.count, duplicates: reads.count - recorded.count,
                        results: reads.map {
                            .init(
                                eventId: $0.eventID, localDay: $0.localDay.iso, recorded: recorded.contains($0.eventID))
                        }))))
    }

    func getReadingWidget(_ input: Operations.getReadingWidget.Input) async throws -> Operations.getReadingWidget.Output
    {
        let reader = try reader(
            deviceId: input.headers.X_hyphen_Device_hyphen_Id, timeZone: input.headers.X_hyphen_Time_hyphen_Zone)
        guard let model = try await reading.widget(for: reader, impression: true) else {
            throw DomainError.notFound(Message("reading.error.noChallenge"))
        }
        return .ok(.init(body: .json(.init(model))))
    }

    func getReadingWidgetBasis(_ input: Operations.getReadingWidgetBasis.Input) async throws
        -> Operations.getReadingWidgetBasis.Output
    {
        let reader = try reader(
            deviceId: input.headers.X_hyphen_Device_hyphen_Id, timeZone: input.headers.X_hyphen_Time_hyphen_Zone)
        guard let (campaign, status, today) = try await reading.widgetBasis(for: reader) else {
            throw DomainError.notFound(Message("reading.error.noChallenge"))
        }
        return .ok(
            .init(
                body: .json(
                    .init(
                        campaign: .init(campaign), timeZone: reader.timeZone.identifier,
                        language: RequestLanguage.current.code, today: today.iso,
                        loggedIn: status.loggedIn, joinDay: status.joinDay?.iso, completedOn: status.completedOn?.iso,
                        claimed: status.claimed, readDays: status.readDays.sorted().map(\.iso),
                        repairDays: status.repairDays.sorted().map(\.iso),
                        streak: .init(status.allowances, today: today)))))
    }

    func getStreakSettings(_ input: Operations.getStreakSettings.Input) async throws
        -> Operations.getStreakSettings.Output
    {
        return .ok(.init(body: .json(.init(try await reading.streakAllowances(try identity.requireMember())))))
    }

    func setRestDays(_ input: Operations.setRestDays.Input) async throws -> Operations.setRestDays.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        return .ok(
            .init(body: .json(.init(try await reading.setRestDays(me, weekdays: body.weekdays, scope: writeScope)))))
    }

    func pauseStreak(_ input: Operations.pauseStreak.Input) async throws -> Operations.pauseStreak.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        return .ok(
            .init(
                body: .json(
                    .init(try await reading.pauseStreak(me, start: body.start, end: body.end, scope: writeScope)))))
    }

    func endStreakPause(_ input: Operations.endStreakPause.Input) async throws -> Operations.endStreakPause.Output {
        return .ok(
            .init(body: .json(.init(try await reading.endStreakPause(try identity.requireMember(), scope: writeScope))))
        )
    }

    func joinChallenge(_ input: Operations.joinChallenge.Input) async throws -> Operations.joinChallenge.Output {
        let reader = try reader(
            deviceId: input.headers.X_hyphen_Device_hyphen_Id, timeZone: input.headers.X_hyphen_Time_hyphen_Zone)
        guard let enrollment = try await reading.join(reader, scope: writeScope) else {
            return .accepted(
                .init(
                    body: .json(
                        .init(pending: true, message: RequestLanguage.localizer("reading.join.pending"))
                    )))
        }
        return .ok(.init(body: .json(.init(enrollment))))
    }

    func claimPrize(_ input: Operations.claimPrize.Input) async throws -> Operations.claimPrize.Output {
        let me = try identity.requireMember()
        return .ok(.init(body: .json(.init(claimedAt: try await reading.claim(me, scope: writeScope)))))
    }

    func getShareCard(_ input: Operations.getShareCard.Input) async throws -> Operations.getShareCard.Output {
        let me = try identity.requireMember()
        let reader = ReaderIdentity(me)
        guard let model = try await reading.widget(for: reader, impression: false) else {
            throw DomainError.notFound(Message("reading.error.noChallenge"))
        }
        try await reading.track(
            .share, subject: ReadOwner.member(me.id).key, campaign: model.campaignId, ["state": model.state.rawValue])
        return .ok(.init(body: .image_svg_plus_xml(HTTPBody(ShareCard.svg(model, name: me.displayName)))))
    }

    func searchArticles(_ input: Operations.searchArticles.Input) async throws -> Operations.searchArticles.Output {
        let reader = try reader(deviceId: input.headers.X_hyphen_Device_hyphen_Id, timeZone: nil)
        let (articles, source) = try await reading.search(
            reader, query: input.query.q, language: try WikiLanguage.check(input.query.language))
        return .ok(
            .init(
                body: .json(
                    .init(
                        articles: articles.map(Components.Schemas.Article.init), fromHistory: source == .history,
                        source: .init(rawValue: source.rawValue) ?? .pack))))
    }

    func randomArticle(_ input: Operations.randomArticle.Input) async throws -> Operations.randomArticle.Output {
        _ = try reader(deviceId: input.headers.X_hyphen_Device_hyphen_Id, timeZone: nil)
        guard let article = await reading.random(language: try WikiLanguage.check(input.query.language)) else {
            throw DomainError.notFound(Message("reading.error.noArticles"))
        }
        return .ok(.init(body: .json(.init(article))))
    }

    func getArticleSummary(_ input: Operations.getArticleSummary.Input) async throws
        -> Operations.getArticleSummary.Output
    {
        let title = try WikiLanguage.title(input.query.title)
        guard let summary = await reading.summary(title, language: try WikiLanguage.check(input.query.language)) else {
            throw DomainError.notFound(Message("reading.error.noSuchArticle", ["title": .text(title)]))
        }
        return .ok(.init(body: .json(.init(summary))))
    }

    func trackReadingEvent(_ input: Operations.trackReadingEvent.Input) async throws
        -> Operations.trackReadingEvent.Output
    {
        let reader = try reader(
            deviceId: input.headers.X_hyphen_Device_hyphen_Id, timeZone: input.headers.X_hyphen_Time_hyphen_Zone)
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        guard let subject = reader.subject else {
            throw DomainError.unauthenticated(Message("reading.error.noReader"))
        }
        let properties = body.properties?.additionalProperties ?? [:]
        let most = 10
        guard properties.count <= most else {
            throw DomainError.invalid(
                field: "properties", Message("reading.error.tooManyProperties", ["count": .number(most)]))
        }
        let event: ReadingFeature.Event =
            switch body.name {
            case .reading_cta_tap: .ctaTap
            case .reading_share: .share
            }
        let campaign = try await reading.campaign(for: reading.clock.today(in: reader.timeZone.timeZone))
        try await reading.track(event, subject: subject, campaign: campaign?.id, properties)
        return .noContent(.init())
    }

    func listCampaigns(_ input: Operations.listCampaigns.Input) async throws -> Operations.listCampaigns.Output {
        .ok(.init(body: .json(.init(campaigns: try await reading.campaigns().map(Components.Schemas.Campaign.init)))))
    }

    func listBadges(_ input: Operations.listBadges.Input) async throws -> Operations.listBadges.Output {
        let me = try identity.requireMember()
        return .ok(
            .init(
                body: .json(
                    .init(
                        badges: try await reading.badges(me).map {
                            .init(
                                id: $0.id, title: RequestLanguage.localizer(Message(stored: $0.title)),
                                awardedAt: $0.awardedAt)
                        }))))
    }

    func putCampaign(_ input: Operations.putCampaign.Input) async throws -> Operations.putCampaign.Output {
        let me = try identity.requireMember()
        guard case .json(let body) = input.body else { throw APIImplementation.jsonRequired }
        guard body.id == input.path.campaignId else {
            throw DomainError.invalid(field: "id", Message("reading.error.idMismatch"))
        }
        let campaign = try Campaign(body)
        try await reading.saveCampaign(campaign, as: me, scope: writeScope)
        return .ok(.init(body: .json(.init(campaign))))
    }

    func getReadingFunnel(_ input: Operations.getReadingFunnel.Input) async throws -> Operations.getReadingFunnel.Output
    {
        let steps = try await reading.funnel(campaign: input.query.campaign, as: try identity.requireMember())
        return .ok(
            .init(
                body: .json(
                    .init(
                        campaignId: input.query.campaign,
                        steps: steps.map {
                            .init(name: RequestLanguage.localizer($0.name), event: $0.event, members: $0.members)
                        }))))
    }
}

extension Components.Schemas.Widget {
    /// The widget with its words in `l`'s language (the request's).
    init(_ model: WidgetModel, localizer l: Localizer = RequestLanguage.localizer) {
        self.init(
            campaignId: model.campaignId, state: .init(rawValue: model.state.rawValue)!, streak: model.streak,
            goalDays: model.goalDays,
            freezesLeft: model.freezesLeft, readToday: model.readToday,
            copy: .init(title: l(model.copy.title), body: l(model.copy.body)),
            illustration: model.illustration,
            color: .init(
                family: model.color.family, background: model.color.background, foreground: model.color.foreground),
            ctas: model.ctas.map {
                .init(kind: .init(rawValue: $0.kind.rawValue)!, label: l($0.label), target: $0.target)
            },
            variant: model.variant, today: model.today.iso, completedOn: model.completedOn?.iso,
            perfect: model.perfect, goalInReach: model.goalInReach, reachableStreak: model.reachableStreak)
    }
}

extension Components.Schemas.Enrollment {
    init(_ enrollment: Enrollment) {
        self.init(
            campaignId: enrollment.campaignID, joinDay: enrollment.joinDay.iso,
            completedOn: enrollment.completedOn?.iso,
            claimedAt: enrollment.claimedAt)
    }
}

extension Components.Schemas.Article {
    init(_ article: WikiSummary) {
        self.init(
            articleId: article.key, title: article.title, language: article.language,
            description: article.description, extract: article.extract, thumbnailUrl: article.thumbnail?.source,
            url: article.pageURL)
    }
}

extension Components.Schemas.StreakSettings {
    init(_ settings: ReadingFeature.StreakSettings) {
        self.init(settings.allowances, today: settings.today, earliestChange: settings.earliestChange)
    }
}
