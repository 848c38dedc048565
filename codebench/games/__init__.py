"""Games behind one seam: PuzzlePlex's games as a run plays them.

The match plan (`plan`: strategy requests, who plays which seeded setup), the players (`match`: a program in the
sandbox, a seat that forfeits; `chat`: a model in a conversation; built-in strategies are `puzzles.games`'), the one
turn loop (`puzzles.games.play`), and the match stage (`table`). The pipeline calls `plan.plan_games` and
`table.Table`; the store keeps `match.MatchRecord.to_json()`; nothing else in codebench plays a game. The modules are
imported by name (this file imports none), so `codebench puzzles play` starts without the run's database.
"""
