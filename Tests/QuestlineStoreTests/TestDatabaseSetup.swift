import QuestlineTestSupport
import Testing

extension TestDatabase: CustomTestStringConvertible {
    public var testDescription: String { rawValue }
}

@Suite struct TestDatabaseSetup {
    @Test func postgresIsPresentWhenRequired() {
        if TestDatabase.postgresRequired {
            #expect(
                TestDatabase.postgresURL != nil,
                "QUESTLINE_REQUIRE_POSTGRES=1 but QUESTLINE_TEST_POSTGRES_URL is not set")
        }
    }
}
