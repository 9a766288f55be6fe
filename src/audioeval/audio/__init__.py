"""Decode, resample, slice and encode audio; a per-run cache of encoded clips."""
