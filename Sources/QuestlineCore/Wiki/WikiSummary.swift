public import Foundation

/// An image of a Wikipedia page (its lede image's thumbnail).
public struct WikiImage: Sendable, Equatable, Codable {
    public let source: String
    public let width: Int
    public let height: Int

    public init(source: String, width: Int, height: Int) {
        self.source = source
        self.width = width
        self.height = height
    }
}

/// What a reader sees of an article before opening it: the page summary of Wikipedia's REST
/// API (`/api/rest_v1/page/summary/{title}`), reduced to what the screens show.
public struct WikiSummary: Sendable, Equatable, Codable {
    public let language: String
    /// The title as shown (spaces, not underscores).
    public let title: String
    public let description: String?
    public let extract: String
    public let thumbnail: WikiImage?

    public init(language: String, title: String, description: String?, extract: String, thumbnail: WikiImage?) {
        self.language = language
        self.title = title
        self.description = description
        self.extract = extract
        self.thumbnail = thumbnail
    }

    /// The title as it appears in an article's address (`Ada_Lovelace`).
    public var key: String { Self.key(title) }

    public static func key(_ title: String) -> String { title.replacingOccurrences(of: " ", with: "_") }

    /// The full article on Wikipedia.
    public var pageURL: String {
        let slug = key.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? key
        return "https://\(language).wikipedia.org/wiki/\(slug)"
    }

    /// A summary from the REST API's JSON (`titles.normalized` or `title`, `description`,
    /// `extract`, `thumbnail`); nil when it is not a summary of an article with text.
    public static func decodeREST(_ data: Data, language: String) -> WikiSummary? {
        struct Body: Decodable {
            struct Titles: Decodable { let normalized: String? }
            struct Thumbnail: Decodable {
                let source: String
                let width: Int
                let height: Int
            }
            let type: String?
            let title: String?
            let titles: Titles?
            let description: String?
            let extract: String?
            let thumbnail: Thumbnail?
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: data),
            body.type.map({ $0 == "standard" }) ?? true,
            let title = (body.titles?.normalized ?? body.title)?.replacingOccurrences(of: "_", with: " "),
            !title.isEmpty, let extract = body.extract?.trimmingCharacters(in: .whitespacesAndNewlines),
            !extract.isEmpty
        else { return nil }
        return WikiSummary(
            language: language, title: title, description: body.description.flatMap { $0.isEmpty ? nil : $0 },
            extract: extract,
            thumbnail: body.thumbnail.flatMap { WikiImage.secure($0.source, width: $0.width, height: $0.height) })
    }

    /// Results of the title search (`/w/rest.php/v1/search/title`): `pages[]` with `title`,
    /// `description`, `excerpt` and `thumbnail.url` (protocol-relative). Search results carry
    /// no extract; the description (or the title) stands in until the summary is read.
    public static func decodeSearch(_ data: Data, language: String) -> [WikiSummary]? {
        struct Body: Decodable {
            struct Page: Decodable {
                struct Thumbnail: Decodable {
                    let url: String?
                    let width: Int?
                    let height: Int?
                }
                let title: String?
                let description: String?
                let excerpt: String?
                let thumbnail: Thumbnail?
            }
            let pages: [Page]
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: data) else { return nil }
        return body.pages.compactMap { page in
            guard let title = page.title, !title.isEmpty else { return nil }
            let description = page.description.flatMap { $0.isEmpty ? nil : $0 }
            return WikiSummary(
                language: language, title: title, description: description, extract: description ?? "",
                thumbnail: page.thumbnail.flatMap { thumbnail in
                    thumbnail.url.flatMap {
                        WikiImage.secure($0, width: thumbnail.width ?? 0, height: thumbnail.height ?? 0)
                    }
                })
        }
    }
}

extension WikiImage {
    /// The first image of an article's body, from its media list (`/api/rest_v1/page/media-list/{title}`:
    /// `items[]` with `type`, `leadImage` and `srcset[].src`, protocol-relative): the lede image is
    /// skipped, and so are items that are not images (video, audio) or not on Wikimedia's host.
    public static func firstBodyImage(mediaList data: Data) -> WikiImage? {
        struct Body: Decodable {
            struct Item: Decodable {
                struct Source: Decodable { let src: String }
                let type: String?
                let leadImage: Bool?
                let srcset: [Source]?
            }
            let items: [Item]
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: data) else { return nil }
        for item in body.items where item.type == "image" && item.leadImage != true {
            if let source = item.srcset?.first?.src, let image = secure(source, width: 0, height: 0) { return image }
        }
        return nil
    }

    /// Only Wikimedia's image host, over HTTPS (what the web app's content policy allows);
    /// protocol-relative addresses made absolute.
    public static func secure(_ source: String, width: Int, height: Int) -> WikiImage? {
        let absolute = source.hasPrefix("//") ? "https:" + source : source
        guard absolute.hasPrefix("https://upload.wikimedia.org/"), absolute.count <= 2_000 else { return nil }
        return WikiImage(source: absolute, width: width, height: height)
    }
}

/// The bundled (and imported) summaries that serve search, random and articles when Wikipedia
/// cannot be asked: pure, so an app can search a pack it carries.
public struct WikiPack: Sendable {
    public let summaries: [WikiSummary]
    private let byKey: [String: Int]

