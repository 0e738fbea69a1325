import Foundation
import Hummingbird
import QuestlineCore
import QuestlineL10n

// What every page shares: the form body, a form's errors by field, the redirect a page throws,
// and the choices forms offer (hours, time zones). One place, so that no page spells them again.

/// Sends the browser elsewhere (thrown where a page needs a signed-in member).
struct Redirect: Error {
    let location: String
    init(to location: String) { self.location = location }
}

/// A URL-encoded form body. Missing fields read as empty strings.
struct Form {
    private let fields: [String: String]
    /// Every value, in order, for fields sent more than once (checkboxes).
    private let pairs: [(String, String)]

    /// The largest form body read.
    static let maxBytes = 64 * 1024

    init(_ request: Request) async throws {
        var request = request
        let buffer = try await request.collectWholeBody(upTo: Self.maxBytes)
        let pairs = Self.pairs(in: String(buffer: buffer))
        // The one text rule (`TextRule`), as for the API: no control characters.
        let issues = pairs.compactMap { TextRule.issue($0.1, field: $0.0) }
        if !issues.isEmpty { throw DomainError.invalid(issues) }
        self.fields = Dictionary(pairs, uniquingKeysWith: { first, _ in first })
        self.pairs = pairs
    }

    /// The fields of a URL-encoded body, in order (a field sent twice appears twice).
    static func pairs(in text: String) -> [(String, String)] {
        text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    /// The first value of each field.
    static func fields(in text: String) -> [String: String] {
        Dictionary(pairs(in: text), uniquingKeysWith: { first, _ in first })
    }

    /// All values of a field sent several times, in order.
    func values(_ name: String) -> [String] { pairs.filter { $0.0 == name }.map(\.1) }

    subscript(_ name: String) -> String { fields[name] ?? "" }
}

/// A refusal's messages by field for the templates (`errors.email`), with `errors.form` for a
/// refusal of the whole form.
enum FieldErrors {
    /// The refusal's messages by field, in the request's language.
    static func of(_ error: DomainError, _ localizer: Localizer = RequestLanguage.localizer) -> [String: String] {
        switch error {
        case .invalid(let issues):
            return Dictionary(issues.map { ($0.field, localizer($0.message)) }, uniquingKeysWith: { first, _ in first })
        case .conflict(let field, let message), .forbidden(let message, let field):
            return [field ?? "form": localizer(message)]
        case .unauthenticated(let message), .notFound(let message), .unavailable(let message),
            .tooManyRequests(_, let message):
            return ["form": localizer(message)]
        }
    }

    /// A form's errors under names of its own (`minutes` → `useMinutes`), for a page with two
    /// forms whose fields share names.
    static func prefixed(_ errors: [String: String], _ prefix: String) -> [String: String] {
        Dictionary(
            errors.map { (prefix + $0.key.prefix(1).uppercased() + $0.key.dropFirst(), $0.value) },
            uniquingKeysWith: { first, _ in first })
    }
}

/// The web's post, redirect, get: runs a form's use case and answers with its redirect; a
/// refusal the person can correct (`DomainError.isFormProblem`) shows the form again, its
/// errors under their fields. Anything else is the error page.
func submitting(
    _ action: () async throws -> Response, refused: (DomainError) async throws -> Response
) async throws -> Response {
    do { return try await action() } catch let error as DomainError where error.isFormProblem {
        return try await refused(error)
    }
}

/// An hour of a select ("07:00").
struct HourOption: Equatable {
    let value: Int
    let label: String
    let selected: Bool

    /// The 24 hours of a day, `selected` marked, each as the reader's locale writes the time.
    static func day(selecting selected: Int, localizer l: Localizer = RequestLanguage.localizer) -> [HourOption] {
        let midnight = LocalDay(dayNumber: 0).start(in: .gmt)
        return (0..<24).map {
            HourOption(
                value: $0, label: l.render(.time(midnight.addingTimeInterval(Double($0) * 3600), .utc)),
                selected: $0 == selected)
        }
    }
}

/// A weekday of a form's checkboxes (1 = Monday, the ISO numbering the core uses).
struct WeekdayOption: Equatable {
    let value: Int
    let name: String
    let checked: Bool

    /// The seven days, Monday first, with `checked` marked, named in the reader's language.
    static func week(checking checked: some Sequence<Int>, localizer l: Localizer = RequestLanguage.localizer)
        -> [WeekdayOption]
    {
        let checked = Set(checked)
        // 5 January 2026 is a Monday.
        let monday = LocalDay(year: 2026, month: 1, day: 5) ?? LocalDay(dayNumber: 0)
        return (1...7).map {
            WeekdayOption(
                value: $0, name: l.format(monday.adding(days: $0 - 1), .weekdayShort), checked: checked.contains($0))
        }
    }
}

/// IANA names offered by the time-zone fields.
enum TimeZoneNames {
    static let all: [String] = (TimeZone.knownTimeZoneIdentifiers + ["UTC"]).filter { TimeZoneID($0) != nil }.sorted()
}

/// The address a page keeps in the browser's history, when it is not the one it was asked
/// with (`data-address` on the page; `app.js` replaces the history entry with it):
///
/// - a refused form (a post answered with the form again and its errors): the form's own page,
///   so that Back and reload ask for that page, never "Confirm Form Resubmission";
/// - a page that says a change once (`?saved=1`): its address without that parameter, so that a
///   reload does not say it again.
enum PageAddress: Equatable {
    /// A page got: its address without one-time parameters.
    case got(String)
    /// A form posted from this page of the site (its `Referer`).
    case postedFrom(String)

    /// Query parameters that announce a change once.
    static let oneTime: Set<String> = [
        "saved", "created", "deleted", "removed", "rest", "paused", "ended", "reported", "asked", "answered", "zone",
        "rules", "joined", "claimed", "added", "adjusted",
    ]

    /// What to keep for `request`: nil when the address it was asked with is right as it is.
    static func of(_ request: Request) -> PageAddress? {
        if request.method == .get {
            let query = request.uri.query ?? ""
            let pairs = query.split(separator: "&")
            let kept = pairs.filter { !oneTime.contains(String($0.split(separator: "=").first ?? "")) }
            guard kept.count != pairs.count else { return nil }
            return .got(request.uri.path + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&")))
        }
        guard request.method == .post, let referer = request.headers[.referer], let url = URL(string: referer),
            url.host == request.head.authority.flatMap({ URL(string: "http://\($0)")?.host }) || url.host == nil,
            url.path.hasPrefix("/"), !url.path.hasPrefix("//")
        else { return nil }
        let query = (url.query ?? "").split(separator: "&").filter {
            !oneTime.contains(String($0.split(separator: "=").first ?? ""))
        }
        return .postedFrom(url.path + (query.isEmpty ? "" : "?" + query.joined(separator: "&")))
    }

    /// The address for a page answered with `status`: a got page's always, a posted form's when
    /// it was refused (a success redirects).
    func address(status: HTTPResponse.Status) -> String? {
        switch self {
        case .got(let address): address
        case .postedFrom(let page): status.code >= 400 ? page : nil
        }
    }
}
