"""A tiny game for the tournament tests: each tick the world holds a digit; echoing it scores.

A controller that leads by three points wins. Two perfect controllers never lead, so their
match is a draw at max_ticks; a perfect one against one that always answers "0" wins quickly.
"""

import random


def new_match(seed, players):
    rng = random.Random(seed)
    return {"rng": rng, "players": list(players), "digit": rng.randrange(10), "tick": 0,
            "score": dict.fromkeys(players, 0)}


def observe(state, player):
    return {"n": state["digit"]}


def apply(state, player, action):
    if action["move"] == str(state["digit"]):
        state["score"][player] += 1


def step(state):
    state["tick"] += 1
    state["digit"] = state["rng"].randrange(10)
    ranked = sorted(state["score"].items(), key=lambda item: -item[1])
    if ranked[0][1] - ranked[1][1] >= 3:
        return {"winner": ranked[0][0], "scores": dict(state["score"])}
    return None


def frame(state):
    return {"tick": state["tick"], "digit": state["digit"], "score": dict(state["score"])}
