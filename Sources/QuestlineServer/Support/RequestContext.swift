import HTTPTypes
import Hummingbird
import NIOCore
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

extension AppRequestContext {
    /// The signed-in member of a web page, or a redirect to the login page that comes back to `next`.
    func requireWebMember(next: String) throws -> MemberRecord {
        guard let member = identity.member else { throw Redirect(to: "/login?next=\(next)") }
        return member
    }
}

/// The per-request context of every route.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Who asks, in which language, under which claim (`RequestScope`).
    var scope = RequestScope()
    public var identity: Identity {
        get { scope.identity }
        set { scope.identity = newValue }
    }
    public var requestID: String = ""
    /// What the request's log line says of it beyond the request itself (`EnvelopeMiddleware`).
    var logNote: RequestLogNote?
    /// Where this browser's form token comes from (`FormTokenMiddleware`), nil before it.
    var formTokens: FormTokenSource?
    /// The language of the answer (`LanguageChoice`), English until decided.
    var language: Language {
        get { scope.language }
        set { scope.language = newValue }
    }
    /// The language the address asked for (`?uselang=`), if it did.
    var askedLanguage: Language?
    /// Renders messages in the answer's language.
    var localizer: Localizer { Localizer(language) }
    /// The address the page answered keeps in the history, when not the one asked (`PageAddress`).
    var pageAddress: PageAddress?
    /// The page to come back to after choosing a language (`LanguageMenu.next`), set with the
    /// language (`AuthMiddleware`).
    var pagePath = "/"
    /// The token this browser's forms carry in this session, made when first read.
    public var formToken: String { formTokens?.token ?? "" }
    /// The connection's peer (a trusted proxy may name another client: `ClientAddressRule`).
    public let remoteAddress: SocketAddress?
    /// Large enough for a photo upload; `BodyLimitMiddleware` sets the real limit per route.
    public var maxUploadSize: Int { 6 << 20 }

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
