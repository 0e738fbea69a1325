import QuestlineCLI

@main
struct Entry {
    static func main() async {
        await QuestlineCommand.main(nil)
    }
}
