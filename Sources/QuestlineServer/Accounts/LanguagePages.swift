import Foundation
import HTTPTypes
import Hummingbird
import QuestlineCore
import QuestlineL10n

/// The visitor's language menu (in the layout, for those not signed in): `GET /language?set=de&next=/reading`
/// keeps the choice in the `ql_lang` cookie for a year (`LanguageChoice`, after `?uselang=` and
/// the member's own language) and goes back to the page. A member chooses on the profile.
enum LanguageMenu {
    /// How long the choice is kept.
    static let cookieLifetime = 365 * 86_400

    /// The menu's options: each shipped language in its own name, the page's selected.
    static func options(current: Language) -> [[String: Any]] {
        Language.shipped.map { ["code": $0.code, "name": $0.nativeName, "current": $0 == current] }
    }

    /// Where the menu comes back to from `request`'s page: its address (a form refused on a
    /// post, the page it was sent from), without one-time parameters (`PageAddress`) and without
    /// `uselang`, which would outrank the choice.
    static func next(_ request: Request) -> String {
        let address: String
        switch PageAddress.of(request) {
        case .got(let kept): address = kept
        case .postedFrom(let page): address = page
        case nil:
            guard request.method == .get else { return "/" }
            address = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
        }
        return local(withoutLanguage(address))
    }

    /// `address` without its `uselang` parameter.
    static func withoutLanguage(_ address: String) -> String {
        guard let mark = address.firstIndex(of: "?") else { return address }
        let kept = address[address.index(after: mark)...].split(separator: "&").filter {
            $0.split(separator: "=", maxSplits: 1).first.map(String.init) != LanguageChoice.query
        }
        return String(address[..<mark]) + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
    }

    /// A path of this site, else `/`: never `//host`, a scheme or a backslash (an open redirect).
    static func local(_ raw: String) -> String {
        guard raw.hasPrefix("/"), !raw.hasPrefix("//"), !raw.contains("\\"), raw.count <= 1_000,
            !raw.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { return "/" }
        return raw
    }
}

extension AccountsPages {
    /// `GET /language?set=<code>&next=<path>`: keeps a language Questline speaks (an unknown code
    /// changes nothing) and goes back to `next`, a path of this site.
    func chooseLanguage(_ request: Request, _ context: AppRequestContext) -> Response {
        let query = request.uri.queryParameters
        var response = Response.redirect(to: LanguageMenu.local(query["next"].map(String.init) ?? "/"), type: .normal)
        if let code = query["set"].map(String.init), let language = Language(code) {
            response.setCookie(
                Cookie(
                    name: LanguageChoice.cookieName, value: language.code, maxAge: LanguageMenu.cookieLifetime,
                    path: "/", secure: secureCookies, httpOnly: true, sameSite: .lax))
        }
        return response
    }
}
