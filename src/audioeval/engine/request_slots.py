"""The concurrency slots of a client: at most N requests in flight, and the requests waiting
for a slot served urgent ones first, then in the order they came.

A judged sample's first request is urgent (`engine/run_judge.SampleJudge`): the sample's other
requests wait for its answer, so that a serving engine's prefix cache encodes the sample's
clips once. Queued behind the other samples' requests, a first request would leave the slots
idle once those had drained, until it was answered; served first, the next samples' requests
are ready by then."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

URGENT = 0
NORMAL = 1


class RequestSlots:
    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError(f"slots must be at least 1, not {slots}")
        self.free = slots
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    @asynccontextmanager
    async def slot(self, priority: int = NORMAL) -> AsyncIterator[None]:
        """Hold one slot for the body; `priority` URGENT waits ahead of every NORMAL waiter."""
        await self._acquire(priority)
        try:
            yield
        finally:
            self._release()

    async def _acquire(self, priority: int) -> None:
        if self.free > 0 and not self._waiting:
            self.free -= 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (priority, next(self._order), waiter))
        try:
            await waiter  # the slot is handed over by `_release` (free is not incremented)
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._release()  # handed a slot as it was cancelled: pass it on
            else:
                self._waiting = [w for w in self._waiting if w[2] is not waiter]
                heapq.heapify(self._waiting)
            raise

    def _release(self) -> None:
        while self._waiting:
            _, _, waiter = heapq.heappop(self._waiting)
            if not waiter.done():
                waiter.set_result(None)
                return
        self.free += 1
