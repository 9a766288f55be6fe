"""Tiny randomly initialised Transformers models, built from configs and saved with
`save_pretrained`: the local "weights" the runtime recipes load in tests (nothing is
downloaded). Same architectures as the real checkpoints, a few thousand parameters each.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

QWEN_SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|AUDIO|>", "<|audio_bos|>", "<|audio_eos|>"]
QWEN_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{% if m['content'] is string %}{{ m['content'] }}"
    "{% else %}{% for c in m['content'] %}{% if c['type'] == 'audio' %}"
    "Audio: <|audio_bos|><|AUDIO|><|audio_eos|>\n{% elif c['type'] == 'text' %}{{ c['text'] }}{% endif %}"
    "{% endfor %}{% endif %}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def tiny_tokenizer(special: list[str], **kwargs: Any) -> Any:
    """A byte-level BPE tokenizer trained on two sentences (300 tokens)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=300, special_tokens=special, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(["the quick brown fox jumps over the lazy dog", "hello world of audio"], trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, **kwargs)


def tiny_qwen2_audio(folder: Path) -> Path:
    import torch
    from transformers import (
        Qwen2AudioConfig,
        Qwen2AudioForConditionalGeneration,
        Qwen2AudioProcessor,
        WhisperFeatureExtractor,
    )

    torch.manual_seed(0)
    tok = tiny_tokenizer(QWEN_SPECIAL, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    processor = Qwen2AudioProcessor(
        feature_extractor=WhisperFeatureExtractor(feature_size=16, sampling_rate=16000),
        tokenizer=tok,
        chat_template=QWEN_TEMPLATE,
    )
    config = Qwen2AudioConfig(
        audio_config={
            "num_mel_bins": 16,
            "d_model": 32,
            "encoder_layers": 1,
            "encoder_attention_heads": 2,
            "encoder_ffn_dim": 64,
        },
        text_config={
            "model_type": "qwen2",
            "vocab_size": len(tok),
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 1,
            "num_attention_heads": 2,
            "num_key_value_heads": 1,
            "max_position_embeddings": 4096,
        },
        audio_token_index=tok.convert_tokens_to_ids("<|AUDIO|>"),
    )
    model = Qwen2AudioForConditionalGeneration(config)
    model.generation_config.eos_token_id = tok.eos_token_id
    model.generation_config.pad_token_id = tok.pad_token_id
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


def tiny_encodec(folder: Path) -> Path:
    """16 kHz, 500 frames/s, 64-entry codebooks (6 bits): 3 kbit/s a codebook; bandwidths 3 and 6k."""
    import torch
    from transformers import EncodecConfig, EncodecFeatureExtractor, EncodecModel

    torch.manual_seed(0)
    config = EncodecConfig(
        sampling_rate=16000,
        hidden_size=32,
        num_filters=4,
        num_residual_layers=1,
        upsampling_ratios=[4, 4, 2],
        codebook_size=64,
        codebook_dim=32,
        target_bandwidths=[3.0, 6.0],
        num_lstm_layers=1,
    )
    EncodecModel(config).save_pretrained(folder)
    EncodecFeatureExtractor(feature_size=1, sampling_rate=16000).save_pretrained(folder)
    return folder


def tiny_mimi(folder: Path) -> Path:
    """16 kHz, 250 frames/s, 64-entry codebooks (6 bits), 8 codebooks."""
    import torch
    from transformers import MimiConfig, MimiModel

    torch.manual_seed(0)
    config = MimiConfig(
        sampling_rate=16000,
        upsample_groups=32,
        vector_quantization_hidden_dimension=32,
        hidden_size=32,
        num_filters=4,
        num_residual_layers=1,
        upsampling_ratios=[4, 4, 2],
        codebook_size=64,
        codebook_dim=32,
        num_quantizers=8,
        num_semantic_quantizers=1,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        head_dim=16,
        intermediate_size=64,
        sliding_window=16,
        use_streaming=False,
    )
    MimiModel(config).save_pretrained(folder)
    return folder


def tiny_dac(folder: Path) -> Path:
    """16 kHz, hop 48 (333.3 frames/s, not a whole number), 64-entry codebooks (6 bits), 12 codebooks."""
    import torch
    from transformers import DacConfig, DacModel

    torch.manual_seed(0)
    config = DacConfig(
        encoder_hidden_size=4,
        downsampling_ratios=[2, 4, 6],
        decoder_hidden_size=32,
        n_codebooks=12,
        codebook_size=64,
        codebook_dim=4,
        sampling_rate=16000,
    )
    DacModel(config).save_pretrained(folder)
    return folder


def tiny_snac(folder: Path) -> Path:
    """The `snac` package's own SNAC class, 24 kHz, hop 64 (375 frames/s), codebooks at strides
    4, 2, 1 (93.75, 187.5, 375 frames/s), 64 entries (6 bits); saved as `SNAC.from_pretrained`
    reads a folder (config.json + pytorch_model.bin)."""
    import json

    import torch
    from snac import SNAC

    torch.manual_seed(0)
    config = {
        "sampling_rate": 24000,
        "encoder_dim": 8,  # 8 x 2^3 = 64: one attention head (SNAC heads are 64 wide)
        "encoder_rates": [4, 4, 4],
        "decoder_dim": 64,
        "decoder_rates": [4, 4, 4],
        "attn_window_size": 4,
        "codebook_size": 64,
        "codebook_dim": 4,
        "vq_strides": [4, 2, 1],
        "noise": True,
        "depthwise": True,
    }
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config))
    torch.save(SNAC(**config).state_dict(), folder / "pytorch_model.bin")
    return folder


