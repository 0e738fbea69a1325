import Foundation
import OpenAPIRuntime
import QuestlineAPI
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// The JSON API, generated from openapi.yaml: each handler decodes (done by the generated
/// code), asks the use case, and encodes. Errors are thrown and rendered as problem+json by
/// `ErrorMiddleware`; the caller's identity and language come from `RequestScope.current`.
///
/// A class: the generated routes call the handlers on this value for every request, and a copy
/// of ten features' values would retain each of their parts.
final class APIImplementation: APIProtocol {
    let accounts: AccountsFeature
    let games: GameFeature
    let reading: ReadingFeature
    let activity: ActivityFeature
    let family: FamilyFeatures
    let stories: StoriesFeature
    let cheers: CheersFeature
    let webhooks: WebhooksFeature
    let notifications: NotificationsFeature
    let leagues: LeaguesFeature

    init(
        accounts: AccountsFeature, games: GameFeature, reading: ReadingFeature, activity: ActivityFeature,
        family: FamilyFeatures, stories: StoriesFeature, cheers: CheersFeature, webhooks: WebhooksFeature,
        notifications: NotificationsFeature, leagues: LeaguesFeature
    ) {
        self.accounts = accounts
        self.games = games
        self.reading = reading
        self.activity = activity
        self.family = family
        self.stories = stories
        self.cheers = cheers
        self.webhooks = webhooks
        self.notifications = notifications
        self.leagues = leagues
    }

    /// Who asks (`RequestScope`).
    var identity: Identity { RequestScope.current.identity }
    /// What the request's writes act in (`RequestScope.write`).
    var writeScope: WriteScope { RequestScope.current.write }

    /// The one refusal of a body that is not the JSON the operation takes. (The generator makes
    /// each request body an enum with a `.json` case; a handler unwraps it with `guard case`.)
    static let jsonRequired = DomainError.invalid(field: "body", Message("input.error.sendJSON"))

}
