"""The `audioeval` command line.

The command's own process: OpenBLAS's worker threads, once a matrix product is done, sleep
at once instead of spinning for about 0.1 s (`OPENBLAS_THREAD_TIMEOUT`, read when numpy
loads OpenBLAS, so set here, before any audioeval module imports numpy). Their spinning took
the second of two cores from the work in between, such as the bootstrap CIs between a run's
summaries; results are the same bits. A value the user set is kept."""

import os

os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
