"""AudioBench (AudioLLMs/AudioBench): its ASR text rules as the `audiobench` scoring profile,
and its score logs read as they are written (predictions formats and a source type)."""
