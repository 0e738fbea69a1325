import Foundation
import QuestlineL10n
import Testing

@testable import QuestlineCore

/// Cheers (#39): presets only, never to oneself, not while off, five a day.
@Suite struct CheerTests {
    let ada = MemberID(UUID())
    let kid = MemberID(UUID())

    @Test func onlyPresetsToSomeoneElseWhileOnAndFiveADay() throws {
        #expect(
            try CheerRules.check("highFive", from: ada, to: kid, enabled: true, sentToday: 4, secondsToTomorrow: 60)
                == .highFive)
        #expect(throws: DomainError.self) {
            try CheerRules.check(
                "You are great", from: ada, to: kid, enabled: true, sentToday: 0, secondsToTomorrow: 60)
        }
        #expect(throws: DomainError.invalid(field: "to", Message("quests.error.cheerSelf"))) {
            try CheerRules.check("proud", from: ada, to: ada, enabled: true, sentToday: 0, secondsToTomorrow: 60)
        }
        #expect(throws: DomainError.conflict(field: nil, message: Message("quests.error.cheersOff"))) {
            try CheerRules.check("proud", from: ada, to: kid, enabled: false, sentToday: 0, secondsToTomorrow: 60)
        }
        #expect(
            throws: DomainError.tooManyRequests(
                retryAfter: 3600, Message("quests.error.cheersPerDay", ["count": .number(5)]))
        ) {
            try CheerRules.check("proud", from: ada, to: kid, enabled: true, sentToday: 5, secondsToTomorrow: 3600)
        }
        #expect(
            Localizer.english(Message("quests.error.cheersPerDay", ["count": .number(5)]))
                == "You have sent 5 cheers today: send more tomorrow.")
        // Every preset has words in the catalog and an emoji, and no preset is free text.
        #expect(
            Cheer.allCases.allSatisfy {
                Localizer.english.has($0.text.key) && !Localizer.english($0.text).isEmpty && !$0.emoji.isEmpty
            })
        #expect(Localizer.english(Cheer.proud.text) == "So proud of you!")
    }
}
