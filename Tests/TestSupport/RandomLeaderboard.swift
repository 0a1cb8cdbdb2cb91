// Random fixtures several test targets share.

/// A random leaderboard: players with a score, a name and sometimes a team.
public func randomLeaderboard(_ random: inout SplitMix64) -> String {
    let players = (0..<random.int(5...40)).map { i -> String in
        let team = random.chance(0.5) ? #","team":"\#(random.pick(["red", "blue"]))""# : ""
        return #""p\#(i)":{"name":"n\#(random.int(0..<9))","score":\#(random.int(0..<30))\#(team)}"#
    }
    return #"{"players":{\#(players.joined(separator: ","))},"other":1}"#
}
