"""Unit tests of :mod:`ragkit.evaluation.runner`."""

from __future__ import annotations


def test_configs_are_interleaved_question_by_question_with_rotating_order():
    from ragkit.evaluation.runner import run_interleaved

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
