public import AsyncHTTPClient
import Foundation
public import Logging
public import NIOCore
import NIOHTTP1
public import QuestlineCore

/// What the feed service answered.
public enum FeedFetchResult: Sendable, Equatable {
    case feed(OnThisDayFeed)
    /// 404: the wiki has no events for that day.
    case noData
}

/// Fetches "On this day" feeds.
public protocol FeedFetching: Sendable {
    func fetch(language: GameLanguage, month: Int, day: Int) async throws -> FeedFetchResult
}

/// The Wikimedia REST feed, over AsyncHTTPClient.
///
/// `template` holds `{wiki}`, `{month}` and `{day}` (unpadded), by default
/// `https://{wiki}.wikipedia.org/api/rest_v1/feed/onthisday/events/{month}/{day}`. Chinese
/// variants ask zh.wikipedia.org with `Accept-Language: zh-hant` (etc.).
public struct WikimediaFeedClient: FeedFetching {
    public static let defaultTemplate = "https://{wiki}.wikipedia.org/api/rest_v1/feed/onthisday/events/{month}/{day}"
    /// Wikimedia asks API clients to identify themselves with a contact.
    public static let userAgent =
        "Questline/1.0 (engagement engine for reading apps; https://questline.example/contact) AsyncHTTPClient"

    let template: String
    let httpClient: HTTPClient
    let timeout: TimeAmount
    let maxBytes = 8 << 20
    let logger: Logger

    public init(
        template: String = defaultTemplate, httpClient: HTTPClient = .shared, timeout: TimeAmount = .seconds(10),
        logger: Logger = Logger(label: "questline.feed")
    ) {
        self.template = template
        self.httpClient = httpClient
        self.timeout = timeout
        self.logger = logger
    }

    func url(language: GameLanguage, month: Int, day: Int) -> String {
        template.replacingOccurrences(of: "{wiki}", with: language.wiki)
            .replacingOccurrences(of: "{language}", with: language.code)
            .replacingOccurrences(of: "{month}", with: String(month))
            .replacingOccurrences(of: "{day}", with: String(day))
    }

    public func fetch(language: GameLanguage, month: Int, day: Int) async throws -> FeedFetchResult {
        let address = url(language: language, month: month, day: day)
        var request = HTTPClientRequest(url: address)
        request.headers.add(name: "User-Agent", value: Self.userAgent)
        request.headers.add(name: "Accept", value: "application/json")
        if let variant = language.variant { request.headers.add(name: "Accept-Language", value: variant) }
        let response: HTTPClientResponse
        do {
            response = try await httpClient.execute(request, timeout: timeout, logger: logger)
        } catch {
            logger.warning("Feed unreachable", metadata: ["url": "\(address)", "error": "\(error)"])
            throw DomainError.unavailable(Message("game.error.feedUnreachable"))
        }
        switch response.status.code {
        case 200:
            let body = try await response.body.collect(upTo: maxBytes)
            do {
                return .feed(try OnThisDayFeed.decode(Data(body.readableBytesView)))
            } catch {
                logger.warning("Feed unreadable", metadata: ["url": "\(address)", "error": "\(error)"])
                throw DomainError.unavailable(Message("game.error.feedGarbled"))
            }
        case 404:
            return .noData
        case 501:
            throw DomainError.unavailable(Message("game.error.feedNotOffered", ["language": .message(language.title)]))
        default:
            logger.warning("Feed error", metadata: ["url": "\(address)", "status": "\(response.status.code)"])
            throw DomainError.unavailable(
                Message("game.error.feedStatus", ["status": .text(String(response.status.code))]))
        }
    }
}
