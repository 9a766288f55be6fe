"""Corpus metrics from summed statistics, grouped breakdowns, bootstrap confidence intervals."""
