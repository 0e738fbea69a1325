import Foundation

/// The image types a member may upload (selfies, profile photos), told by their first bytes,
/// never by a file name or a declared type.
public enum UploadedImage {
    public static let maxBytes = 5 << 20

    /// The content type of `bytes` if they are a JPEG, PNG or HEIC image, else nil.
    public static func contentType(of bytes: [UInt8]) -> String? {
        if bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF { return "image/jpeg" }
        if bytes.count >= 8, bytes.prefix(8).elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return "image/png"
        }
        // ISO base media: size, "ftyp", then a HEIF brand.
        if bytes.count >= 12, bytes[4...7].elementsEqual(Array("ftyp".utf8)) {
            let brand = String(decoding: bytes[8...11], as: UTF8.self)
            if ["heic", "heix", "hevc", "heim", "heis", "mif1", "msf1"].contains(brand) { return "image/heic" }
        }
        return nil
    }

    /// Checks an upload: not empty, not too large, an image by its content.
    public static func validate(_ bytes: [UInt8], field: String) throws(DomainError) -> String {
        guard !bytes.isEmpty else { throw .invalid(field: field, Message("stories.error.photoMissing")) }
        guard bytes.count <= maxBytes else {
            throw .invalid(field: field, Message("stories.error.photoTooLarge", ["megabytes": .number(maxBytes >> 20)]))
        }
        guard let type = contentType(of: bytes) else {
            throw .invalid(field: field, Message("stories.error.photoType"))
        }
        return type
    }
}

public enum StoryRules {
    public static let maxComment = 500

    /// A comment's text, trimmed: 1 to 500 characters.
    public static func comment(_ text: String) throws(DomainError) -> String {
        let body = text.trimmed()
        guard !body.isEmpty else { throw .invalid(field: "text", Message("stories.error.commentEmpty")) }
        guard body.count <= maxComment else {
            throw .invalid(
                field: "text",
                Message("stories.error.commentTooLong", ["max": .number(maxComment), "count": .number(body.count)]))
        }
        return body
    }

    /// The pre-story choice: at least one state and one track, all known, unless skipped.
    public static func preferences(states: [String], tracks: [String], skip: Bool, content: StoryContent)
        throws(DomainError) -> (states: [String], tracks: [String])
    {
        if skip { return ([], []) }
        var v = FieldValidation()
        let knownStates = Set(content.states.map(\.code))
        let knownTracks = Set(content.tracks.map(\.id))
        v.check { () throws(DomainError) in
            guard !states.isEmpty else { throw .invalid(field: "states", Message("stories.error.chooseState")) }
            if let unknown = states.first(where: { !knownStates.contains($0) }) {
                throw .invalid(field: "states", Message("stories.error.unknownState", ["state": .text(unknown)]))
            }
        }
        v.check { () throws(DomainError) in
            guard !tracks.isEmpty else { throw .invalid(field: "tracks", Message("stories.error.chooseTrack")) }
            if let unknown = tracks.first(where: { !knownTracks.contains($0) }) {
                throw .invalid(field: "tracks", Message("stories.error.unknownTrack", ["track": .text(unknown)]))
            }
        }
        try v.finish()
        return (Array(Set(states)).sorted(), Array(Set(tracks)).sorted())
    }

    /// An achievement's progress from what the member has done.
    public static func progress(
        _ metric: AchievementMetric, storiesCompleted: Int, comments: Int, selfies: Int, cards: Int, pointsEarned: Int,
        tasksDone: Int, chaptersRead: Int
    ) -> Int {
        switch metric {
        case .storiesCompleted: return storiesCompleted
        case .commentsPosted: return comments
        case .selfiesTaken: return selfies
        case .cardsCollected: return cards
        case .pointsEarned: return pointsEarned
        case .dailyTasksDone: return tasksDone
        case .chaptersRead: return chaptersRead
        }
    }
}
