public import Foundation

/// One "On this day" feed (`/feed/onthisday/events/{M}/{D}`): only its events are used.
/// Decodes the current page format (`titles`) and the older one (`title`, `normalizedtitle`).
public struct OnThisDayFeed: Codable, Sendable, Equatable {
    public var events: [Event]

    public init(events: [Event]) { self.events = events }

    public struct Event: Codable, Sendable, Equatable {
        public var text: String
        public var year: Int
        public var pages: [Page]

        public init(text: String, year: Int, pages: [Page] = []) {
            self.text = text
            self.year = year
            self.pages = pages
        }

        enum CodingKeys: String, CodingKey { case text, year, pages }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            text = try container.decode(String.self, forKey: .text)
            year = try container.decode(Int.self, forKey: .year)
            pages = try container.decodeIfPresent([Page].self, forKey: .pages) ?? []
        }

        /// The card image (seed 004): the lede image (thumbnail) of the first page that has one;
        /// if none has, the first body image found in the pages, in the same order; else none.
        public var imageURL: String? { imagePage.flatMap { $0.thumbnail?.source ?? $0.bodyImage?.source } }

        /// The page the card's image comes from: its title is the image's alt text.
        public var imagePage: Page? {
            pages.first { $0.thumbnail != nil } ?? pages.first { $0.bodyImage != nil }
        }
    }

    public struct Page: Codable, Sendable, Equatable {
        public var title: String
        public var description: String?
        public var extract: String?
        public var thumbnail: Image?
        public var url: String?
        /// An image from the article's body, for a page with no lede image: not in Wikipedia's
        /// feed; found through the page's media list when the feed is fetched, and kept with it.
        public var bodyImage: Image?

        public init(
            title: String, description: String? = nil, extract: String? = nil, thumbnail: Image? = nil,
            url: String? = nil, bodyImage: Image? = nil
        ) {
            self.title = title
            self.description = description
            self.extract = extract
            self.thumbnail = thumbnail
            self.url = url
            self.bodyImage = bodyImage
        }

        public struct Image: Codable, Sendable, Equatable {
            public var source: String
            public var width: Int?
            public var height: Int?

            public init(source: String, width: Int? = nil, height: Int? = nil) {
                self.source = source
                self.width = width
                self.height = height
            }
        }

        private enum WireKeys: String, CodingKey {
            case title, titles, normalizedtitle, description, extract, thumbnail, url, bodyImage
            case contentURLs = "content_urls"
        }
        private enum TitlesKeys: String, CodingKey { case normalized, canonical }
        private enum URLKeys: String, CodingKey { case desktop, mobile }
        private enum PageKeys: String, CodingKey { case page }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: WireKeys.self)
            var title: String?
            if container.contains(.titles) {
                let titles = try container.nestedContainer(keyedBy: TitlesKeys.self, forKey: .titles)
                let normalized = try titles.decodeIfPresent(String.self, forKey: .normalized)
                let canonical = try titles.decodeIfPresent(String.self, forKey: .canonical)
                title = normalized ?? canonical?.replacingOccurrences(of: "_", with: " ")
            }
            if title == nil { title = try container.decodeIfPresent(String.self, forKey: .normalizedtitle) }
            if title == nil, let raw = try container.decodeIfPresent(String.self, forKey: .title) {
                title = raw.replacingOccurrences(of: "_", with: " ")
            }
            self.title = title ?? ""
            description = try container.decodeIfPresent(String.self, forKey: .description)
            extract = try container.decodeIfPresent(String.self, forKey: .extract)
            thumbnail = try container.decodeIfPresent(Image.self, forKey: .thumbnail)
            bodyImage = try container.decodeIfPresent(Image.self, forKey: .bodyImage)
            if let stored = try container.decodeIfPresent(String.self, forKey: .url) {
                url = stored
            } else if container.contains(.contentURLs) {
                let urls = try container.nestedContainer(keyedBy: URLKeys.self, forKey: .contentURLs)
                let mobile = try? urls.nestedContainer(keyedBy: PageKeys.self, forKey: .mobile)
                let desktop = try? urls.nestedContainer(keyedBy: PageKeys.self, forKey: .desktop)
                let mobileURL = try mobile?.decodeIfPresent(String.self, forKey: .page)
                let desktopURL = try desktop?.decodeIfPresent(String.self, forKey: .page)
                url = mobileURL ?? desktopURL
            } else {
                url = nil
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: WireKeys.self)
            try container.encode(title, forKey: .title)
            try container.encodeIfPresent(description, forKey: .description)
            try container.encodeIfPresent(extract, forKey: .extract)
            try container.encodeIfPresent(thumbnail, forKey: .thumbnail)
            try container.encodeIfPresent(url, forKey: .url)
            try container.encodeIfPresent(bodyImage, forKey: .bodyImage)
        }
    }

    /// Decodes a feed file or response body; a malformed feed is a `DomainError.invalid` that
    /// says where it is wrong.
    public static func decode(_ data: Data) throws(DomainError) -> OnThisDayFeed {
        do {
            return try JSONDecoder().decode(OnThisDayFeed.self, from: data)
        } catch let error as DecodingError {
            throw .invalid(field: "feed", Self.describe(error))
        } catch {
            throw .invalid(field: "feed", Message("game.error.feedUnreadableBecause", ["detail": .text("\(error)")]))
        }
    }

    /// Where a feed is wrong: the field's path (`events[0].year`) and the decoder's own words
    /// (Foundation's, in English) as arguments.
    static func describe(_ error: DecodingError) -> Message {
        func path(_ keys: [any CodingKey]) -> Message.Argument {
            .text(
                keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingCharacters(
                    in: CharacterSet(charactersIn: ".")))
        }
        switch error {
        case .keyNotFound(let key, let context):
            return Message("game.error.feedFieldMissing", ["path": path(context.codingPath + [key])])
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return Message(
                "game.error.feedWrongType",
                ["path": path(context.codingPath), "detail": .text(context.debugDescription)])
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? Message("game.error.feedNotJSON")
                : Message(
                    "game.error.feedCorrupted",
                    ["path": path(context.codingPath), "detail": .text(context.debugDescription)])
        @unknown default: return Message("game.error.feedUnreadable")
        }
    }
}
