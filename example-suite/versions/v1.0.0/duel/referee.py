"""Duel's referee: two paddles, one ball, first to three points; integer physics, so every match
replays exactly.

Reporter-side and never seeded: the tournament imports it and calls `new_match`, `observe`,
`apply`, `step` and `frame`.
"""

import random

WIDTH, HEIGHT = 640, 360
PADDLE_WIDTH, PADDLE_HEIGHT, PADDLE_SPEED = 8, 60, 5
BALL = 8
MAX_SPEED = 14
WIN_SCORE = 3
SIDES = (16, WIDTH - 16 - PADDLE_WIDTH)
"""The x of the left and right paddles: the first player plays left."""
MOVES = {"up": -PADDLE_SPEED, "down": PADDLE_SPEED, "stay": 0}


def new_match(seed, players):
    rng = random.Random(seed)
    paddles = {
        player: {"x": SIDES[i], "y": (HEIGHT - PADDLE_HEIGHT) // 2, "score": 0, "move": "stay"}
        for i, player in enumerate(players)
    }
    state = {"players": list(players), "tick": 0, "rng": rng, "paddles": paddles, "ball": {}}
    _serve(state, rng.choice((-1, 1)))
    return state


def observe(state, player):
    you = state["paddles"][player]
    opponent = next(p for name, p in state["paddles"].items() if name != player)
    return {
        "tick": state["tick"],
        "ball": dict(state["ball"]),
        "you": {"x": you["x"], "y": you["y"], "score": you["score"]},
        "opponent": {"x": opponent["x"], "y": opponent["y"], "score": opponent["score"]},
        "field": {"width": WIDTH, "height": HEIGHT, "paddle_height": PADDLE_HEIGHT,
                  "paddle_speed": PADDLE_SPEED, "ball": BALL},
    }


def apply(state, player, action):
    state["paddles"][player]["move"] = action["move"]


def step(state):
    state["tick"] += 1
    for paddle in state["paddles"].values():
        paddle["y"] = min(max(paddle["y"] + MOVES[paddle["move"]], 0), HEIGHT - PADDLE_HEIGHT)
    ball = state["ball"]
    ball["x"] += ball["vx"]
    ball["y"] += ball["vy"]
    if ball["y"] < 0:
        ball["y"], ball["vy"] = -ball["y"], -ball["vy"]
    elif ball["y"] > HEIGHT - BALL:
        ball["y"], ball["vy"] = 2 * (HEIGHT - BALL) - ball["y"], -ball["vy"]
    left, right = (state["paddles"][name] for name in state["players"])
    if ball["vx"] < 0 and _meets(ball, left):
        ball["x"] = left["x"] + PADDLE_WIDTH
        _return(ball, left, 1)
    elif ball["vx"] > 0 and _meets(ball, right):
        ball["x"] = right["x"] - BALL
        _return(ball, right, -1)
    if ball["x"] < 0 or ball["x"] > WIDTH - BALL:
        scorer = right if ball["x"] < 0 else left
        scorer["score"] += 1
        if scorer["score"] >= WIN_SCORE:
            winner = next(name for name, paddle in state["paddles"].items() if paddle is scorer)
            return {"winner": winner, "scores": _scores(state)}
        _serve(state, 1 if scorer is left else -1)
    return None


def frame(state):
    return {"tick": state["tick"], "ball": [state["ball"]["x"], state["ball"]["y"]],
            "paddles": [[p["x"], p["y"]] for p in state["paddles"].values()], "scores": _scores(state)}


def _serve(state, direction):
    rng = state["rng"]
    state["ball"] = {"x": (WIDTH - BALL) // 2, "y": rng.randrange(BALL, HEIGHT - 2 * BALL),
                     "vx": 6 * direction, "vy": rng.choice((-3, -2, -1, 1, 2, 3))}


def _meets(ball, paddle):
    """The ball overlaps the paddle's face (the paddle zone is wider than the fastest ball's step)."""
    return (ball["x"] <= paddle["x"] + PADDLE_WIDTH and ball["x"] + BALL >= paddle["x"]
            and ball["y"] + BALL >= paddle["y"] and ball["y"] <= paddle["y"] + PADDLE_HEIGHT)


def _return(ball, paddle, direction):
    """Faster after every return, angled by where the ball met the paddle."""
    ball["vx"] = direction * min(abs(ball["vx"]) + 1, MAX_SPEED)
    offset = (ball["y"] + BALL // 2) - (paddle["y"] + PADDLE_HEIGHT // 2)
    ball["vy"] = max(-8, min(8, offset // 3))


def _scores(state):
    return {name: paddle["score"] for name, paddle in state["paddles"].items()}
