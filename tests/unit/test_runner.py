"""Unit tests of :mod:`ragkit.evaluation.runs.evaluate`."""

from __future__ import annotations


def test_configs_are_interleaved_question_by_question_with_rotating_order():
    from ragkit.evaluation.runs.evaluate import run_interleaved

    calls: list[tuple[str, int]] = []

    class Fake:
        def __init__(self, name):
            self.name = name

        def items(self, limit):
            return list(range(6))[: limit or None]

        def step(self, item):
            calls.append((self.name, item))

        def finish(self):
            return [i for n, i in calls if n == self.name]

    done = run_interleaved([Fake("a"), Fake("b"), Fake("c")], limit=4)
    assert done == [[0, 1, 2, 3]] * 3
    firsts = [calls[3 * i][0] for i in range(4)]
    assert firsts == ["a", "b", "c", "a"]  # who goes first rotates
    assert [i for _, i in calls] == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]  # same question for all, then next


def test_a_config_that_fails_on_a_question_is_recorded_while_the_others_finish():
    from ragkit.evaluation.runs.evaluate import run_interleaved

    class Fake:
        def __init__(self, name, fail_at=None):
            self.config = type("C", (), {"name": name})()
            self.fail_at, self.seen = fail_at, []

        def items(self, limit):
            return [0, 1, 2, 3]

        def step(self, item):
            if item == self.fail_at:
                raise ConnectionError("server at 127.0.0.1:9 refused the connection")
            self.seen.append(item)

        def finish(self):
            return (self.config.name, self.seen)

    failures: list = []
    done = run_interleaved([Fake("a"), Fake("b", fail_at=2), Fake("c")], None, failures=failures)
    assert done == [("a", [0, 1, 2, 3]), ("c", [0, 1, 2, 3])]
    assert failures == [
        {"config": "b", "when": "question 3 of 4", "error": "ConnectionError: server at 127.0.0.1:9 refused "
         "the connection"}
    ]  # fmt: skip
    # without a list to record into, the error is the caller's
    try:
        run_interleaved([Fake("a"), Fake("b", fail_at=0)], None)
    except ConnectionError:
        pass
    else:
        raise AssertionError("the failure was swallowed")
