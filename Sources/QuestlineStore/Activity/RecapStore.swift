public import Foundation
public import QuestlineCore
import SQLKit

/// The article a reading-time interval was spent on (the year in review ranks articles by it).
enum RecapSchema: StoreModule {
    static let migrations: [Migration] = [
        Migration(
            version: 860, name: "reading_interval_article", ["ALTER TABLE reading_intervals ADD COLUMN article_id TEXT"]
        )
    ]
}

extension ActivityStore {
    /// What a member's recap of `first`…`last` (their local days; `from`…`to` the same days as
    /// instants, in their zone) is made of: reads, reading time, read days and allowances, saves
    /// and games. A child's part is the quests' (`QuestQueries.reportRows`).
    public func recapFacts(_ member: MemberID, first: LocalDay, last: LocalDay, from: Date, to: Date, zone: TimeZone)
        async throws -> Recap.Facts
    {
        let owner = ReadOwner.member(member).key
        return try await database.withConnection { db in
            var facts = Recap.Facts()
            for row in try await db.raw(
                """
                SELECT article_id, title, local_day FROM reading_events
                WHERE owner = \(bind: owner) AND local_day >= \(bind: first.iso) AND local_day <= \(bind: last.iso)
                """
            ).all() {
                guard let day = LocalDay(iso: try row.decode(column: "local_day", as: String.self)) else { continue }
                facts.reads.append(
                    (
                        try row.decode(column: "article_id", as: String.self),
                        try row.decode(column: "title", as: String.self), day
                    ))
            }
            for row in try await db.raw(
                """
                SELECT article_id, seconds FROM reading_intervals
                WHERE owner = \(bind: owner) AND local_day >= \(bind: first.iso) AND local_day <= \(bind: last.iso)
                """
            ).all() {
                facts.intervals.append(
                    (
                        try row.decode(column: "article_id", as: String?.self),
                        try row.decode(column: "seconds", as: Int.self)
                    ))
            }
            for row in try await db.raw(
                """
                SELECT local_day, reads FROM reading_days
                WHERE owner = \(bind: owner) AND local_day >= \(bind: first.iso) AND local_day <= \(bind: last.iso)
                """
            ).all() {
                guard let day = LocalDay(iso: try row.decode(column: "local_day", as: String.self)) else { continue }
                facts.readDays.insert(day)
                if try row.decode(column: "reads", as: Int.self) >= StreakAllowances.repairReads {
                    facts.repairDays.insert(day)
                }
            }
            facts.allowances = try StreakSettingsSchema.decode(
                try await db.raw("SELECT body FROM streak_allowances WHERE member_id = \(bind: member.rawValue)")
                    .first()?.decode(column: "body", as: String.self))
            facts.saved = try await db.raw(
                """
                SELECT COUNT(*) AS n FROM saved_articles WHERE member_id = \(bind: member.rawValue)
                AND saved_at >= \(bind: from.storedMillis) AND saved_at < \(bind: to.storedMillis)
                """
            ).first().orNoRow("COUNT saved_articles").decode(column: "n", as: Int.self)
            // A daily game counts on its own date; an archive game on the day it was finished.
            for row in try await db.raw(
                """
                SELECT game_date, from_archive, score, completed_at FROM game_sessions
                WHERE member_id = \(bind: member.rawValue) AND completed_at IS NOT NULL
                AND ((from_archive = 0 AND game_date >= \(bind: first.iso) AND game_date <= \(bind: last.iso))
                  OR (from_archive <> 0 AND completed_at >= \(bind: from.storedMillis) AND completed_at < \(bind: to.storedMillis)))
                """
            ).all() {
                let archive = try row.decode(column: "from_archive", as: Int.self) != 0
                let finished = Date(storedMillis: try row.decode(column: "completed_at", as: Int64.self))
                guard
                    let day = archive
                        ? LocalDay(finished, in: zone)
                        : LocalDay(iso: try row.decode(column: "game_date", as: String.self))
                else { continue }
                facts.games.append(
                    (day, try row.decode(column: "score", as: Int.self), QuestionBuilder.questionsPerGame))
            }
            return facts
        }
    }

    /// How many readers read less than `seconds` in `first`…`last`, of all who read then
    /// (reading time, each interval at most an hour).
    public func readingComparison(first: LocalDay, last: LocalDay, seconds: Int) async throws -> Recap.Comparison {
        let cap = String(ReadingInterval.maxSeconds)  // an interval counts at most this, as in Activity
        return try await database.withConnection { db in
            let row = try await db.raw(
                """
                SELECT COUNT(*) AS total, COALESCE(SUM(CASE WHEN s < \(bind: seconds) THEN 1 ELSE 0 END), 0) AS below
                FROM (SELECT owner, SUM(CASE WHEN seconds > \(unsafeRaw: cap) THEN \(unsafeRaw: cap) WHEN seconds < 0 THEN 0 ELSE seconds END) AS s
                      FROM reading_intervals WHERE local_day >= \(bind: first.iso) AND local_day <= \(bind: last.iso)
                      GROUP BY owner) readers
                """
            ).first().orNoRow("COUNT reading_intervals")
            return Recap.Comparison(
                below: Int(try row.decode(column: "below", as: Int64.self)),
                total: Int(try row.decode(column: "total", as: Int64.self)))
        }
    }
}
