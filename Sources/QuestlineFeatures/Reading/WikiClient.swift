public import AsyncHTTPClient
public import Foundation
public import Logging
import NIOConcurrencyHelpers
public import NIOCore
import NIOHTTP1
public import QuestlineCore

/// Asks Wikipedia for articles: title search, a random article, a page summary.
public protocol WikiFetching: Sendable {
    func search(_ query: String, language: String, limit: Int) async throws -> [WikiSummary]
    func random(language: String) async throws -> WikiSummary
    /// Nil when Wikipedia has no such article (404).
    func summary(_ title: String, language: String) async throws -> WikiSummary?
    /// The first image in the article's body (its media list); nil when it has none.
    func bodyImage(_ title: String, language: String) async throws -> WikiImage?
}

/// Why Wikipedia gave no answer: the caller falls back to the cache or the pack.
public enum WikiUnavailable: Error, Equatable {
    /// Unreachable, too slow, or an answer we cannot read.
    case failed(String)
    /// 429: asked to wait until then; no request goes out before.
    case rateLimited(until: Date)
}

/// Wikipedia's APIs over AsyncHTTPClient, at `--wiki-url` (a template with `{language}`, by
/// default `https://{language}.wikipedia.org`), with exactly these paths so that a local
/// stand-in can serve them:
/// - search: `GET /w/rest.php/v1/search/title?q=Q&limit=N`
/// - random: `GET /api/rest_v1/page/random/summary`
/// - summary: `GET /api/rest_v1/page/summary/{title}`
/// - media list: `GET /api/rest_v1/page/media-list/{title}` (the game's cards, when no page of an
///   event has a lede image: seed 004 then takes an image from the body)
///
/// Every request has a timeout and the User-Agent Wikimedia's policy asks for (product and
/// contact). A 429 is honoured: nothing is asked until its `Retry-After` has passed (60 s
/// when it gives none).
public final class WikimediaClient: WikiFetching {
    public static let defaultTemplate = "https://{language}.wikipedia.org"

    let template: String
    let httpClient: HTTPClient
    let timeout: TimeAmount
    let clock: any WallClock
    let logger: Logger
    let maxBytes = 2 << 20
    private let blockedUntil = NIOLockedValueBox<Date?>(nil)

    public init(
        template: String = defaultTemplate, httpClient: HTTPClient = .shared, timeout: TimeAmount = .seconds(5),
        clock: any WallClock = SystemClock(), logger: Logger = Logger(label: "questline.wiki")
    ) {
        self.template = template.hasSuffix("/") ? String(template.dropLast()) : template
        self.httpClient = httpClient
        self.timeout = timeout
        self.clock = clock
        self.logger = logger
    }

    func base(_ language: String) -> String { template.replacingOccurrences(of: "{language}", with: language) }

    public func search(_ query: String, language: String, limit: Int) async throws -> [WikiSummary] {
        var components = URLComponents()
        components.queryItems = [URLQueryItem(name: "q", value: query), URLQueryItem(name: "limit", value: "\(limit)")]
        let query = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B") ?? ""
        guard
            let body = try await get(base(language) + "/w/rest.php/v1/search/title?" + query),
            let results = WikiSummary.decodeSearch(body, language: language)
        else { throw WikiUnavailable.failed("Wikipedia's search answered something unreadable.") }
        return results
    }

    public func random(language: String) async throws -> WikiSummary {
        guard
            let body = try await get(base(language) + "/api/rest_v1/page/random/summary"),
            let summary = WikiSummary.decodeREST(body, language: language)
        else { throw WikiUnavailable.failed("Wikipedia's random article was unreadable.") }
        return summary
    }

    public func summary(_ title: String, language: String) async throws -> WikiSummary? {
        guard let body = try await get(base(language) + "/api/rest_v1/page/summary/" + Self.path(title)) else {
            return nil
        }
        guard let summary = WikiSummary.decodeREST(body, language: language) else {
            throw WikiUnavailable.failed("Wikipedia's summary of \(title) was unreadable.")
        }
        return summary
    }

    public func bodyImage(_ title: String, language: String) async throws -> WikiImage? {
        guard let body = try await get(base(language) + "/api/rest_v1/page/media-list/" + Self.path(title)) else {
            return nil
        }
        return WikiImage.firstBodyImage(mediaList: body)
    }

    /// A title as a path segment.
    static func path(_ title: String) -> String {
        let key = WikiSummary.key(title)
        return key.addingPercentEncoding(withAllowedCharacters: titleAllowed) ?? key
    }

    /// Title characters kept as they are in a path (a slash is encoded: it is part of titles
    /// such as "AC/DC").
    static let titleAllowed: CharacterSet = {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%")
        return allowed
    }()

    /// The body of a 200, nil for a 404; throws for everything else.
    private func get(_ url: String) async throws -> Data? {
        let now = clock.now()
        if let until = blockedUntil.withLockedValue({ $0 }), until > now {
            throw WikiUnavailable.rateLimited(until: until)
        }
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: WikimediaFeedClient.userAgent)
        request.headers.add(name: "Accept", value: "application/json")
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await httpClient.execute(request, timeout: timeout, logger: logger)
            body = try await response.body.collect(upTo: maxBytes)
        } catch {
            logger.info("Wikipedia unreachable", metadata: ["url": "\(url)", "error": "\(error)"])
            throw WikiUnavailable.failed("Wikipedia cannot be reached right now.")
        }
        switch response.status.code {
        case 200: return Data(body.readableBytesView)
        case 404: return nil
        case 429:
            let seconds = response.headers.first(name: "Retry-After").flatMap { TimeInterval($0) } ?? 60
            let until = clock.now().addingTimeInterval(min(max(seconds, 1), 3_600))
            blockedUntil.withLockedValue { $0 = max($0 ?? until, until) }
            logger.warning("Wikipedia asked us to slow down", metadata: ["retryAfter": "\(seconds)"])
            throw WikiUnavailable.rateLimited(until: until)
        default:
            logger.info("Wikipedia error", metadata: ["url": "\(url)", "status": "\(response.status.code)"])
            throw WikiUnavailable.failed("Wikipedia answered \(response.status.code).")
        }
    }
}
