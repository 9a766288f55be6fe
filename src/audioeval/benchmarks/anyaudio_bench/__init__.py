"""AnyAudio-Judge Bench: audio-caption pairs labelled yes/no with pre-computed rubrics, on
which `audioeval judge-eval` measures how well a judge tells matches from hard negatives."""
