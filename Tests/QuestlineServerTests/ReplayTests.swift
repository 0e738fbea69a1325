import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineFeatures
import QuestlineServer
import QuestlineTestSupport
import Testing

/// Idempotency under replay: 1,000 recorded writes (usage reports, reads, saves, point
/// adjustments, the reader's rest days and pause) sent once in order, and sent twice each in shuffled order, end in the same state.
@Suite struct ReplayTests {
    struct Write: Sendable {
        let key: String
        let asGuardian: Bool
        let asChild: Bool
        let method: HTTPRequest.Method
        let path: String
        let json: String
    }

    struct Actors: Sendable {
        let guardian: String, child: String, childID: String, reader: String
    }

    static func setUp(_ app: Harness) async throws -> Actors {
        let (guardian, _) = try await app.signUp("replay-guardian@example.com")
        let household =
            try await app.send(.post, "/api/v1/households", json: #"{"name":"Replay"}"#, token: guardian).string("id")
        let childID =
            try await app.send(
                .post, "/api/v1/households/\(household)/children",
                json: #"{"username":"replaykid","password":"kidpass123","displayName":"Kid"}"#, token: guardian
            )
            .string("id")
        let child =
            try await app.send(.post, "/api/v1/auth/login", json: #"{"login":"replaykid","password":"kidpass123"}"#)
            .string("token")
        for (token, body) in [
            ("khan", #"{"name":"Khan","role":"learning","pointsPerMinute":2}"#),
            ("duo", #"{"name":"Duo","role":"learning"}"#),
            ("game", #"{"name":"Game","role":"reward"}"#),
        ] {
            _ = try await app.send(.put, "/api/v1/children/\(childID)/apps/\(token)", json: body, token: guardian)
        }
        for quest in [
            #"{"title":"Daily","goalType":"dailyMinutes","target":30,"rewardApps":[{"appToken":"game","minutes":15}]}"#,
            #"{"title":"Weekly","goalType":"weeklyMinutes","target":200,"bonusPercent":20}"#,
            #"{"title":"Streak","goalType":"streak","target":2,"dailyMinimumMinutes":10}"#,
            #"{"title":"Points","goalType":"pointsTarget","target":300,"bonusPercent":25}"#,
        ] {
            let created = try await app.send(.post, "/api/v1/children/\(childID)/quests", json: quest, token: guardian)
            #expect(created.status == .created, "\(created.text)")
        }
        let (reader, _) = try await app.signUp("replay-reader@example.com")
        return Actors(guardian: guardian, child: child, childID: childID, reader: reader)
    }

    /// 1,000 writes from a seeded generator: the same list every run.
    static func writes(childID: String) -> [Write] {
        var generator = SeededGenerator(seed: 20_261_122)
        let start = try! Date("2026-05-07T00:00:00Z", strategy: .iso8601)  // the harness clock is 10:00 that day
        func instant(_ maxMinutes: Int) -> String {
            start.addingTimeInterval(Double(Int.random(in: 0..<maxMinutes, using: &generator) * 60)).formatted(.iso8601)
        }
        var writes: [Write] = []
        for index in 0..<400 {
            let app = ["khan", "duo"][index % 2]
            let minutes = Int.random(in: 1...20, using: &generator)
            writes.append(
                Write(
                    key: "usage-\(index)", asGuardian: false, asChild: true, method: .post,
                    path: "/api/v1/children/\(childID)/usage",
                    json:
                        #"{"reports":[{"id":"u\#(index)","appToken":"\#(app)","startedAt":"\#(instant(9 * 60 - 20))","durationSeconds":\#(minutes * 60),"timeZone":"Europe/Berlin"}]}"#
                ))
        }
        for index in 0..<300 {
            let title = "Article \(Int.random(in: 0..<60, using: &generator))"
            let at = start.addingTimeInterval(-Double(Int.random(in: 0..<(10 * 24 * 60), using: &generator) * 60))
                .formatted(.iso8601)
            writes.append(
                Write(
                    key: "read-\(index)", asGuardian: false, asChild: false, method: .post,
                    path: "/api/v1/reading/reads",
                    json:
                        #"{"eventId":"r\#(index)","articleId":"\#(title.replacingOccurrences(of: " ", with: "_"))","title":"\#(title)","language":"en","at":"\#(at)","timeZone":"Europe/Berlin"}"#
                ))
        }
        for index in 0..<200 {
            let title = "Saved \(Int.random(in: 0..<50, using: &generator))"
            let list = ["", "Later", "Science"][Int.random(in: 0..<3, using: &generator)]
            writes.append(
                Write(
                    key: "save-\(index)", asGuardian: false, asChild: false, method: .post, path: "/api/v1/saved",
                    json: #"{"language":"en","title":"\#(title)","readingList":"\#(list)"}"#))
        }
        for index in 0..<100 {
            writes.append(
                Write(
                    key: "adjust-\(index)", asGuardian: true, asChild: false, method: .post,
                    path: "/api/v1/children/\(childID)/adjustments",
                    json: #"{"points":\#(Int.random(in: 1...10, using: &generator)),"reason":"Chore \#(index)"}"#))
        }
        // The reader's forgiving-streak settings (#39), among the reads they forgive.
        writes.append(
            Write(
                key: "rest-days", asGuardian: false, asChild: false, method: .put, path: "/api/v1/me/streak/rest-days",
                json: #"{"weekdays":[3,7]}"#))
        writes.append(
            Write(
                key: "pause", asGuardian: false, asChild: false, method: .post, path: "/api/v1/me/streak/pause",
                json: #"{"start":"2026-05-09","end":"2026-05-10"}"#))
        writes.shuffle(using: &generator)  // one recorded order, mixing the kinds
        return writes
    }

    static func send(_ write: Write, _ app: Harness, _ actors: Actors) async throws {
        let token = write.asGuardian ? actors.guardian : write.asChild ? actors.child : actors.reader
        let reply = try await app.send(
            write.method, write.path, json: write.json, token: token,
            headers: [HTTPField.Name("Idempotency-Key")!: write.key])
        #expect((200..<300).contains(reply.status.code), "\(write.key): \(reply.text)")
    }

    /// Everything the writes can change, without ids and with ledger entries summed per kind.
    static func snapshot(_ app: Harness, _ actors: Actors) async throws -> String {
        let board = try await app.send(.get, "/api/v1/children/\(actors.childID)/quests", token: actors.child)
            .decode(Components.Schemas.QuestBoard.self)
        let quests = board.quests.map {
            "\($0.summary) \($0.progress.value) \($0.progress.completed) ×\($0.completions)"
        }
        let grants = board.grants.map { "\($0.appToken) \($0.minutes) \($0.minutesLeft)" }
        let badges = board.badges.filter { $0.awardedAt != nil }.map(\.id)
        var byKind: [String: Int] = [:]
        var offset = 0
        while true {  // every page of the ledger
            let entries = try await app.send(
                .get, "/api/v1/children/\(actors.childID)/ledger?limit=200&offset=\(offset)", token: actors.guardian
            ).decode(LedgerPage.self).entries
            for entry in entries { byKind[entry.kind.rawValue, default: 0] += entry.points }
            if entries.count < 200 { break }
            offset += 200
        }
        let saved = try await app.send(.get, "/api/v1/saved?limit=200", token: actors.reader).text
        let activity = try await app.send(.get, "/api/v1/activity", token: actors.reader).text
        let widget = try await app.send(.get, "/api/v1/reading/widget", token: actors.reader).text
        let streak = try await app.send(.get, "/api/v1/me/streak", token: actors.reader).text
        return """
            balance \(board.balance) streak \(board.currentStreak) minutes \(board.learningMinutes)
            quests \(quests)
            grants \(grants.sorted())
            badges \(badges.sorted())
            ledger \(byKind.sorted { $0.key < $1.key })
            saved \(saved)
            activity \(activity)
            widget \(widget)
            streak \(streak)
            """
    }

    @Test func replayingEveryWriteTwiceInAnyOrderEndsInTheSameState() async throws {
        let limits = RateLimits.off
        for database in TestDatabase.available {
            let once = try await Harness.runReturning(rateLimits: limits, on: database) { app in
                let actors = try await Self.setUp(app)
                for write in Self.writes(childID: actors.childID) { try await Self.send(write, app, actors) }
                return try await Self.snapshot(app, actors)
            }
            let replayed = try await Harness.runReturning(rateLimits: limits, on: database) { app in
                let actors = try await Self.setUp(app)
                var generator = SeededGenerator(seed: 7)
                let writes = Self.writes(childID: actors.childID)
                for write in (writes + writes).shuffled(using: &generator) { try await Self.send(write, app, actors) }
                return try await Self.snapshot(app, actors)
            }
            #expect(once.contains("balance") && once.contains("bonus"), "\(database): \(once)")
            #expect(once == replayed, "\(database)")
        }
    }
}

/// SplitMix64: a small seeded generator, so the recorded writes are the same every run.

/// A page of a child's ledger (the contract describes it inline).
private struct LedgerPage: Decodable { let entries: [Components.Schemas.LedgerEntry] }
