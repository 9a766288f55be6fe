"""Embedded speech models for generation and codec evaluation; all run offline, no torch.

* `asr` — Whisper tiny.en (faster-whisper) transcripts, for WER/CER.
* `dnsmos` — DNSMOS P.835 SIG/BAK/OVRL and P.808 (speechmos's models, faster path).
* `speaker_sim` — speaker similarity (ONNX d-vector by default, resemblyzer optional).
* `reference_quality` — PESQ-WB and STOI against a reference.

Each model is loaded once per process (`runtime.load_once`) and counts its throughput
(`model.stats.snapshot().realtime_factor`). Importing this package imports no model library;
a missing `speech` extra raises OptionalDependencyError("pip install 'audioeval[speech]'").
"""
