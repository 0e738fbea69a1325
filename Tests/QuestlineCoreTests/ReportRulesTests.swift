import Foundation
import QuestlineCore
import Testing

/// The rules usage reports and reads meet before they count, as pure functions of the input and
/// the server's clock.
@Suite struct ReportRulesTests {
    private let now = Date(timeIntervalSince1970: 1_778_400_000)  // 2026-05-10 08:00 UTC
    private let catalog = [QuestApp(token: "khan", name: "Khan", icon: "📘", role: .learning, pointsPerMinute: 2)]

    private func report(
        _ id: String = "r1", app: String = "khan", ago: TimeInterval = 3600, seconds: Int = 600,
        zone: String = "Europe/Berlin"
    ) -> UsageReportInput {
        UsageReportInput(id: id, appToken: app, startedAt: now - ago, durationSeconds: seconds, timeZone: zone)
    }

    private func refusedField(_ reports: [UsageReportInput]) -> String? {
        do {
            _ = try UsageReports.validate(reports, catalog: catalog, now: now)
            return nil
        } catch {
            guard case .invalid(let issues) = error else { return "not invalid" }
            return issues.first?.field
        }
    }

    @Test func usageReportsAreCheckedFieldByField() {
        #expect(refusedField([report()]) == nil)
        #expect(refusedField([report("")]) == "reports[0].id")
        #expect(refusedField([report("with space")]) == "reports[0].id")
        #expect(refusedField([report(app: "unknown")]) == "reports[0].appToken")
        #expect(refusedField([report(seconds: 0)]) == "reports[0].durationSeconds")
        #expect(refusedField([report(seconds: 43_201)]) == "reports[0].durationSeconds")
        #expect(refusedField([report(zone: "GMT+5")]) == "reports[0].timeZone")
        // Ends more than 5 minutes ahead of the server's clock; starts more than 30 days back.
        #expect(refusedField([report(ago: 200, seconds: 600)]) == "reports[0].startedAt")
        #expect(refusedField([report(ago: 31 * 86_400)]) == "reports[0].startedAt")
        #expect(refusedField([report(ago: 29 * 86_400)]) == nil)
        #expect(refusedField([report("a"), report("b", app: "x")]) == "reports[1].appToken")
    }

    @Test func aReportIdSeenTwiceInOneBatchCountsOnce() throws {
        let stored = try UsageReports.validate([report("same"), report("same", ago: 7200)], catalog: catalog, now: now)
        #expect(stored.map(\.id) == ["same"])
        #expect(stored[0].record.seconds == 600)
    }

    /// A session a person reports ("20 minutes, ending now") meets the device's limit, in minutes,
    /// on the field they filled in, and ends at the given instant in the given zone.
    @Test func aReportedSessionEndsNowWithinTheDevicesLimit() throws {
        let session = try UsageReports.session(
            id: "s1", appToken: "khan", minutes: 20, endingAt: now, timeZone: "America/New_York")
        #expect(session.startedAt == now - 1200 && session.durationSeconds == 1200)
        #expect(session.timeZone == "America/New_York")
        #expect(refusedField([session]) == nil)
        let longest = try UsageReports.session(
            id: "s2", appToken: "khan", minutes: 720, endingAt: now, timeZone: "UTC")
        #expect(refusedField([longest]) == nil)
        for minutes in [nil, 0, -5, 721] {
            let limit = Message("quests.error.sessionMinutes", ["min": .number(1), "max": .number(720)])
            #expect(throws: DomainError.invalid(field: "minutes", limit)) {
                try UsageReports.session(id: "s", appToken: "khan", minutes: minutes, endingAt: now, timeZone: "UTC")
            }
        }
    }

    private func read(at: Date, zone: String = "Europe/Berlin", id: String = "e1") -> ReadInput {
        ReadInput(eventId: id, articleId: "Octopus", title: "Octopus", language: "en", at: at, timeZone: zone)
    }

    private func readRefusal(_ input: ReadInput, readerZone: TimeZoneID? = nil, now: Date? = nil) -> String? {
        do {
            _ = try ReadRules.validate([input], now: now ?? self.now, readerZone: readerZone, fieldPrefix: { _ in "" })
            return nil
        } catch {
            guard case .invalid(let issues) = error else { return "not invalid" }
            return issues.first?.field
        }
    }

    @Test func readsAreCheckedAgainstTheClockTheWindowAndTheReadersDay() throws {
        #expect(readRefusal(read(at: now - 60)) == nil)
        #expect(readRefusal(read(at: now + 301)) == "at")
        // 2000-01-01: before Wikipedia began.
        #expect(readRefusal(read(at: Date(timeIntervalSince1970: 946_684_800))) == "at")
        #expect(readRefusal(read(at: now, zone: "Mars/Olympus")) == "timeZone")
        // 10:30 UTC on 10 May is 23:30 on the 9th in Pago Pago (-11) and 00:30 on the 11th in
        // Kiritimati (+14): a reader at home in Pago Pago may travel one day ahead, not two.
        let half = now + 9_000
        let samoa = TimeZoneID("Pacific/Pago_Pago")
        #expect(readRefusal(read(at: half - 60, zone: "Asia/Tokyo"), readerZone: samoa, now: half) == nil)
        #expect(
            readRefusal(read(at: half - 60, zone: "Pacific/Kiritimati"), readerZone: samoa, now: half) == "timeZone")
        let read = try ReadRules.validate([read(at: now - 60)], now: now, fieldPrefix: { "reads[\($0)]." })
        #expect(read.first?.localDay.iso == "2026-05-10")
    }
}
