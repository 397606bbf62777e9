"""Past the attempts budget each wrong try makes the next one wait (5 s, doubled, at most 5
minutes): a person who thinks between tries barely notices; a loop of guesses with made-up
reasons takes hours.  The waits' clock is the exercises' ``_clock``: these tests freeze it and
move it by hand."""
import pytest

from tests.repo_tools import fresh_exercises
from umkit.errors import InvalidArgument, InvalidType
from umkit.teaching import exercises


def test_the_wait_starts_past_the_budget_doubles_and_stops_at_five_minutes():
    assert [exercises.wait_after(k, 8) for k in (0, 8)] == [0.0, 0.0]
    assert [exercises.wait_after(k, 8) for k in range(9, 17)] == [5, 10, 20, 40, 80, 160, 300, 300]
    assert exercises.wait_after(10**9, 8) == 300
    assert exercises.wait_after(50, 0) == 0.0          # the budget off (the graders' tests)


@pytest.mark.parametrize("bad, error", [(-1, InvalidArgument), (2.5, InvalidType),
                                        ("3", InvalidType), (True, InvalidType)])
def test_wait_after_refuses_what_is_not_a_count_of_tries(bad, error):
    with pytest.raises(error, match="wrong"):
        exercises.wait_after(bad, 8)
    with pytest.raises(error, match="budget"):
        exercises.wait_after(3, bad)


def test_a_try_in_the_wait_is_not_graded_nor_counted_and_keeps_its_reason():
    out = fresh_exercises("""
        now = [0.0]
        exercises.grading._clock = lambda: now[0]
        spend()                                            # 2 wrong tries: no wait yet
        why = "each transfer carries one block of the buffer, so round the count up"
        v = nb01.check_transitions(lambda n, b: n + 7, why="the count is one more than the pages we have")
        assert not v.ok and "not graded" not in v.message, v.message     # graded: wrong no. 3
        v = nb01.check_transitions(right, why=why)         # at once: refused, not graded
        assert not v.ok and "wait 5 s more" in v.message, v.message
        now[0] += 4.0
        v = nb01.check_transitions(right, why=why)
        assert "wait 1 s more" in v.message, v.message
        now[0] += 1.0
        v = nb01.check_transitions(right, why=why)         # the same reason: it was not used up
        assert v.ok, v.message
        v = nb01.check_transitions(lambda n, b: n * 3)     # the pass ended the count and the wait
        assert not v.ok and "not graded" not in v.message, v.message
        v = nb01.check_transitions(lambda n, b: n * 4)
        assert not v.ok and "not graded" not in v.message, v.message
        print("ok")
    """)
    assert out.strip() == "ok"


def test_a_loop_of_wrong_answers_with_made_up_reasons_waits_hours():
    """What a program that tries answer after answer, a new random sentence as each reason,
    must wait: 40 wrong tries past a budget of 8 hold it up more than two hours."""
    out = fresh_exercises("""
        import random, re
        now = [0.0]
        exercises.grading._clock = lambda: now[0]
        words = "memory page fault block range driver copy link host device queue".split()
        rng = random.Random(5)
        graded = 0
        while graded < 48:
            why = " ".join(rng.choice(words) for _ in range(9)) + f" {graded} again"
            v = nb01.check_transitions(lambda n, b, g=graded: n + 3 + g, why=why)
            waiting = re.search(r"wait (\\d+) s more", v.message)
            if waiting:
                now[0] += float(waiting.group(1))
                continue
            assert not v.ok and "not graded" not in v.message, v.message
            graded += 1
        print(now[0])
    """, budget="8")
    waited = float(out.strip())
    assert waited == sum(exercises.wait_after(k, 8) for k in range(1, 48))
    assert waited > 2 * 3600


def test_the_wait_is_said_in_chinese_to_a_chinese_learner():
    out = fresh_exercises("""
        umkit.use(lang="zh")
        now = [0.0]
        exercises.grading._clock = lambda: now[0]
        spend()
        nb01.check_transitions(lambda n, b: n + 9, why="the count is one more than the pages we have")
        v = nb01.check_transitions(right, why="each transfer carries one block of the buffer here")
        print(repr(v))
    """)
    assert "再等 5 秒" in out and "wait" not in out, out
