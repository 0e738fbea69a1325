// Prints what Kotlin's own kotlin.random.Random(seed) gives, as JSON, for the core's tests of
// KotlinRandom (Tests/QuestlineCoreTests/Fixtures/kotlin-random.json). Run by
// scripts/kotlin/random-fixture.sh with Debian's kotlin package.
import kotlin.random.Random

fun main() {
    val seeds = listOf(0, 1, -1, 206, 1031, 1231, 20260206, Int.MIN_VALUE, Int.MAX_VALUE)
    val bounds = listOf(1, 2, 3, 5, 7, 8, 10, 64, 100, 1 shl 30, Int.MAX_VALUE)
    val entries = seeds.map { seed ->
        val ints = Random(seed).let { r -> (0 until 10).map { r.nextInt() } }
        val bounded = Random(seed).let { r -> bounds.map { bound -> (0 until 5).map { r.nextInt(bound) } } }
        val shuffled = (0..9).toMutableList().also { it.shuffle(Random(seed)) }
        val shuffled50 = (0 until 50).toMutableList().also { it.shuffle(Random(seed)) }
        """{"seed":$seed,"ints":$ints,"bounds":$bounds,"bounded":$bounded,"shuffle10":$shuffled,"shuffle50":$shuffled50}"""
    }
    println("{\"kotlin\":\"${KotlinVersion.CURRENT}\",\"seeds\":[" + entries.joinToString(",\n") + "]}")
}
