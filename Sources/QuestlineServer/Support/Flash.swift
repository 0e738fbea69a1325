import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import QuestlineCore
import QuestlineL10n

/// A message for the page after a redirect ("You bought Pit Crew!", or why a form was refused):
/// post, redirect, get. It travels in a short-lived cookie signed with a key every instance
/// shares (`server_secrets`), never in the address, so nobody can make a page show text of
/// their choosing by sending a link; the page that shows it clears it (`FlashMiddleware`).
struct Flash: Sendable {
    enum Kind: String, Codable, Sendable {
        case notice, error
    }

    struct Message: Codable, Sendable, Equatable {
        let kind: Kind
        let text: String
        /// The form field an error is about, shown beside it.
        var field: String? = nil
    }

    static let cookieName = "ql_flash"
    let key: SymmetricKey
    /// Mark the cookie `Secure`, as the session's (`--secure-cookies`, behind HTTPS).
    var secure = false

    /// The redirect, carrying the message.
    func redirect(to path: String, _ kind: Kind, _ text: String, field: String? = nil) -> Response {
        var response = Response.redirect(to: path, type: .normal)
        let message = Message(kind: kind, text: String(text.prefix(500)), field: field.map { String($0.prefix(64)) })
        response.headers.append(.init(name: .setCookie, value: cookie(message)))
        return response
    }

    /// A refused form, back to its page: the first problem, beside its field.
    func redirect(to path: String, refused error: DomainError) -> Response {
        let issue = FieldErrors.of(error).sorted { $0.key < $1.key }.first
        return redirect(
            to: path, .error, issue?.value ?? RequestLanguage.localizer("shell.flash.failed"), field: issue?.key)
    }

    /// The message the request carries, if its signature holds.
    func message(in request: Request) -> Message? {
        guard let value = request.cookies[Self.cookieName]?.value else { return nil }
        let parts = value.split(separator: ".")
        guard parts.count == 2, let body = Data(base64URL: String(parts[0])),
            let signature = Data(base64URL: String(parts[1])),
            HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: body, using: key)
        else { return nil }
        return try? JSONDecoder().decode(Message.self, from: body)
    }

    /// The text of the request's message when it is of `kind`.
    func text(of kind: Kind, in request: Request) -> String? {
        message(in: request).flatMap { $0.kind == kind ? $0.text : nil }
    }

    func cookie(_ message: Message) -> String {
        let body = (try? JSONEncoder().encode(message)) ?? Data()
        let signature = Data(HMAC<SHA256>.authenticationCode(for: body, using: key))
        return
            "\(Self.cookieName)=\(body.base64URL).\(signature.base64URL); Path=/; Max-Age=120; HttpOnly; SameSite=Lax"
            + (secure ? "; Secure" : "")
    }

    var clearCookie: String {
        "\(Self.cookieName)=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax" + (secure ? "; Secure" : "")
    }
}

/// Clears a flash message once a page has been answered to a request that carried it, so it
/// shows once (a redirect passes it on).
struct FlashMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let flash: Flash

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response = try await next(request, context)
        if request.method == .get, request.cookies[Flash.cookieName] != nil, !(300..<400).contains(response.status.code)
        {
            response.headers.append(.init(name: .setCookie, value: flash.clearCookie))
        }
        return response
    }
}

extension Data {
    init?(base64URL text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        self.init(base64Encoded: base64)
    }

    var base64URL: String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
