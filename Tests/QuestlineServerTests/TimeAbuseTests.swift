import Foundation
import HTTPTypes
import QuestlineAPI
import QuestlineCore
import Testing

/// Clients that lie about time: a zone that puts a read on a day far ahead of the member's, a
/// device clock in the future, usage from the future.
@Suite struct TimeAbuseTests {
    func read(_ id: String, at: String, zone: String) -> String {
        #"{"eventId":"\#(id)","articleId":"Octopus","title":"Octopus","language":"en","at":"\#(at)","timeZone":"\#(zone)"}"#
    }

    @Test func aZoneFarAheadOfTheMembersDayOrAClockInTheFutureDoesNotExtendAStreak() async throws {
        try await Harness.run { app in
            // 10:30 UTC on 7 May: 23:30 on 6 May in Pago Pago (-11), 00:30 on 8 May in Kiritimati (+14).
            app.clock.set(try Date("2026-05-07T10:30:00Z", strategy: .iso8601))
            let (token, _) = try await app.signUp("samoa@example.com", timeZone: "Pacific/Pago_Pago")
            try await app.send(
                .post, "/api/v1/reading/reads",
                json: read("far", at: "2026-05-07T10:29:00Z", zone: "Pacific/Kiritimati"), token: token
            )
            .expectProblem(.badRequest, field: "timeZone")
            // One day ahead is travel, and allowed: Tokyo is already on 7 May.
            let tokyo = try await app.send(
                .post, "/api/v1/reading/reads", json: read("tokyo", at: "2026-05-07T10:29:00Z", zone: "Asia/Tokyo"),
                token: token)
            #expect(tokyo.status == .ok, "\(tokyo.text)")
            #expect(try tokyo.decode(Components.Schemas.ReadResult.self).localDay == "2026-05-07")
            // A device clock an hour ahead: refused, so it cannot bank tomorrow.
            try await app.send(
                .post, "/api/v1/reading/reads",
                json: read("future", at: "2026-05-07T11:31:00Z", zone: "Pacific/Pago_Pago"), token: token
            )
            .expectProblem(.badRequest, field: "at")
            let widget = try await app.send(.get, "/api/v1/reading/widget", token: token)
            #expect(widget.status == .ok)
            #expect(!widget.text.contains("2026-05-08"))
        }
    }
}
