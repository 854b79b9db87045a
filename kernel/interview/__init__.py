"""Interviews: any villager asked anything at any tick of a log, recorded, replayed, scored.

`battery` reads the battery file; `session` folds a log to a tick and asks, judges and scores;
`recording` writes and replays a battery's calls. The call itself is kernel.mind.interview;
what the log knows of an answer is kernel.laws.interview.
"""