def tiny_whisper(folder: Path) -> Path:
    import torch
    from transformers import WhisperConfig, WhisperFeatureExtractor, WhisperForConditionalGeneration

    torch.manual_seed(0)
    special = ["<|endoftext|>", "<|startoftranscript|>", "<|en|>", "<|transcribe|>", "<|notimestamps|>"]
    tok = tiny_tokenizer(special, eos_token="<|endoftext|>", pad_token="<|endoftext|>", bos_token="<|endoftext|>")
    ids = {t: tok.convert_tokens_to_ids(t) for t in special}
    config = WhisperConfig(
        vocab_size=len(tok),
        num_mel_bins=16,
        d_model=32,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=64,
        decoder_ffn_dim=64,
        max_source_positions=1500,
        max_target_positions=448,
        decoder_start_token_id=ids["<|startoftranscript|>"],
        eos_token_id=ids["<|endoftext|>"],
        pad_token_id=ids["<|endoftext|>"],
        bos_token_id=ids["<|endoftext|>"],
        begin_suppress_tokens=None,
        suppress_tokens=None,
    )
    model = WhisperForConditionalGeneration(config)
    model.generation_config.decoder_start_token_id = ids["<|startoftranscript|>"]
    model.generation_config.eos_token_id = ids["<|endoftext|>"]
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    model.generation_config.forced_decoder_ids = None
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    WhisperFeatureExtractor(feature_size=16, sampling_rate=16000).save_pretrained(folder)
    return folder


def tiny_wavlm_xvector(folder: Path) -> Path:
    import torch
    from transformers import Wav2Vec2FeatureExtractor, WavLMConfig, WavLMForXVector

    torch.manual_seed(0)
    config = WavLMConfig(
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=64,
        conv_dim=(16, 16),
        conv_stride=(5, 4),
        conv_kernel=(10, 4),
        num_conv_pos_embeddings=16,
        num_conv_pos_embedding_groups=2,
        num_buckets=16,
        max_bucket_distance=32,
        tdnn_dim=(16, 16),
        tdnn_kernel=(3, 1),
        tdnn_dilation=(1, 1),
        xvector_output_dim=12,
    )
    WavLMForXVector(config).save_pretrained(folder)
    Wav2Vec2FeatureExtractor(feature_size=1, sampling_rate=16000, return_attention_mask=True).save_pretrained(folder)
    return folder


BUILDERS = {
    "qwen2-audio": tiny_qwen2_audio,
    "encodec": tiny_encodec,
    "mimi": tiny_mimi,
    "dac": tiny_dac,
    "snac": tiny_snac,
    "whisper-large-v3": tiny_whisper,
    "wavlm-sv": tiny_wavlm_xvector,
}


def build_all(root: Path) -> dict[str, Path]:
    """Every tiny model, in `root/<runtime name>`."""
    return {name: build(root / name) for name, build in BUILDERS.items()}
