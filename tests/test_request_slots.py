"""The concurrency slots of a client (`engine/request_slots.py`): never more than N held, an
urgent request served ahead of the normal ones waiting, the rest in the order they came, and
a cancelled waiter never loses a slot. And the judge's identical requests in flight are asked
once (`engine/cached_judge.CachedJudge`)."""

from __future__ import annotations

import asyncio

import pytest

from audioeval.engine.request_slots import NORMAL, URGENT, RequestSlots


def test_urgent_waiters_go_first_then_in_order_and_never_more_than_the_slots() -> None:
    async def main() -> list[str]:
        slots, order, held = RequestSlots(2), [], [0]
        gate = asyncio.Event()

        async def job(name: str, priority: int) -> None:
            async with slots.slot(priority):
                held[0] += 1
                assert held[0] <= 2
                order.append(name)
                await gate.wait()
                held[0] -= 1

        first = [asyncio.create_task(job(n, NORMAL)) for n in ("a", "b")]
        await asyncio.sleep(0)
        rest = [asyncio.create_task(job(n, p)) for n, p in (("c", NORMAL), ("d", NORMAL), ("u", URGENT))]
        await asyncio.sleep(0)
        assert order == ["a", "b"] and len(slots._waiting) == 3
        gate.set()
        await asyncio.gather(*first, *rest)
        assert slots.free == 2
        return order

    assert asyncio.run(main()) == ["a", "b", "u", "c", "d"]


def test_a_cancelled_waiter_leaves_its_place_and_no_slot_is_lost() -> None:
    async def main() -> int:
        slots = RequestSlots(1)
        release = asyncio.Event()

        async def hold() -> None:
            async with slots.slot():
                await release.wait()

        holder = asyncio.create_task(hold())
        await asyncio.sleep(0)
        waiter = asyncio.create_task(hold())
        await asyncio.sleep(0)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        release.set()
        await holder
        async with slots.slot(URGENT):
            pass
        return slots.free

    assert asyncio.run(main()) == 1


def test_a_slot_handed_to_a_waiter_cancelled_at_that_moment_passes_on() -> None:
    async def main() -> int:
        slots = RequestSlots(1)
        got: list[str] = []

        async def take(name: str) -> None:
            async with slots.slot():
                got.append(name)

        await slots._acquire(NORMAL)  # the one slot, held here
        a = asyncio.create_task(take("a"))
        b = asyncio.create_task(take("b"))
        await asyncio.sleep(0)
        slots._release()  # handed to a ...
        a.cancel()  # ... cancelled before it runs: the slot goes on to b
        await asyncio.gather(a, b, return_exceptions=True)
        assert got == ["b"]
        return slots.free

    assert asyncio.run(main()) == 1


def test_slots_are_at_least_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        RequestSlots(0)


def test_identical_judge_requests_in_flight_are_asked_once(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Two rubric requests of one sample identical to the byte (same question, same option
    order, same attempt) sent together: the judge is asked once and both get its answer (the
    second as from the cache); one that differs is asked on its own."""
    from audioeval.audio.clip_cache import ClipCache
    from audioeval.core.messages import AudioPart, AudioRef, Message, TextPart
    from audioeval.engine.cached_judge import CachedJudge
    from audioeval.engine.chat_client import ChatClient
    from audioeval.store.response_cache import ResponseCache
    from tests.fakes.mcq_server import tone_wav
    from tests.fakes.yes_no_judge import YesNoJudgeConfig, YesNoJudgeServer

    tone_wav(tmp_path / "t.wav", 440)
    audio = AudioPart(AudioRef(str(tmp_path / "t.wav")))

    def asked(question: str) -> list[Message]:
        return [Message("user", (audio, TextPart(question)))]

    with YesNoJudgeServer(YesNoJudgeConfig(model="j", latency_s=0.2)) as server:

        async def ask() -> list[tuple[str | None, bool]]:
            client = ChatClient([server.base_url])
            judge = CachedJudge(client, ClipCache(), model="j", cache=ResponseCache(tmp_path / "cache.sqlite"))
            same = "Is there a tone? Answer yes or no."
            answers = await asyncio.gather(
                judge(asked(same), 0), judge(asked(same), 0), judge(asked("Is it loud? Answer yes or no."), 0)
            )
            await client.aclose()
            return [(a.text, a.cached) for a in answers]

        got = asyncio.run(ask())
        assert server.stats.requests == 2
    assert got[0][0] == got[1][0] and sorted([got[0][1], got[1][1]]) == [False, True]
    assert got[2][1] is False
