"""The only place for concurrency, retries, timeouts, endpoint balancing, caching and resume."""
