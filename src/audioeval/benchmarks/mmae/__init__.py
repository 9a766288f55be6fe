"""MMAE: instruction-based audio editing judged by multiple-choice rubrics."""