    public init(_ summaries: [WikiSummary]) {
        self.summaries = summaries
        var byKey: [String: Int] = [:]
        for (index, summary) in summaries.enumerated() {
            byKey[Self.lookupKey(summary.language, summary.title)] =
                byKey[Self.lookupKey(summary.language, summary.title)]
                ?? index
        }
        self.byKey = byKey
    }

    static func lookupKey(_ language: String, _ title: String) -> String {
        language + "|" + title.replacingOccurrences(of: "_", with: " ").lowercased()
    }

    public func summary(_ title: String, language: String) -> WikiSummary? {
        byKey[Self.lookupKey(language, title)].map { summaries[$0] }
    }

    /// Titles that start with the query first, then titles containing it, then articles whose
    /// description or extract mentions it; each group in title order.
    public func search(_ query: String, language: String, limit: Int) -> [WikiSummary] {
        let q = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !q.isEmpty, limit > 0 else { return [] }
        var ranked: [(Int, WikiSummary)] = []
        for summary in summaries where summary.language == language {
            let rank: Int
            if summary.title.range(of: q, options: [.caseInsensitive, .diacriticInsensitive, .anchored]) != nil {
                rank = 0
            } else if summary.title.range(of: q, options: [.caseInsensitive, .diacriticInsensitive]) != nil {
                rank = 1
            } else if (summary.description ?? "").range(of: q, options: [.caseInsensitive, .diacriticInsensitive])
                != nil || summary.extract.range(of: q, options: [.caseInsensitive, .diacriticInsensitive]) != nil
            {
                rank = 2
            } else {
                continue
            }
            ranked.append((rank, summary))
        }
        return ranked.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1.title < $1.1.title }.prefix(limit).map(\.1)
    }

    /// One summary in `language`, chosen by `pick` (an index below the count).
    public func random(language: String, pick: (Int) -> Int) -> WikiSummary? {
        let candidates = summaries.filter { $0.language == language }
        guard !candidates.isEmpty else { return nil }
        return candidates[min(max(pick(candidates.count), 0), candidates.count - 1)]
    }

    /// A pack file: `{"language": "en", "summaries": [{"title", "extract", "description"?,
    /// "thumbnail"?: {"source", "width", "height"}}]}`. Every problem is reported, with the
    /// entry's position; a file with any problem yields no pack.
    public static func decodeFile(_ data: Data) throws(PackProblem) -> [WikiSummary] {
        struct File: Decodable {
            struct Entry: Decodable {
                let title: String?
                let description: String?
                let extract: String?
                let thumbnail: WikiImage?
            }
            let language: String?
            let summaries: [Entry]?
        }
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch {
            throw PackProblem(["The file is not a pack: \(error)"])
        }
        var problems: [String] = []
        guard let language = file.language, (2...12).contains(language.count),
            language.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-") })
        else { throw PackProblem(["\"language\" must be a wiki language code such as \"en\"."]) }
        guard let entries = file.summaries, !entries.isEmpty else {
            throw PackProblem(["\"summaries\" must list at least one summary."])
        }
        var summaries: [WikiSummary] = []
        for (index, entry) in entries.enumerated() {
            let title = entry.title?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            let extract = entry.extract?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            if title.isEmpty || title.count > 255 { problems.append("summaries[\(index)].title: 1 to 255 characters.") }
            if extract.isEmpty || extract.count > 5_000 {
                problems.append("summaries[\(index)].extract: 1 to 5,000 characters.")
            }
            var image: WikiImage?
            if let thumbnail = entry.thumbnail {
                image = WikiImage.secure(thumbnail.source, width: thumbnail.width, height: thumbnail.height)
                if image == nil {
                    problems.append("summaries[\(index)].thumbnail.source: an https://upload.wikimedia.org/ address.")
                }
            }
            summaries.append(
                WikiSummary(
                    language: language, title: title.replacingOccurrences(of: "_", with: " "),
                    description: entry.description.flatMap { $0.isEmpty ? nil : $0 }, extract: extract,
                    thumbnail: image))
        }
        if !problems.isEmpty { throw PackProblem(problems) }
        return summaries
    }
}

/// Why a pack file cannot be used: one line per problem.
public struct PackProblem: Error, Equatable, CustomStringConvertible {
    public let problems: [String]
    public init(_ problems: [String]) { self.problems = problems }
    public var description: String { problems.joined(separator: "\n") }
}

extension WikiLanguage {
    /// A language code from a request: `en` when absent, else a valid code (`validate`).
    public static func check(_ code: String?, field: String = "language") throws(DomainError) -> String {
        guard let code, !code.isEmpty else { return "en" }
        return try validate(code, field: field)
    }

    /// An article title: 1 to 255 characters, without the characters titles cannot hold.
    public static func title(_ text: String?, field: String = "title") throws(DomainError) -> String {
        let title = (text ?? "").trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(
            of: "_", with: " ")
        guard (1...255).contains(title.count), !title.contains(where: { "#<>[]|{}".contains($0) }) else {
            throw .invalid(field: field, Message("input.error.articleTitle", ["max": .number(255)]))
        }
        return title
    }
}
