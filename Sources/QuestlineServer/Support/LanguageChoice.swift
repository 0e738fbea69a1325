import Foundation
import HTTPTypes
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// The language a request is answered in, decided once (`AuthMiddleware`), in this order:
///
/// 1. `?uselang=de` on any page or call, as on Wikipedia (that answer only);
/// 2. the signed-in member's language (the profile's, set for a child by a guardian);
/// 3. a visitor's choice from the language picker (the `ql_lang` cookie);
/// 4. the browser's `Accept-Language`;
/// 5. English.
///
/// A language Questline does not speak is skipped at each step.
enum LanguageChoice {
    static let cookieName = "ql_lang"
    static let query = "uselang"

    static func of(_ request: Request, member: MemberRecord?, asked: Language?) -> Language {
        if let language = asked { return language }
        if let code = member?.language, let language = Language(code) { return language }
        if let chosen = request.cookies[cookieName]?.value, let language = Language(chosen) { return language }
        return Language.best(acceptLanguage: request.headers[.acceptLanguage]) ?? .english
    }

    /// The language the address asks for (`?uselang=`).
    static func asked(_ request: Request) -> Language? {
        guard request.uri.query != nil else { return nil }
        return request.uri.queryParameters[Substring(query)].flatMap { Language(String($0)) }
    }

    /// A redirect within the site keeps the language the address asked for (to the login page,
    /// from a form to its page), as links followed from it would on Wikipedia.
    static func keep(_ asked: Language, through response: inout Response) {
        guard (300..<400).contains(response.status.code), let location = response.headers[.location],
            location.hasPrefix("/"), !location.hasPrefix("//"), !location.contains("\(query)=")
        else { return }
        let fragment = location.firstIndex(of: "#").map { String(location[$0...]) } ?? ""
        let address = String(location.dropLast(fragment.count))
        response.headers[.location] =
            address + (address.contains("?") ? "&" : "?") + "\(query)=\(asked.code)" + fragment
    }
}

/// Who asks, in which language, and under which idempotency claim: the one value a handler
/// and a page know the request by. Pages read it from their context (`context.scope`); the
/// API's handlers, which get no request context, from the task-local `RequestScope.current`
/// that the middleware sets to the same value (`AuthMiddleware`, then `IdempotencyMiddleware`
/// with the claim).
struct RequestScope: Sendable {
    var identity: Identity = .anonymous
    var language: Language = .english
    /// The request's claim on its `Idempotency-Key` (`IdempotencyMiddleware`), if it has one.
    var claim: IdempotencyClaim?

    /// What the request's writes act in: its member, checked at commit, and its claim, marked
    /// applied in the same transaction (`WriteScope`).
    var write: WriteScope { WriteScope(member: identity.member?.id, claim: claim) }

    @TaskLocal static var current = RequestScope()
}

/// The language of the request being handled (`RequestScope`).
enum RequestLanguage {
    static var current: Language { RequestScope.current.language }

    static var localizer: Localizer { Localizer(current) }
}
