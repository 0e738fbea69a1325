import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import QuestlineCore
import QuestlineFeatures
import QuestlineL10n

/// The web forms' CSRF defence: every state-changing form (login and sign-up included) carries
/// a token (`_csrf`) bound to the browser and to its session, checked here before any handler.
///
/// The browser holds a random id in the `ql_csrf` cookie (HttpOnly, SameSite=Lax: another site's
/// form post does not carry it), set on the first page it gets. A form's token is an HMAC, under
/// a key every instance shares, of that id and the session's token hash (none before signing
/// in): a token from one browser, or from before a sign-in or sign-out, does not pass. A missing
/// or `null` `Origin` no longer lets a post through on its own (a sandboxed frame sends `null`).
struct FormTokenMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let key: SymmetricKey
    var secure = false

    static let cookieName = "ql_csrf"
    static let field = "_csrf"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        let cookie = request.cookies[Self.cookieName]?.value
        let held = cookie.flatMap { value in Self.wellFormed(value) ? value : nil }
        let session = context.identity.tokenHash
        // Made when first read (a page's layout, the check below): an API call, a probe or a
        // file costs no random id and no HMAC.
        let source = FormTokenSource(held: held) { browser in token(browser: browser, session: session) }
        context.formTokens = source
        context.pageAddress = PageAddress.of(request)
        var request = request
        if RoutePolicy.of(request, context).isForm {
            let body = try await request.collectWholeBody(upTo: Form.maxBytes)
            let sent = Form.fields(in: String(buffer: body))[Self.field] ?? ""
            guard held != nil, Self.same(sent, context.formToken) else { throw Self.expired }
        }
        var response = try await next(request, context)
        if let browser = source.minted, response.headers[.contentType]?.hasPrefix("text/html") == true {
            response.setCookie(
                Cookie(
                    name: Self.cookieName, value: browser, maxAge: 400 * 86_400, path: "/", secure: secure,
                    httpOnly: true, sameSite: .lax))
        }
        return response
    }

    /// The token for forms that this browser sends in this session.
    func token(browser: String, session: String?) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array("questline.form.v1|\(browser)|\(session ?? "")".utf8), using: key)
        return Data(mac).base64URL
    }

    static let expired = Problem(
        status: .forbidden, type: "form-expired", title: Message("problem.title.formExpired"),
        detail: Message("problem.detail.formExpired"), field: field)

    static func newBrowserID() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64URL }
    }

    /// 43 characters of base64url: what `newBrowserID` makes.
    static func wellFormed(_ value: String) -> Bool {
        value.utf8.count == 43
            && value.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x2D || $0 == 0x5F
            }
    }

    /// Compared in constant time.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// A browser's form token, made on first use: the browser's id from its cookie, or a new one
/// (`minted`, which the response then sets), and the HMAC of it with the session.
final class FormTokenSource: @unchecked Sendable {
    private let lock = NSLock()
    private let held: String?
    private let make: @Sendable (String) -> String
    private var made: (browser: String, token: String)?

    init(held: String?, make: @escaping @Sendable (String) -> String) {
        self.held = held
        self.make = make
    }

    var token: String {
        lock.withLock {
            if let made { return made.token }
            let browser = held ?? FormTokenMiddleware.newBrowserID()
            let token = make(browser)
            made = (browser, token)
            return token
        }
    }

    /// The new browser id made for this response, if a token was asked for without a cookie.
    var minted: String? { lock.withLock { held == nil ? made?.browser : nil } }
}
